import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, appClaims, installationToken, signJwt, startTestWorld, userToken } from "./test-support.ts";

const dir = mkdtempSync(join(tmpdir(), "github-emulator-state-"));
const stateFile = join(dir, "nested", "github.json");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the state file keeps installations, tokens, comments, pull requests and deliveries across a restart", async () => {
  const first = await startTestWorld({ stateFile });
  const { installation } = await first.emulator.controls.install({ account: "issuepool-demo", repositories: ["xdc-wallet-kit"], sender: "alice" });
  const { pull_request } = await first.emulator.controls.openPullRequest({ repo: "issuepool-demo/xdc-wallet-kit", author: "bob", title: "Nonce fix", body: "Fixes #2", head: "nonce" });
  const { comment } = await first.emulator.controls.addComment({ repo: "issuepool-demo/xdc-wallet-kit", number: 2, author: "erin", body: "Thanks!" });
  const bob = await userToken(first.emulator, "bob");
  const ghs = await installationToken(first, installation.id as number);
  // Written after each change, not only at stop.
  expect(JSON.parse(readFileSync(stateFile, "utf8")).comments.map((c: { id: number }) => c.id)).toContain(comment.id);
  const deliveries = first.emulator.deliveries.length;
  await first.stop();

  const second = await startTestWorld({ stateFile });
  try {
    const jwt = await signJwt(second.keys.privateKey, appClaims(second.clock.now));
    const installations = await (await api(second.emulator, "/app/installations", { token: jwt })).json();
    expect(installations.map((i: { id: number }) => i.id)).toEqual([installation.id]);
    expect((await (await api(second.emulator, "/user", { token: bob })).json()).login).toBe("bob");
    expect((await api(second.emulator, "/installation/repositories", { token: ghs })).status).toBe(200);
    const pr = await (await api(second.emulator, `/repos/issuepool-demo/xdc-wallet-kit/pulls/${pull_request.number}`)).json();
    expect(pr).toMatchObject({ title: "Nonce fix", state: "open" });
    const comments = await (await api(second.emulator, "/repos/issuepool-demo/xdc-wallet-kit/issues/2/comments")).json();
    expect(comments.map((c: { body: string }) => c.body)).toEqual(["Thanks!"]);
    expect(second.emulator.deliveries).toHaveLength(deliveries);
    const next = await second.emulator.controls.addComment({ repo: "issuepool-demo/xdc-wallet-kit", number: 2, author: "bob", body: "Again" });
    expect(next.comment.id as number).toBeGreaterThan(comment.id as number);
    const another = await second.emulator.controls.openIssue({ repo: "issuepool-demo/xdc-wallet-kit", title: "Next", author: "erin" });
    expect(another.issue.number).toBe((pull_request.number as number) + 1);
  } finally {
    await second.stop();
  }
});
