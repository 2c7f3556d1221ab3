/**
 * A money amount sent as a JSON number keeps its exact decimal text (issue 25): JSON.parse would read
 * 9007199254740993 as 9007199254740992. A file of its own: the approval it makes is a real transaction,
 * which the bad-input suite (nothing may be sent) must never see, whatever the order its tests run in.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { wallets } from "../../../db/schema/index.ts";

let stack: TestStack;
let alice: TestSession;

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signIn("alice");
  expect((await call(stack.t, "/api/auth/register", { as: alice, body: { role: "poolmanager", email: "alice@example.com" } })).status).toBe(200);
  const [wallet] = await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id));
  await stack.chain.fund(wallet!.address as Address, { xdc: "10" });
}, 120_000);
afterAll(() => stack?.stop());

test("approving 9007199254740993 ROXN sent as a JSON number approves exactly that", async () => {
  const res = await stack.t.app.request("/api/blockchain/approve-roxn", {
    method: "POST",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      Origin: new URL(stack.t.env.PUBLIC_URL).origin,
      Cookie: alice.cookie,
      "X-CSRF-Token": alice.csrfToken,
      "X-Forwarded-For": alice.ip,
      "Idempotency-Key": "exact-amounts-approve",
    },
    body: '{"amount": 9007199254740993}',
  });
  expect(res.status).toBe(200);
  const allowance = await call(stack.t, "/api/blockchain/roxn-allowance", { as: alice });
  expect((await allowance.json()).allowance).toBe("9007199254740993000000000000000000");
});
