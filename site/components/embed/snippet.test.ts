import { describe, expect, test } from "bun:test";
import { embedPath, embedSnippet } from "./snippet.ts";

describe("the embed snippet", () => {
  test("points an iframe at the board on the origin the visitor sees", () => {
    expect(embedSnippet("https://issuepool.dev", "issuepool-demo/xdc-wallet-kit")).toBe(
      '<iframe src="https://issuepool.dev/embed/issuepool-demo/xdc-wallet-kit" title="issuepool-demo/xdc-wallet-kit bounties on Issuepool" width="100%" height="360" style="border:0;border-radius:12px" loading="lazy"></iframe>',
    );
  });

  test("keeps odd names inside their attribute", () => {
    expect(embedPath('a/b"c')).toBe("/embed/a/b%22c");
    const snippet = embedSnippet("http://localhost:3000", 'a/b"><script>');
    expect(snippet).not.toContain("<script>");
    expect(snippet).toContain('title="a/b&#34;&#62;&#60;script&#62; bounties on Issuepool"');
  });
});
