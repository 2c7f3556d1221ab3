import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { auditLog, users, wallets } from "../../../db/schema/index.ts";
import { walletContext, withWalletAccount } from "../../services/wallets/custodial.ts";
import { unsealText } from "../../crypto/envelope.ts";

let t: TestContext;
let owner: TestSession;
let stranger: TestSession;

beforeAll(async () => {
  t = await createTestContext({ fileDatabase: true });
});
afterAll(() => t.close());
beforeEach(async () => {
  owner = await signInAs(t, await createTestUser(t));
  stranger = await signInAs(t, await createTestUser(t));
});

describe("POST /api/auth/register", () => {
  test("creates the custodial wallet, sets the role and completes the profile", async () => {
    const res = await call(t, "/api/auth/register", { as: owner, body: { role: "poolmanager", email: "pm@example.org" } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.user).toMatchObject({ role: "poolmanager", email: "pm@example.org", isProfileComplete: true });
    expect(body.user.xdcWalletAddress).toMatch(/^xdc[0-9a-fA-F]{40}$/);
    expect(res.headers.get("set-cookie")).toContain("ip_signed_in=poolmanager");

    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, owner.user.id));
    expect(`xdc${wallet!.address.slice(2)}`).toBe(body.user.xdcWalletAddress);
    const [audit] = await t.ctx.database.db.select().from(auditLog).where(eq(auditLog.userId, owner.user.id));
    expect(audit!.action).toBe("register");
  });

  test("the private key is never in plaintext: not in the response, the log, or any column", async () => {
    t.log.lines.length = 0;
    const res = await call(t, "/api/auth/register", { as: owner, body: { role: "contributor", email: "c@example.org" } });
    const text = await res.text();
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, owner.user.id));
    const key = await unsealText(t.ctx.keyring, wallet!.privateKeySealed, walletContext(wallet!));
    // the sealed key is the wallet's: it signs as the stored address
    expect(await withWalletAccount(t.ctx, wallet!, async (account) => account.address as string)).toBe(wallet!.address);
    expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    const raw = key.slice(2);
    expect(text).not.toContain(raw);
    expect(t.log.lines.join("\n")).not.toContain(raw);
    const dump = await t.ctx.database.client.execute("select * from wallets");
    expect(JSON.stringify(dump.rows)).not.toContain(raw);
    expect(JSON.stringify(dump.rows).toLowerCase()).not.toContain(raw.toLowerCase());
  });

  test("registering twice never creates a second wallet", async () => {
    await call(t, "/api/auth/register", { as: owner, body: { role: "contributor", email: "c@example.org" } });
    const again = await call(t, "/api/auth/register", { as: owner, body: { role: "poolmanager", email: "x@example.org" } });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "Registration Error", message: "User already has a wallet address registered." });
    const [{ n }] = (await t.ctx.database.db.select({ n: count() }).from(wallets).where(eq(wallets.userId, owner.user.id))) as [{ n: number }];
    expect(n).toBe(1);
    const [user] = await t.ctx.database.db.select().from(users).where(eq(users.id, owner.user.id));
    expect(user!.role).toBe("contributor");
  });

  test("concurrent registrations create exactly one wallet", async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => call(t, "/api/auth/register", { as: owner, body: { role: "contributor", email: "c@example.org" } })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(5);
    const rows = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, owner.user.id));
    expect(rows).toHaveLength(1);
  });

  test("bad input is a 400 naming the problem", async () => {
    const badRole = await call(t, "/api/auth/register", { as: owner, body: { role: "admin", email: "a@example.org" } });
    expect(badRole.status).toBe(400);
    expect((await badRole.json()).message).toContain("role");
    const badEmail = await call(t, "/api/auth/register", { as: owner, body: { role: "contributor", email: "not-an-email" } });
    expect(badEmail.status).toBe(400);
    expect((await badEmail.json()).message).toContain("e-mail");
  });

  test("the service variant may only name the signed-in user", async () => {
    const res = await call(t, "/api/auth/register", {
      as: owner,
      body: { role: "contributor", username: stranger.user.username, githubId: stranger.user.githubId },
    });
    expect(res.status).toBe(403);
    const ok = await call(t, "/api/auth/register", { as: owner, body: { role: "contributor", username: owner.user.username, githubId: owner.user.githubId } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).user.email).toBe(owner.user.email);
  });

  securityCases({ method: "POST", path: "/api/auth/register", body: { role: "contributor", email: "s@example.org" } }, {
    t: () => t,
    owner: () => owner,
    stranger: () => stranger,
  });
});

describe("registration rate limit", () => {
  test("per user, 429 with Retry-After", async () => {
    const bursty = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 12; i++) {
      last = await call(t, "/api/auth/register", { as: bursty, body: { role: "contributor", email: "b@example.org" } });
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 409)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await last!.json()).code).toBe("rate_limited");
  });
});

describe("rate limits without proxy headers", () => {
  test("count per socket address, ignoring a forged X-Forwarded-For", async () => {
    const direct = await createTestContext({ env: { TRUST_PROXY: "false" } });
    const statuses: number[] = [];
    for (let i = 0; i < 52; i++) {
      const session = await signInAs(direct, await createTestUser(direct));
      const res = await call(direct, "/api/auth/register", { as: session, ip: `192.0.2.${i}`, body: { role: "admin" } });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 50).every((s) => s === 400)).toBe(true);
    expect(statuses.slice(50)).toEqual([429, 429]);
    direct.close();
  });
});
