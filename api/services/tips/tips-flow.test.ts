import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { erc20Abi, parseEther, parseUnits, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, tips, webhookDeliveries } from "../../../db/schema/index.ts";

/**
 * Tips over HTTP and webhooks (issue 29, item 5): from the Tip button (POST /api/tips) and from `/tip` comments
 * confirmed in the app; held for a GitHub user without a wallet and sent when they register; never twice; in
 * the wallet histories of both.
 */
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let grace: TestSession & { wallet: Address };
let n = 0;
const key = () => `tips-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const tip = (as: TestSession, body: Record<string, unknown>, idempotencyKey = key()) => call(stack.t, "/api/tips", { as, body, headers: { "Idempotency-Key": idempotencyKey } });
const balance = (address: Address) => stack.t.ctx.chain.client.getBalance({ address });
const transfersOf = (tipId: number) =>
  stack.t.ctx.database.db.select().from(chainTransactions).where(and(inArray(chainTransactions.kind, ["tip_xdc", "tip_token"]), eq(chainTransactions.idempotencyKey, `tip:${tipId}`)));
const confirmed = (id: number) =>
  eventually(async () => {
    const [row] = await stack.t.ctx.database.db.select().from(tips).where(eq(tips.id, id));
    const [tx] = row?.txId ? await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.id, row.txId)) : [];
    return tx?.status === "confirmed" ? tx : undefined;
  }, 30_000, `tip ${id} confirmed`);

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  grace = await stack.signUp("grace", "contributor");
  await stack.chain.fund(bob.wallet, { xdc: "50", usdc: "5" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
}, 120_000);
afterAll(() => stack?.stop());

describe("tips", () => {
  test("to someone with a wallet: sent at once, once per request, in both wallet histories", async () => {
    const before = await balance(grace.wallet);
    const idempotencyKey = key();
    const res = await tip(bob, { login: "grace", amount: "2", currency: "XDC" }, idempotencyKey);
    expect(res.status, await res.clone().text()).toBe(200);
    const given = await res.json();
    expect(given).toMatchObject({ from: "bob", to: "grace", currency: "XDC", amount: "2" });
    expect(["pending", "confirmed"]).toContain(given.status);
    // The same request again: the same tip, no second transfer.
    expect((await (await tip(bob, { login: "grace", amount: "2", currency: "XDC" }, idempotencyKey)).json()).id).toBe(given.id);
    await confirmed(given.id);
    // Straight to grace through the contract, less its 0.5 % fee.
    expect(given.fee).toBe("0.01");
    expect(await balance(grace.wallet)).toBe(before + parseEther("1.99"));
    expect(await transfersOf(given.id)).toHaveLength(1);
    const bobs = (await (await call(stack.t, "/api/wallet/transactions?limit=20", { as: bob })).json()).transactions;
    expect(bobs).toContainEqual(expect.objectContaining({ kind: "tip", isIncoming: false, tokenAmount: "2" }));
    const graces = (await (await call(stack.t, "/api/wallet/transactions?limit=20", { as: grace })).json()).transactions;
    expect(graces).toContainEqual(expect.objectContaining({ kind: "tip", isIncoming: true, tokenAmount: "1.99" }));
    const mine = await (await call(stack.t, "/api/tips", { as: grace })).json();
    expect(mine.received).toContainEqual(expect.objectContaining({ id: given.id, from: "bob", status: "confirmed" }));
    // Grace reads it as hers (issue 38: her own history said "Tip … sent to @grace"); bob as his.
    expect(mine.received.find((t: { id: number }) => t.id === given.id).message).toBe("Tip from @bob: 1.9900 XDC (2.0000 XDC less the 0.0100 XDC fee) reached your wallet.");
    const bobsTips = await (await call(stack.t, "/api/tips", { as: bob })).json();
    expect(bobsTips.given.find((t: { id: number }) => t.id === given.id).message).toBe("Tip of 2 XDC (fee 0.01 XDC) sent to @grace.");
  }, 90_000);

  test("to someone without a wallet: escrowed for their GitHub id, then paid once to the wallet they register", async () => {
    const bobBefore = await balance(bob.wallet);
    const res = await tip(bob, { login: "carol", amount: "3", currency: "XDC" });
    expect(res.status, await res.clone().text()).toBe(200);
    const held = await res.json();
    expect(held).toMatchObject({ to: "carol", status: "held", fee: "0.015" });
    expect(held.message).toContain("held for @carol");
    // The money left bob's wallet for the escrow (with gas), under carol's GitHub id.
    const [escrow] = await transfersOf(held.id);
    await stack.t.ctx.outbox.waitForSettled(escrow!.id, 30_000);
    expect(bobBefore - (await balance(bob.wallet))).toBeGreaterThanOrEqual(parseEther("3"));
    const payTips = () => stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `tip-pay:${held.id}`));
    // Webhook passes meanwhile pay nothing.
    await stack.t.ctx.webhooks.runOnce();
    expect(await payTips()).toHaveLength(0);
    const carol = await stack.signUp("carol", "contributor");
    await eventually(async () => {
      await stack.t.ctx.webhooks.runOnce();
      const [pay] = await payTips();
      return pay?.status === "confirmed" ? pay : undefined;
    }, 30_000, "payTip confirmed");
    expect(await balance(carol.wallet)).toBe(parseEther("2.985"));
    // Every later pass finds it paid: one payTip, carol's balance unchanged.
    await stack.t.ctx.webhooks.runOnce();
    await stack.t.ctx.webhooks.runOnce();
    expect(await payTips()).toHaveLength(1);
    expect(await balance(carol.wallet)).toBe(parseEther("2.985"));
    const mine = await (await call(stack.t, "/api/tips", { as: carol })).json();
    expect(mine.received).toContainEqual(expect.objectContaining({ id: held.id, status: "confirmed" }));
    const history = (await (await call(stack.t, "/api/wallet/transactions?limit=20", { as: carol })).json()).transactions;
    expect(history).toContainEqual(expect.objectContaining({ kind: "tip", isIncoming: true, tokenAmount: "2.985" }));
  }, 90_000);

  test("in USDC: the wallet approves the contract first, then the tip reaches grace less the fee", async () => {
    const usdcOf = (address: Address) => stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });
    const before = await usdcOf(grace.wallet);
    const res = await tip(bob, { login: "grace", amount: "2", currency: "USDC" });
    expect(res.status, await res.clone().text()).toBe(200);
    const given = await res.json();
    expect(given).toMatchObject({ currency: "USDC", amount: "2", fee: "0.01" });
    await confirmed(given.id);
    expect((await usdcOf(grace.wallet)) - before).toBe(parseUnits("1.99", 6));
    const approvals = await stack.t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `tip-approve:${given.id}`));
    expect(approvals.map((a) => a.status)).toEqual(["confirmed"]);
  }, 90_000);

  test("refused: yourself, an organisation, nobody, below the minimum, beyond the balance, no wallet", async () => {
    const cases: [TestSession, Record<string, unknown>, number][] = [
      [bob, { login: "bob", amount: "1" }, 400],
      [bob, { login: "issuepool-demo", amount: "1" }, 400],
      [bob, { login: "no-such-person-here", amount: "1" }, 404],
      [bob, { login: "grace", amount: "0.5", currency: "XDC" }, 400],
      [bob, { login: "grace", amount: "5000", currency: "XDC" }, 400],
      [bob, { login: "grace", amount: "50", currency: "USDC" }, 400],
      [bob, { login: "grace", amount: "-1" }, 400],
    ];
    for (const [as, body, status] of cases) {
      const res = await tip(as, body);
      expect(res.status, `${JSON.stringify(body)}: ${await res.clone().text()}`).toBe(status);
    }
  }, 60_000);

  test("/tip in a comment: a link for its author only, confirmed once in the app", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Thanks for the help", author: "alice" });
    const issue = (opened.issue as { number: number }).number;
    const before = await balance(grace.wallet);
    await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "bob", body: "/tip 1.5 XDC @grace\nthanks!" });
    await stack.github.controls.settle();
    const reply = await eventually(async () => {
      const res = await fetch(`${stack.github.apiUrl}/repos/${LITE.fullName}/issues/${issue}/comments`);
      return ((await res.json()) as { body: string; user: { type: string } }[]).find((c) => c.user.type === "Bot" && c.body.includes("/confirm/"))?.body;
    }, 20_000, "the bot's link");
    expect(reply).toStartWith("@bob To send your tip of 1.5 XDC to @grace");
    const token = /\/confirm\/([A-Za-z0-9_-]+)/.exec(reply)![1]!;
    // A stranger (even the recipient) neither sees nor confirms it.
    expect((await call(stack.t, `/api/intents/${token}`, { as: grace })).status).toBe(404);
    expect((await call(stack.t, `/api/intents/${token}/confirm`, { as: grace, body: {} })).status).toBe(404);
    const shown = await (await call(stack.t, `/api/intents/${token}`, { as: bob })).json();
    expect(shown).toMatchObject({ kind: "tip", title: "Tip 1.5 XDC to @grace" });
    const done = await call(stack.t, `/api/intents/${token}/confirm`, { as: bob, body: {} });
    expect(done.status, await done.clone().text()).toBe(200);
    expect((await done.json()).message).toBe("Tip of 1.5 XDC (fee 0.0075 XDC) sent to @grace.");
    expect((await call(stack.t, `/api/intents/${token}/confirm`, { as: bob, body: {} })).status).toBe(410);
    const [row] = await stack.t.ctx.database.db.select().from(tips).where(eq(tips.source, `comment:${(await commentIdOf(issue, "/tip 1.5 XDC @grace"))}`));
    await confirmed(row!.id);
    expect(await balance(grace.wallet)).toBe(before + parseEther("1.4925"));
    // The comment redelivered: the same link, no new intent, no new tip.
    const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"));
    expect(pending).toHaveLength(0);
    expect(await stack.t.ctx.database.db.select().from(tips).where(eq(tips.source, row!.source))).toHaveLength(1);
  }, 90_000);

});

async function commentIdOf(issue: number, startsWith: string): Promise<number> {
  const res = await fetch(`${stack.github.apiUrl}/repos/${LITE.fullName}/issues/${issue}/comments`);
  return ((await res.json()) as { id: number; body: string }[]).find((c) => c.body.startsWith(startsWith))!.id;
}
