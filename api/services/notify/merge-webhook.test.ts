/**
 * The whole path of an outbound webhook (issue 30), each part real: a pool manager adds a repository endpoint
 * (admin rights checked with the GitHub emulator), a bounty is set and claimed, a pull request that fixes the
 * issue is merged, the payout is mined, the indexer records `bounty.paid` in its own transaction, and the outbound
 * worker delivers it, signed: the receiver verifies it with `standardwebhooks`.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { Webhook } from "standardwebhooks";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bountyEvents, webhookDeliveries } from "../../../db/schema/index.ts";

let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let receiver: ReturnType<typeof Bun.serve>;
const received: { headers: Record<string, string>; body: string }[] = [];
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let n = 0;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": `merge-webhook-${n++}-${Date.now()}` } });

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response(null, { status: 204 });
    },
  });
  stack = await startTestStack({ workers: true, env: { OUTBOUND_ALLOW_LOOPBACK: "true" } });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "20", repositoryFullName: LITE.fullName })).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  receiver?.stop(true);
});

test("a pool manager's repository endpoint receives a signed bounty.paid after a merge", async () => {
  // Only a pool manager with admin rights adds a repository's endpoint.
  const refused = await call(stack.t, "/api/alerts/webhooks", { as: bob, body: { url: `http://127.0.0.1:${receiver.port}/x`, repositoryId: LITE.id } });
  expect(refused.status).toBe(403);
  const added = await call(stack.t, "/api/alerts/webhooks", { as: alice, body: { url: `http://127.0.0.1:${receiver.port}/issuepool`, repositoryId: LITE.id } });
  expect(added.status, await added.clone().text()).toBe(201);
  const { secret } = (await added.json()) as { secret: string };

  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Signed payouts", author: "alice" });
  const issue = (opened.issue as { number: number }).number;
  const allocated = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "1.5", currency: "XDC", githubRepoFullName: LITE.fullName });
  expect(allocated.status, await allocated.clone().text()).toBe(200);
  expect((await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: LITE.id } })).status).toBe(200);
  const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "bob", title: `Fixes #${issue}`, body: `Fixes #${issue}`, head: `bob:signed-${Date.now()}` });
  await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
  await stack.github.controls.settle();

  const paid = await eventually(
    async () => {
      await stack.t.ctx.webhooks.runOnce();
      await stack.t.ctx.indexer.catchUp();
      await stack.t.ctx.outbound.runOnce();
      return received.find((r) => r.body.includes('"bounty.paid"') && r.body.includes(`"number":${issue}`));
    },
    60_000,
    "a bounty.paid delivery",
  );
  const event = new Webhook(secret).verify(paid.body, paid.headers) as { type: string; data: Record<string, unknown> };
  expect(event.type).toBe("bounty.paid");
  expect(event.data).toMatchObject({
    repository: { id: LITE.id, fullName: LITE.fullName },
    issue: { number: issue, title: "Signed payouts" },
    currency: "XDC",
    amount: "1500000000000000000",
    amountFormatted: "1.5 XDC",
    contributor: { login: "bob" },
  });
  expect(String(event.data.transactionHash)).toMatch(/^0x[0-9a-f]{64}$/);
  // The earlier steps were told too, once each.
  const types = received.filter((r) => r.body.includes(`"number":${issue}`)).map((r) => (JSON.parse(r.body) as { type: string }).type);
  expect(types.sort()).toEqual(["bounty.claimed", "bounty.created", "bounty.paid"]);
  const events = await stack.t.ctx.database.db.select().from(bountyEvents).where(eq(bountyEvents.issueNumber, issue));
  expect(events.map((e) => e.type).sort()).toEqual(["bounty.claimed", "bounty.created", "bounty.paid"]);
  expect((await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "failed"))).length).toBe(0);
}, 120_000);
