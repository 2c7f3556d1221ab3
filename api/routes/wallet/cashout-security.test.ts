/**
 * The shared security cases of the cash-out and statement writes (issue 40), on a quiet app: no background pass
 * runs, so the database each case compares changes only by the request (cashout.test.ts runs them end to end).
 */
import { afterAll, beforeAll, describe } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";

let t: TestContext;
let bob: TestSession;
let alice: TestSession;

beforeAll(async () => {
  t = await createTestContext();
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  alice = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
});
afterAll(() => t?.close());

describe("cash-out and statements: security cases", () => {
  const harness = { t: () => t, owner: () => bob, stranger: () => alice };
  securityCases({ method: "POST", path: "/api/wallet/cashout/quote", body: { currency: "XDC", amount: "1" } }, harness);
  securityCases({ method: "PUT", path: "/api/wallet/cashout/settings", body: { upiId: "bob@okaxis" } }, harness);
  securityCases(() => ({ method: "POST", path: "/api/wallet/cashout", body: { quoteId: crypto.randomUUID(), upiId: "bob@okaxis" } }), harness);
  securityCases({ method: "PUT", path: "/api/statements/invoice-profile", body: { name: "Bob Ltd", address: "1 Road", taxId: "GSTIN 29ABCDE1234F1Z5" } }, harness);
});
