import { afterAll, beforeAll, describe } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";

/** The shared security cases of the writes of shared rewards and tips (their flows: api/services/splits, api/services/tips). */
let t: TestContext;
let owner: TestSession;
let stranger: TestSession;

beforeAll(async () => {
  t = await createTestContext();
  owner = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  stranger = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t?.close());

describe("writes of splits and tips", () => {
  securityCases({ method: "PUT", path: "/api/splits/5003/1", body: { shares: [{ login: "bob", percent: "100" }] } }, { t: () => t, owner: () => owner, stranger: () => stranger });
  securityCases({ method: "POST", path: "/api/tips", body: { login: "grace", amount: "1", currency: "XDC" } }, { t: () => t, owner: () => owner, stranger: () => stranger });
});
