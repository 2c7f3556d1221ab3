import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Server } from "bun";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bounties } from "../../../db/schema/index.ts";
import { keepBountyCommentsInStep } from "./subscriber.ts";

/**
 * The bot's comment syncs end before what they talk to goes away. Before:
 * the handle had no stop, so a sync started by a late change went on after
 * the server (or a test stack) had stopped GitHub's client: a PATCH to a
 * closed port, an unhandled error (seen in CI after github-outage.test.ts).
 * A gate in front of the emulator holds the bot's request to show the order.
 */
let stack: TestStack;
let gate: { url: string; held: number; release(): void; server: Server<unknown> };
let alice: TestSession;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

beforeAll(async () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let target = "";
  const state = {
    held: 0,
    release: () => open(),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      if (/\/issues\/\d+\/comments$|\/issues\/comments\/\d+$/.test(url.pathname)) {
        state.held++;
        await opened;
      }
      return fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body, redirect: "manual" });
    },
  });
  gate = Object.assign(state, { url: `http://127.0.0.1:${server.port}`, server });
  stack = await startTestStack({ workers: false, env: { GITHUB_API_URL: gate.url } });
  target = stack.github.apiUrl;
  alice = await stack.signUp("alice", "poolmanager");
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
}, 120_000);
afterAll(async () => {
  gate?.release();
  await stack?.stop();
  gate?.server.stop(true);
});

test("stop() waits for the comment sync under way and starts no other", async () => {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Held comment", author: "alice" });
  const issue = (opened.issue as { number: number }).number;
  await stack.t.ctx.database.db.insert(bounties).values({
    githubRepoId: LITE.id,
    issueNumber: issue,
    currency: "XDC",
    amount: 2n * 10n ** 18n,
    status: "open",
    allocatedTx: `0x${"ab".repeat(32)}`,
    allocatedAt: new Date(),
    updatedBlock: 1,
  } as typeof bounties.$inferInsert);
  const bot = keepBountyCommentsInStep(stack.t.ctx);
  stack.t.ctx.changes.publish([`bounty:${LITE.id}:${issue}`]);
  await eventually(async () => (gate.held === 1 ? true : undefined), 20_000, "the bot's comment request reached GitHub");

  let stopped = false;
  const stopping = bot.stop().then(() => (stopped = true));
  // A change after stop() was called starts nothing new, even one that would edit the comment.
  await stack.t.ctx.database.db.update(bounties).set({ amount: 3n * 10n ** 18n });
  stack.t.ctx.changes.publish([`bounty:${LITE.id}:${issue}`]);
  await Promise.race([stopping, Bun.sleep(200)]);
  expect(stopped).toBe(false); // the bot's request is still held: stop() has not returned
  gate.release();
  await stopping;
  await bot.idle();
  expect(gate.held).toBe(1);
}, 60_000);
