import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { eq } from "drizzle-orm";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bounties } from "../../../db/schema/index.ts";
import { keepBountyCommentsInStep } from "./subscriber.ts";

/**
 * The changes of one operation come moments apart (queued, sent, mirrored: each publishes the bounty's tag), and
 * each would rebuild and write the bot's comment. The bot waits its settle time after the first change of a burst
 * and writes the comment once, as it stands then (issue 29's chain bench: the comments' upkeep was part of the gap).
 * A proxy in front of the emulator counts the bot's comment requests.
 */
let stack: TestStack;
let proxy: Server<unknown>;
const commentRequests: { method: string; body: string }[] = [];
let alice: TestSession;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

beforeAll(async () => {
  let target = "";
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.text();
      if (/\/issues\/\d+\/comments$|\/issues\/comments\/\d+$/.test(url.pathname) && request.method !== "GET") commentRequests.push({ method: request.method, body: body ?? "" });
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, redirect: "manual" });
    },
  });
  stack = await startTestStack({ workers: false, env: { GITHUB_API_URL: `http://127.0.0.1:${proxy.port}` } });
  target = stack.github.apiUrl;
  alice = await stack.signUp("alice", "poolmanager");
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  proxy?.stop(true);
});

test("changes of one bounty within the settle time make one comment write, with the bounty as it stands after them", async () => {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Settled comment", author: "alice" });
  const issue = (opened.issue as { number: number }).number;
  await stack.t.ctx.database.db.insert(bounties).values({
    githubRepoId: LITE.id, issueNumber: issue, currency: "XDC", amount: 2n * 10n ** 18n, status: "open",
    allocatedTx: `0x${"cd".repeat(32)}`, allocatedAt: new Date(), updatedBlock: 1,
  } as typeof bounties.$inferInsert);
  // A settle time far above what the steps below take, even on a loaded machine.
  const bot = keepBountyCommentsInStep(stack.t.ctx, { settleMs: 3_000 });
  try {
    const tag = `bounty:${LITE.id}:${issue}`;
    stack.t.ctx.changes.publish([tag]);
    await stack.t.ctx.database.db.update(bounties).set({ amount: 3n * 10n ** 18n }).where(eq(bounties.issueNumber, issue));
    stack.t.ctx.changes.publish([tag]);
    await stack.t.ctx.database.db.update(bounties).set({ amount: 5n * 10n ** 18n }).where(eq(bounties.issueNumber, issue));
    stack.t.ctx.changes.publish([tag]);
    await bot.idle();
    const mine = commentRequests.filter((r) => r.body.includes("5.0000 XDC") || r.body.includes("2.0000 XDC") || r.body.includes("3.0000 XDC"));
    expect(mine.map((r) => r.method)).toEqual(["POST"]);
    expect(mine[0]!.body).toContain("5.0000 XDC");
  } finally {
    await bot.stop();
  }
}, 60_000);
