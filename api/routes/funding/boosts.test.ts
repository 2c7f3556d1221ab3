import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { bountyBoosts } from "../../../db/schema/index.ts";
import { parseBoostAmount, splitFee, checkExpiry } from "../../services/funding/boost-rules.ts";

/** The boost routes' refusals that need no chain; the flow with a chain is services/funding/boosts-flow.test.ts. */
let t: TestContext;
let bob: TestSession;
let carol: TestSession;
let bobBoost = 0;

beforeAll(async () => {
  t = await createTestContext();
  bob = await signInAs(t, await createTestUser(t, { role: "contributor", username: "bob-boost" }));
  carol = await signInAs(t, await createTestUser(t, { role: "contributor", username: "carol-boost" }));
  const [row] = await t.ctx.database.db
    .insert(bountyBoosts)
    .values({ githubRepoId: 77, issueNumber: 1, userId: bob.user.id, funderAddress: "0x00000000000000000000000000000000000000b0", currency: "XDC", amount: 995n, fee: 5n, status: "active", idempotencyKey: "seeded" })
    .returning({ id: bountyBoosts.id });
  bobBoost = row!.id;
});
afterAll(() => t?.close());

describe("boost rules", () => {
  test("minimum 1 XDC, 0.0001 ROXN or USDC; the currency's step; the fee rounds down", () => {
    expect(() => parseBoostAmount("0.99", "XDC")).toThrow("The minimum boost is 1 XDC.");
    expect(parseBoostAmount("1", "XDC")).toBe(10n ** 18n);
    expect(() => parseBoostAmount("0.00009", "USDC")).toThrow();
    expect(parseBoostAmount("0.0001", "USDC")).toBe(100n);
    expect(parseBoostAmount("0.0001", "ROXN")).toBe(10n ** 14n);
    expect(() => parseBoostAmount("0.00011", "ROXN")).toThrow("ROXN amounts have at most 4 decimal places.");
    expect(splitFee(10n ** 18n, 50)).toEqual({ fee: 5n * 10n ** 15n, share: 995n * 10n ** 15n });
    expect(splitFee(199n, 50)).toEqual({ fee: 0n, share: 199n });
  });
  test("an expiry between one day and one year ahead", () => {
    const now = Date.now();
    expect(checkExpiry(null, now)).toBeNull();
    expect(() => checkExpiry(new Date(now + 3600_000), now)).toThrow("An expiry date must be between one day and one year from now.");
    expect(() => checkExpiry(new Date(now + 400 * 24 * 3600_000), now)).toThrow();
    expect(checkExpiry(new Date(now + 2 * 24 * 3600_000), now)!.getTime()).toBe(now + 2 * 24 * 3600_000);
  });
});

describe("boost routes", () => {
  test("the terms say the fee, the minimums and the daily limit", async () => {
    const res = await call(t, "/api/funding/terms");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ minimums: { XDC: "1", ROXN: "0.0001", USDC: "0.0001" }, dailyLimitXdc: "1000" });
  });
  test("an issue nobody funded has no funders (and GitHub is not asked)", async () => {
    expect(await (await call(t, "/api/funding/nobody/nothing/issues/3")).json()).toEqual({ currency: null, boosted: "0", funders: [] });
  });
  test("my boosts need a session; someone else's boost cannot be cancelled (404, nothing changes)", async () => {
    expect((await call(t, "/api/funding/my-boosts")).status).toBe(401);
    const before = await databaseDigest(t);
    expect((await call(t, `/api/funding/boosts/${bobBoost}`, { as: carol, method: "DELETE" })).status).toBe(404);
    expect(await databaseDigest(t)).toBe(before);
  });
});

securityCases({ method: "POST", path: "/api/funding/alice/xdc-explorer-lite/issues/1/boosts", body: { currency: "XDC", amount: "1" } }, {
  t: () => t,
  owner: () => bob,
  stranger: () => carol,
});
securityCases(() => ({ method: "DELETE", path: `/api/funding/boosts/${bobBoost}` }), {
  t: () => t,
  owner: () => bob,
  stranger: () => carol,
  ownedResource: true,
});
