import { beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadStaticFiles, lookupStaticFile, makeStaticFile, respondWithFile, stylesheetPreloads, type StaticFile } from "./static-files.ts";
import { makeTempDir } from "../../testing/context.ts";
import { RUNTIME_MARKERS, type RuntimeConfig } from "../../lib/runtime-config.ts";

const runtime: RuntimeConfig = {
  supportEmail: "help@example.org",
  supportChatScriptUrl: "",
  networkLabel: 'Test <Environment> "quoted"',
  networkKind: "testnet",
  explorerUrl: "https://testnet.xdcscan.com",
  editorUri: "vscode://issuepool.issuepool",
};
let files: Map<string, StaticFile>;

beforeAll(async () => {
  const dir = await makeTempDir();
  mkdirSync(join(dir, "faq"), { recursive: true });
  mkdirSync(join(dir, "_astro"), { recursive: true });
  writeFileSync(join(dir, "faq", "index.html"), `<a href="mailto:${RUNTIME_MARKERS.supportEmail}">${RUNTIME_MARKERS.networkLabel}</a>`);
  writeFileSync(join(dir, "_astro", "app.abc123.js"), "console.log('x');".repeat(100));
  writeFileSync(join(dir, "robots.txt"), "User-agent: *");
  files = loadStaticFiles(dir, runtime);
});

describe("static files", () => {
  test("prerendered HTML gets runtime values, escaped", () => {
    const faq = lookupStaticFile(files, "/faq")!;
    const html = new TextDecoder().decode(faq.body);
    expect(html).toContain("mailto:help@example.org");
    expect(html).toContain("Test &#60;Environment&#62; &#34;quoted&#34;");
    expect(html).not.toContain("__IP_RUNTIME");
  });

  test("lookup by path, directory index and trailing slash; nothing outside", () => {
    expect(lookupStaticFile(files, "/faq/")).toBe(lookupStaticFile(files, "/faq"));
    expect(lookupStaticFile(files, "/robots.txt")).toBeDefined();
    expect(lookupStaticFile(files, "/../etc/passwd")).toBeUndefined();
    expect(lookupStaticFile(files, "/%2e%2e/%2e%2e/etc/passwd")).toBeUndefined();
    expect(lookupStaticFile(files, "/%E0%A4%A")).toBeUndefined();
  });

  test("hashed assets are immutable; gzip when accepted; 304 on a matching ETag", async () => {
    const js = lookupStaticFile(files, "/_astro/app.abc123.js")!;
    expect(js.cacheControl).toContain("immutable");
    const zipped = respondWithFile(new Request("http://x/_astro/app.abc123.js", { headers: { "accept-encoding": "gzip, br" } }), js);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(Number((await zipped.arrayBuffer()).byteLength)).toBeLessThan(js.body.byteLength);
    const plain = respondWithFile(new Request("http://x/_astro/app.abc123.js"), js);
    expect(plain.headers.get("content-encoding")).toBeNull();
    const again = respondWithFile(new Request("http://x/_astro/app.abc123.js", { headers: { "if-none-match": js.etag } }), js);
    expect(again.status).toBe(304);
  });

  test("a page's own stylesheets are named in a Link header to preload; nothing else is, and other files have none", () => {
    const html = new TextEncoder().encode(
      `<!doctype html><html><head><meta http-equiv="content-security-policy" content="default-src 'self'">` +
        `<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/_astro/Base.AbC-1_2.css">` +
        `<link rel=stylesheet href=/_astro/page.x.css><link rel="stylesheet" href="https://cdn.example/evil.css">` +
        `<link rel="stylesheet" href="//cdn.example/evil.css"><link rel="stylesheet" href="/a.css>; rel=preload, </b.css">` +
        `<link rel="alternate" type="application/atom+xml" href="/feed.xml"></head>` +
        `<body><link rel="stylesheet" href="/_astro/late.css"></body></html>`,
    );
    expect(stylesheetPreloads(html)).toBe("</_astro/Base.AbC-1_2.css>; rel=preload; as=style, </_astro/page.x.css>; rel=preload; as=style");
    const page = makeStaticFile(html, "text/html; charset=utf-8", { compress: true, cacheControl: "public, max-age=0" });
    const res = respondWithFile(new Request("http://x/faq"), page);
    expect(res.headers.get("link")).toBe("</_astro/Base.AbC-1_2.css>; rel=preload; as=style, </_astro/page.x.css>; rel=preload; as=style");
    // A page without stylesheets, and anything not HTML, carries no Link header.
    expect(respondWithFile(new Request("http://x/faq"), lookupStaticFile(files, "/faq")!).headers.get("link")).toBeNull();
    expect(respondWithFile(new Request("http://x/a.js"), lookupStaticFile(files, "/_astro/app.abc123.js")!).headers.get("link")).toBeNull();
    const css = makeStaticFile(new TextEncoder().encode(`<link rel="stylesheet" href="/x.css">`), "text/css", { compress: false, cacheControl: "x" });
    expect(css.link).toBeUndefined();
  });
});
