import { afterAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../testing/context.ts";

const opened: TestContext[] = [];
afterAll(() => opened.forEach((t) => t.close()));

async function signInAttempts(factor: number, count: number): Promise<number[]> {
  const t = await createTestContext({ env: { RATE_LIMIT_PER_IP_FACTOR: factor } });
  opened.push(t);
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    statuses.push((await t.app.request("/api/auth/github", { headers: { "X-Forwarded-For": "198.51.100.4" } })).status);
  }
  return statuses;
}

describe("RATE_LIMIT_PER_IP_FACTOR", () => {
  test("multiplies the per-IP limit (sign-in: 30 per address by default)", async () => {
    const single = await signInAttempts(1, 31);
    expect(single.slice(0, 30).every((s) => s !== 429)).toBe(true);
    expect(single[30]).toBe(429);
    const doubled = await signInAttempts(2, 61);
    expect(doubled.slice(0, 60).every((s) => s !== 429)).toBe(true);
    expect(doubled[60]).toBe(429);
  });
});
