import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser } from "../../../testing/auth.ts";
import { oneTimeCodes, type User } from "../../../db/schema/index.ts";
import { DomainError, httpStatusOf } from "../../errors.ts";
import { CODE_TTL_MS, consumeCode, generateCode, issueCode, maskEmail } from "./one-time-codes.ts";

let t: TestContext;
let nextUser: () => Promise<User>;

beforeAll(async () => {
  t = await createTestContext();
  nextUser = () => createTestUser(t);
});
afterAll(() => t?.close());

const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError) return { status: httpStatusOf(err), error: err.title, message: err.message, details: err.details };
    throw err;
  }
  throw new Error("expected a refusal");
};

describe("one-time codes", () => {
  test("six digits, every digit position used", () => {
    const codes = Array.from({ length: 2000 }, generateCode);
    for (const code of codes) expect(code).toMatch(/^\d{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1990);
    for (let position = 0; position < 6; position++) expect(new Set(codes.map((c) => c[position])).size).toBe(10);
  });

  test("stored as a keyed hash, never as the code", async () => {
    const user = await nextUser();
    const { code, id } = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    const [row] = await t.ctx.database.db.select().from(oneTimeCodes).where(eq(oneTimeCodes.id, id));
    expect(row!.codeHash).not.toContain(code);
    expect(row!.codeHash).toHaveLength(43); // base64url HMAC-SHA256
  });

  test("the right code works once; a used code is refused", async () => {
    const user = await nextUser();
    const { code } = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    await consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code });
    expect(await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code }))).toMatchObject({
      status: 400,
      error: "Invalid code",
    });
  });

  test("five wrong codes lock it: even the right one is refused afterwards", async () => {
    const user = await nextUser();
    const { code } = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    const wrong = code === "000000" ? "111111" : "000000";
    for (const left of [4, 3, 2, 1]) {
      expect(await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code: wrong }))).toMatchObject({
        status: 400,
        details: { attemptsLeft: left },
      });
    }
    expect(await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code: wrong }))).toMatchObject({
      status: 429,
      error: "Too many attempts",
    });
    expect((await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code }))).status).toBe(429);
  });

  test("another user's code, another purpose or another subject is refused", async () => {
    const alice = await nextUser();
    const bob = await nextUser();
    const { code } = await issueCode(t.ctx, { userId: alice.id, purpose: "send", subject: "XDC:0xabc:1" });
    await issueCode(t.ctx, { userId: bob.id, purpose: "send", subject: "XDC:0xabc:1" });
    expect((await refusal(consumeCode(t.ctx, { userId: bob.id, purpose: "send", subject: "XDC:0xabc:1", code }))).status).toBe(400);
    expect((await refusal(consumeCode(t.ctx, { userId: alice.id, purpose: "export", subject: "XDC:0xabc:1", code }))).status).toBe(400);
    expect((await refusal(consumeCode(t.ctx, { userId: alice.id, purpose: "send", subject: "XDC:0xabc:2", code }))).status).toBe(400);
    await consumeCode(t.ctx, { userId: alice.id, purpose: "send", subject: "XDC:0xabc:1", code });
  });

  test("valid for 10 minutes", async () => {
    const user = await nextUser();
    const now = Date.now();
    const { code } = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", now });
    expect((await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code, now: now + CODE_TTL_MS }))).status).toBe(400);
    await consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code, now: now + CODE_TTL_MS - 1 });
  });

  test("a new code replaces the earlier one", async () => {
    const user = await nextUser();
    const first = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    const second = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    if (first.code !== second.code) {
      expect((await refusal(consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code: first.code }))).status).toBe(400);
    }
    await consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code: second.code });
  });

  test("at most 3 an hour per user and purpose, also when asked at once", async () => {
    const user = await nextUser();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(3);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(DomainError);
    expect(httpStatusOf(refused.reason as DomainError)).toBe(429);
    expect(Number((refused.reason as DomainError).headers?.["Retry-After"])).toBeGreaterThan(3500);
    // Another purpose has its own count; an hour later the user may ask again.
    await issueCode(t.ctx, { userId: user.id, purpose: "send", subject: "s" });
    await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", now: Date.now() + 3600_000 + 1000 });
  });

  test("concurrent uses of one code: exactly one succeeds", async () => {
    const user = await nextUser();
    const { code } = await issueCode(t.ctx, { userId: user.id, purpose: "export", subject: "w" });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => consumeCode(t.ctx, { userId: user.id, purpose: "export", subject: "w", code })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  test("e-mail addresses are masked in messages", () => {
    expect(maskEmail("bob@example.com")).toBe("b***@example.com");
    expect(maskEmail("nonsense")).toBe("your e-mail address");
  });
});
