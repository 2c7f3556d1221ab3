import { expect, test } from "bun:test";
import type { TestContext } from "./context.ts";
import { call, databaseDigest, type TestSession } from "./auth.ts";
import { issueVscodeToken } from "../api/services/auth/vscode.ts";

export interface SecuredRoute {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
}

export interface SecurityHarness {
  t: () => TestContext;
  /** A signed-in user allowed to call the route (for the CSRF and Origin cases). */
  owner: () => TestSession;
  /** Another signed-in user (whose anti-forgery token must not work for the owner). */
  stranger?: () => TestSession;
  /** The route acts on the owner's resource: the stranger must get 404 and change nothing. */
  ownedResource?: boolean;
  /** Routes that succeed without a session (logout) skip the 401 case. */
  allowsAnonymous?: boolean;
  /**
   * A same-origin JSON request may call the route without a token (api/middleware/csrf.ts, SAME_ORIGIN_ROUTES): the
   * token cases then come without an Origin, and the route's own test covers the same-origin one.
   */
  sameOriginWithoutToken?: boolean;
}

/**
 * The security cases every state-changing route passes (STYLE.md): no
 * session → 401; the owner's editor token instead of a session → 401 (editor
 * tokens only read); no, wrong or another session's anti-forgery token → 403;
 * another site's Origin → 403; someone else's resource → 404. In every
 * refused case the database is unchanged.
 */
export function securityCases(route: SecuredRoute | (() => SecuredRoute), harness: SecurityHarness): void {
  const r = () => (typeof route === "function" ? route() : route);
  const label = () => `${r().method} ${r().path}`;

  const refused = async (expectedStatus: number, send: () => Promise<Response>) => {
    const before = await databaseDigest(harness.t());
    const res = await send();
    expect(res.status).toBe(expectedStatus);
    const body = await res.json();
    expect(body.requestId).toBeString();
    expect(await databaseDigest(harness.t())).toBe(before);
  };

  if (!harness.allowsAnonymous) {
    test(`security: ${label()} without a session is 401 and changes nothing`, () =>
      refused(401, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {} })));
  }
  test(`security: ${label()} with an editor token (Authorization: Bearer) is 401 and changes nothing`, async () => {
    const { token } = await issueVscodeToken(harness.t().ctx.database.db, harness.owner().user.id);
    await refused(401, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, headers: { Authorization: `Bearer ${token}` } }));
  });
  const tokenless = harness.sameOriginWithoutToken ? { origin: null } : {};
  test(`security: ${label()} without an anti-forgery token${harness.sameOriginWithoutToken ? " (and no Origin)" : ""} is 403 and changes nothing`, () =>
    refused(403, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, as: harness.owner(), csrf: false, ...tokenless })));
  test(`security: ${label()} with a forged anti-forgery token is 403 and changes nothing`, () =>
    refused(403, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, as: harness.owner(), csrf: "forged-token" })));
  if (harness.stranger) {
    test(`security: ${label()} with another session's token is 403 and changes nothing`, () =>
      refused(403, () =>
        call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, as: harness.owner(), csrf: harness.stranger!().csrfToken }),
      ));
  }
  test(`security: ${label()} from another Origin is 403 and changes nothing`, () =>
    refused(403, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, as: harness.owner(), origin: "https://evil.example" })));
  if (harness.stranger && harness.ownedResource) {
    test(`security: ${label()} on someone else's resource is 404 and changes nothing`, () =>
      refused(404, () => call(harness.t(), r().path, { method: r().method, body: r().body ?? {}, as: harness.stranger!() })));
  }
}
