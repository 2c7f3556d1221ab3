import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseEther } from "viem";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser } from "../../../testing/auth.ts";
import { chainTransactions, type TxStatus, type User } from "../../../db/schema/index.ts";
import { DomainError, httpStatusOf } from "../../errors.ts";
import { requesterOf } from "../../chain/outbox.ts";
import { allowanceOf, DAILY_WINDOW_MS, enforceLimits, limitFigure, scopesOf } from "./limits.ts";

/**
 * The daily funding limits' rule, on rows written straight into the outbox table: the window's boundaries, what
 * counts, which scope binds and the refusal. The same rule over HTTP with the clock moving is
 * limits.property.test.ts.
 */
let t: TestContext;
let alice: User;
let bob: User;
let repoId = 70_000;
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const xdc = (n: string) => parseEther(n);

async function row(user: User, kind: string, value: string, at: number, options: { repoId?: number; status?: TxStatus; oldChain?: string } = {}) {
  await t.ctx.database.db.insert(chainTransactions).values({
    id: crypto.randomUUID(),
    userId: user.id,
    requester: requesterOf(user.id),
    idempotencyKey: crypto.randomUUID(),
    requestHash: "x",
    kind,
    githubRepoId: options.repoId ?? null,
    intent: "{}",
    fromAddress: "0x0000000000000000000000000000000000000001",
    chainId: 31337,
    toAddress: "0x0000000000000000000000000000000000000002",
    data: "0x",
    value: xdc(value),
    status: options.status ?? "confirmed",
    oldChain: options.oldChain ?? null,
    createdAt: new Date(at),
  });
}

beforeAll(async () => {
  t = await createTestContext();
  alice = await createTestUser(t, { username: "limits-alice" });
  bob = await createTestUser(t, { username: "limits-bob" });
}, 60_000);
afterAll(() => t?.close());

describe("the rolling window", () => {
  test("an amount counts from the instant it was asked until 24 h later, exclusive; resetsAt is that instant", async () => {
    const repo = ++repoId;
    await row(alice, "fund_xdc", "100", T0, { repoId: repo });
    const at = (now: number) => limitFigure(t.ctx.database.db, { name: "repository", repoId: repo }, now);
    expect((await at(T0)).used).toBe(xdc("100"));
    const last = await at(T0 + DAILY_WINDOW_MS - 1);
    expect(last).toMatchObject({ used: xdc("100"), remaining: xdc("900") });
    expect(last.resetsAt!.getTime()).toBe(T0 + DAILY_WINDOW_MS);
    expect(await at(T0 + DAILY_WINDOW_MS)).toMatchObject({ used: 0n, remaining: xdc("1000"), resetsAt: null });
  });

  test("pending rows count, failed and reverted ones and a lost chain's do not", async () => {
    const repo = ++repoId;
    for (const status of ["queued", "signed", "sent", "confirmed", "failed", "reverted"] as const) await row(alice, "fund_xdc", "1", T0, { repoId: repo, status });
    await row(alice, "fund_xdc", "50", T0, { repoId: repo, oldChain: "0xgone" });
    expect((await limitFigure(t.ctx.database.db, { name: "repository", repoId: repo }, T0)).used).toBe(xdc("4"));
  });

  test("per repository: XDC fundings by anyone; per funder: their XDC fundings anywhere and their XDC boosts; nothing else", async () => {
    const repo = ++repoId;
    const carol = await createTestUser(t, { username: "limits-carol" });
    await row(carol, "fund_xdc", "10", T0, { repoId: repo });
    await row(bob, "fund_xdc", "20", T0, { repoId: repo });
    await row(carol, "fund_xdc", "30", T0, { repoId: ++repoId });
    await row(carol, "boost_xdc", "5", T0, { repoId: repo });
    for (const kind of ["send_xdc", "tip_xdc", "fund_roxn", "fund_usdc", "boost_roxn", "allocate_bounty", "withdraw_pool"]) await row(carol, kind, "7", T0, { repoId: repo });
    const db = t.ctx.database.db;
    expect((await limitFigure(db, { name: "repository", repoId: repo }, T0)).used).toBe(xdc("30"));
    expect((await limitFigure(db, { name: "funder", userId: carol.id }, T0)).used).toBe(xdc("45"));
  });

  test("a funding is checked against both scopes, a boost against the funder's", () => {
    expect(scopesOf({ kind: "fund_xdc", userId: 1, repoId: 9 })).toEqual([{ name: "repository", repoId: 9 }, { name: "funder", userId: 1 }]);
    expect(scopesOf({ kind: "boost_xdc", userId: 1 })).toEqual([{ name: "funder", userId: 1 }]);
  });
});

describe("which binds, and the refusal", () => {
  test("the smaller remaining figure binds; exactly it is accepted, one wei more refused with the spec's texts", async () => {
    const repo = ++repoId;
    const dave = await createTestUser(t, { username: "limits-dave" });
    await row(dave, "fund_xdc", "300", T0, { repoId: ++repoId }); // dave: 700 left
    await row(bob, "fund_xdc", "600", T0 + 60_000, { repoId: repo }); // the repository: 400 left
    const db = t.ctx.database.db;
    const now = T0 + 120_000;
    const funding = await allowanceOf(db, { kind: "fund_xdc", userId: dave.id, repoId: repo }, now);
    expect(funding.remaining).toBe(xdc("400"));
    expect(funding.binding.scope).toBe("repository");
    await enforceLimits(db, { kind: "fund_xdc", userId: dave.id, repoId: repo }, xdc("400"), now);
    const refused = await enforceLimits(db, { kind: "fund_xdc", userId: dave.id, repoId: repo }, xdc("400") + 1n, now).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    const err = refused as DomainError;
    expect(err.code).toBe("limit_exceeded");
    expect(httpStatusOf(err)).toBe(429);
    expect(err.title).toBe("Exceeds daily funding limit");
    expect(err.message).toBe("Daily funding limit reached. Remaining: 400.0000 XDC. Limit resets at 2026-12-02 12:01 UTC.");
    expect(err.details).toEqual({ remainingLimit: "400", limitResetTime: new Date(T0 + 60_000 + DAILY_WINDOW_MS).toISOString(), limit: "repository" });
    expect(err.headers?.["Retry-After"]).toBe(String((DAILY_WINDOW_MS - 60_000) / 1000));
    // A boost by dave is bound by his own figure only.
    const boost = await allowanceOf(db, { kind: "boost_xdc", userId: dave.id }, now);
    expect(boost).toMatchObject({ remaining: xdc("700"), binding: { scope: "funder" } });
  });

  test("on a tie the figure that grows last binds, so its reset time is when the allowance grows", async () => {
    const repo = ++repoId;
    const erin = await createTestUser(t, { username: "limits-erin" });
    await row(erin, "fund_xdc", "200", T0, { repoId: repo }); // both scopes: 800 left
    await row(erin, "boost_xdc", "100", T0 + 5_000); // erin: 700 left
    await row(bob, "fund_xdc", "100", T0 + 9_000, { repoId: repo }); // the repository: 700 left, grows first at T0 + 24 h
    const allowance = await allowanceOf(t.ctx.database.db, { kind: "fund_xdc", userId: erin.id, repoId: repo }, T0 + 10_000);
    expect(allowance.remaining).toBe(xdc("700"));
    // Both have 700 left and both lose their oldest (the same 200) at T0 + 24 h: then erin keeps her boost (900 left)
    // and the repository bob's funding (900 left).
    expect(allowance.binding.resetsAt!.getTime()).toBe(T0 + DAILY_WINDOW_MS);
    const later = await allowanceOf(t.ctx.database.db, { kind: "fund_xdc", userId: erin.id, repoId: repo }, T0 + DAILY_WINDOW_MS);
    expect(later.remaining).toBe(xdc("900"));
    // Where the two grow at different times, the later one binds.
    const frank = await createTestUser(t, { username: "limits-frank" });
    const other = ++repoId;
    await row(frank, "boost_xdc", "500", T0); // frank: 500 left, grows at T0 + 24 h
    await row(bob, "fund_xdc", "500", T0 + 30_000, { repoId: other }); // the repository: 500 left, grows 30 s later
    const tied = await allowanceOf(t.ctx.database.db, { kind: "fund_xdc", userId: frank.id, repoId: other }, T0 + 60_000);
    expect(tied).toMatchObject({ remaining: xdc("500"), binding: { scope: "repository" } });
    expect((await allowanceOf(t.ctx.database.db, { kind: "fund_xdc", userId: frank.id, repoId: other }, T0 + DAILY_WINDOW_MS)).remaining).toBe(xdc("500"));
    expect((await allowanceOf(t.ctx.database.db, { kind: "fund_xdc", userId: frank.id, repoId: other }, T0 + DAILY_WINDOW_MS + 30_000)).remaining).toBe(xdc("1000"));
  });

  test("above the whole limit with nothing counted: refused, the reset a window on", async () => {
    const repo = ++repoId;
    const grace = await createTestUser(t, { username: "limits-grace" });
    const err = (await enforceLimits(t.ctx.database.db, { kind: "fund_xdc", userId: grace.id, repoId: repo }, xdc("1000") + 1n, T0).catch((e: unknown) => e)) as DomainError;
    expect(err.details).toEqual({ remainingLimit: "1000", limitResetTime: new Date(T0 + DAILY_WINDOW_MS).toISOString(), limit: "repository" });
    await enforceLimits(t.ctx.database.db, { kind: "fund_xdc", userId: grace.id, repoId: repo }, xdc("1000"), T0);
  });
});
