import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { moneyIntents } from "../../../db/schema/index.ts";
import { createMoneyIntent, intentUrl, INTENT_TTL_MS } from "../../services/funding/intents.ts";
import { defineIntentKind } from "../../services/funding/intent-kinds.ts";
import { DomainError, ErrorCode } from "../../errors.ts";

/** A kind of this test's own: counts confirmations, fails when asked to (to show the intent is released). */
const done: { userId: number; key: string; note: string }[] = [];
let failNext = false;
defineIntentKind("test-note", {
  payload: z.object({ note: z.string() }),
  describe: (p) => ({ title: "Leave a note", lines: [p.note] }),
  async confirm(_ctx, { user, payload, idempotencyKey }) {
    if (failNext) {
      failNext = false;
      throw new DomainError({ code: ErrorCode.INSUFFICIENT_BALANCE, error: "Insufficient balance", message: "Not enough XDC." });
    }
    done.push({ userId: user.id, key: idempotencyKey, note: payload.note });
    return { result: `note:${done.length}`, message: "Noted.", link: null };
  },
});

let t: TestContext;
let alice: TestSession;
let bob: TestSession;
let source = 0;

beforeAll(async () => {
  t = await createTestContext();
  alice = await signInAs(t, await createTestUser(t, { role: "contributor", username: "alice-intent" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor", username: "bob-intent" }));
});
afterAll(() => t?.close());

const intentFor = (session: TestSession, options: { ttlMs?: number; now?: number } = {}) =>
  createMoneyIntent(t.ctx, { kind: "test-note", githubUserId: session.user.githubId, source: `comment:${++source}`, payload: { note: `n${source}` }, ...options });

describe("money intents", () => {
  test("the author reads it, confirms it once; the second confirm is 410", async () => {
    const intent = await intentFor(alice);
    expect(intentUrl("http://localhost:3000/", intent.token)).toBe(`http://localhost:3000/confirm/${intent.token}`);
    const read = await call(t, `/api/intents/${intent.token}`, { as: alice });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ kind: "test-note", title: "Leave a note" });
    const first = await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ success: true, message: "Noted.", link: null });
    expect(done.at(-1)).toEqual({ userId: alice.user.id, key: `intent:${intent.id}`, note: `n${source}` });
    const count = done.length;
    const again = await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} });
    expect(again.status).toBe(410);
    expect((await again.json()).error).toBe("Link already used");
    expect((await call(t, `/api/intents/${intent.token}`, { as: alice })).status).toBe(410);
    expect(done.length).toBe(count);
    const [row] = await t.ctx.database.db.select().from(moneyIntents).where(eq(moneyIntents.id, intent.id));
    expect(row!.result).toBe(`note:${count}`);
  });

  test("two confirms at once: exactly one acts", async () => {
    const intent = await intentFor(alice);
    const before = done.length;
    const answers = await Promise.all([1, 2, 3].map(() => call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 410, 410]);
    expect(done.length).toBe(before + 1);
  });

  test("an expired link is 410 and does nothing", async () => {
    const intent = await intentFor(alice, { now: Date.now() - INTENT_TTL_MS - 1000 });
    const before = await databaseDigest(t);
    const res = await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} });
    expect(res.status).toBe(410);
    expect((await res.json()).error).toBe("Link expired");
    expect((await call(t, `/api/intents/${intent.token}`, { as: alice })).status).toBe(410);
    expect(await databaseDigest(t)).toBe(before);
  });

  test("another user's intent is 404 to read and to confirm, and stays usable by its author", async () => {
    const intent = await intentFor(alice);
    expect((await call(t, `/api/intents/${intent.token}`, { as: bob })).status).toBe(404);
    const before = await databaseDigest(t);
    expect((await call(t, `/api/intents/${intent.token}/confirm`, { as: bob, body: {} })).status).toBe(404);
    expect(await databaseDigest(t)).toBe(before);
    expect((await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} })).status).toBe(200);
  });

  test("signed out: 401 to read; an unknown token is 404", async () => {
    const intent = await intentFor(alice);
    expect((await call(t, `/api/intents/${intent.token}`)).status).toBe(401);
    expect((await call(t, `/api/intents/${"x".repeat(40)}`, { as: alice })).status).toBe(404);
  });

  test("a failed action releases the intent: its author can retry, under the same idempotency key", async () => {
    const intent = await intentFor(alice);
    failNext = true;
    const failed = await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} });
    expect(failed.status).toBe(400);
    const retried = await call(t, `/api/intents/${intent.token}/confirm`, { as: alice, body: {} });
    expect(retried.status).toBe(200);
    expect(done.at(-1)!.key).toBe(`intent:${intent.id}`);
  });

  test("a replayed request (same kind and source) gets the same link, not a second intent", async () => {
    const a = await createMoneyIntent(t.ctx, { kind: "test-note", githubUserId: alice.user.githubId, source: "comment:replayed", payload: { note: "x" } });
    const b = await createMoneyIntent(t.ctx, { kind: "test-note", githubUserId: alice.user.githubId, source: "comment:replayed", payload: { note: "x" } });
    expect(b).toEqual({ ...a, created: false });
    expect(a.created).toBe(true);
    const [row] = await t.ctx.database.db.select().from(moneyIntents).where(eq(moneyIntents.id, a.id));
    expect(row!.tokenHash).not.toContain(a.token);
  });
});

let securityIntent = "";
beforeAll(async () => {
  securityIntent = (await createMoneyIntent(t.ctx, { kind: "test-note", githubUserId: alice.user.githubId, source: "comment:security", payload: { note: "s" } })).token;
});
securityCases(() => ({ method: "POST", path: `/api/intents/${securityIntent}/confirm`, body: {} }), {
  t: () => t,
  owner: () => alice,
  stranger: () => bob,
  ownedResource: true,
});
