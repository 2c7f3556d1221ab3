import { afterAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../testing/context.ts";

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
    // Each allowed attempt is the redirect to GitHub, exactly; the first one over the limit is 429.
    expect(single.slice(0, 30)).toEqual(Array(30).fill(302));
    expect(single[30]).toBe(429);
    const doubled = await signInAttempts(2, 61);
    expect(doubled.slice(0, 60)).toEqual(Array(60).fill(302));
    expect(doubled[60]).toBe(429);
  });
});
