import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser } from "../../../testing/auth.ts";
import { sessions } from "../../../db/schema/index.ts";
import { hashToken } from "../../crypto/tokens.ts";
import {
  createSession,
  invalidateSessionToken,
  SESSION_ABSOLUTE_MS,
  SESSION_EXTEND_EVERY_MS,
  SESSION_IDLE_MS,
  validateSessionToken,
} from "./sessions.ts";
import { consumeRateLimit } from "./rate-limit.ts";
import { csrfTokenFor, verifyCsrfToken } from "./csrf.ts";

let t: TestContext;
beforeAll(async () => (t = await createTestContext()));
afterAll(() => t.close());

describe("sessions", () => {
  test("the database stores only the SHA-256 of the token", async () => {
    const user = await createTestUser(t);
    const { token } = await createSession(t.ctx.database.db, user.id);
    const rows = await t.ctx.database.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).toBe(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  test("expiry slides with use, written at most once an hour", async () => {
    const user = await createTestUser(t);
    const start = 1_700_000_000_000;
    const { token } = await createSession(t.ctx.database.db, user.id, {}, start);
    const soon = await validateSessionToken(t.ctx.database.db, token, start + 60_000);
    expect(soon!.session.expiresAt.getTime()).toBe(start + SESSION_IDLE_MS);
    const later = await validateSessionToken(t.ctx.database.db, token, start + 2 * SESSION_EXTEND_EVERY_MS);
    expect(later!.session.expiresAt.getTime()).toBe(start + 2 * SESSION_EXTEND_EVERY_MS + SESSION_IDLE_MS);
  });

  test("an idle session expires; an active one stops at the absolute cap", async () => {
    const user = await createTestUser(t);
    const start = 1_700_000_000_000;
    const idle = await createSession(t.ctx.database.db, user.id, {}, start);
    expect(await validateSessionToken(t.ctx.database.db, idle.token, start + SESSION_IDLE_MS + 1)).toBeNull();

    const active = await createSession(t.ctx.database.db, user.id, {}, start);
    let now = start;
    while (now < start + SESSION_ABSOLUTE_MS - 24 * 3600 * 1000) {
      now += 24 * 3600 * 1000;
      expect(await validateSessionToken(t.ctx.database.db, active.token, now)).not.toBeNull();
    }
    expect(await validateSessionToken(t.ctx.database.db, active.token, start + SESSION_ABSOLUTE_MS + 1)).toBeNull();
  });

  test("an invalidated token no longer works; garbage tokens are refused without a query", async () => {
    const user = await createTestUser(t);
    const { token } = await createSession(t.ctx.database.db, user.id);
    await invalidateSessionToken(t.ctx.database.db, token);
    expect(await validateSessionToken(t.ctx.database.db, token)).toBeNull();
    expect(await validateSessionToken(t.ctx.database.db, "'; drop table users; --")).toBeNull();
  });
});

describe("anti-forgery tokens", () => {
  test("bound to the session", async () => {
    const a = await csrfTokenFor(t.ctx.appSecret, "session-a");
    expect(await verifyCsrfToken(t.ctx.appSecret, "session-a", a)).toBe(true);
    expect(await verifyCsrfToken(t.ctx.appSecret, "session-b", a)).toBe(false);
    expect(await verifyCsrfToken(t.ctx.appSecret, "session-a", undefined)).toBe(false);
    expect(await verifyCsrfToken(t.ctx.appSecret, "session-a", a.slice(0, -1) + (a.endsWith("A") ? "B" : "A"))).toBe(false);
  });
});

describe("rate limits", () => {
  test("count per subject within a window, and reset after it", async () => {
    const rule = { name: "test", limit: 3, windowMs: 60_000 };
    const now = 1_700_000_000_000 - (1_700_000_000_000 % 60_000);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await consumeRateLimit(t.ctx.database.db, rule, "ip:1.2.3.4", now + i));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results[3]!.retryAfterSeconds).toBe(60);
    expect((await consumeRateLimit(t.ctx.database.db, rule, "ip:5.6.7.8", now)).allowed).toBe(true);
    expect((await consumeRateLimit(t.ctx.database.db, rule, "ip:1.2.3.4", now + 60_000)).allowed).toBe(true);
  });

  test("concurrent attempts are all counted", async () => {
    const rule = { name: "burst", limit: 10, windowMs: 60_000 };
    const results = await Promise.all(Array.from({ length: 25 }, () => consumeRateLimit(t.ctx.database.db, rule, "user:1")));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });
});
