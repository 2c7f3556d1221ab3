import { afterAll, beforeAll, describe } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";

/** The shared security cases of the attempts' writes (their flows: api/services/attempts/attempts.test.ts). */
let t: TestContext;
let alice: TestSession;
let bob: TestSession;
let carol: TestSession;

beforeAll(async () => {
  t = await createTestContext();
  alice = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  carol = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t?.close());

describe("writes of attempts", () => {
  securityCases({ method: "PUT", path: `/api/attempts/5003/settings`, body: { mode: "exclusive", audience: "humans", lockDays: 7 } }, { t: () => t, owner: () => alice, stranger: () => bob });
  securityCases({ method: "PUT", path: `/api/attempts/5003/issues/1/settings`, body: { mode: "exclusive", audience: null, lockDays: null } }, { t: () => t, owner: () => alice, stranger: () => bob });
  securityCases({ method: "POST", path: `/api/attempts/5003/flags`, body: { login: "grace", flagged: true } }, { t: () => t, owner: () => alice, stranger: () => bob });
  securityCases({ method: "DELETE", path: `/api/attempts/5003/issues/1` }, { t: () => t, owner: () => bob, stranger: () => carol });
  securityCases({ method: "POST", path: `/api/attempts/5003/issues/1/release`, body: { login: "bob" } }, { t: () => t, owner: () => alice, stranger: () => bob });
  securityCases({ method: "POST", path: `/api/attempts/5003/issues/1/pick`, body: { login: "bob" } }, { t: () => t, owner: () => alice, stranger: () => bob });
});
