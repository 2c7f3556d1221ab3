/**
 * The development server's writes (/dev/digest, /dev/refund-boosts; issue 36): any page a developer visited could
 * POST to them anonymously and cross-site (a form, a `no-cors` fetch), running the digest or moving the local
 * chain's clock by 400 days. Now they take a session, the anti-forgery token and JSON, like every write; refused,
 * they change nothing (the database, and the hooks never called). The digest is the real worker on the test
 * database (a run writes its `digest_runs` row), the clock hook a recorder (moving a chain needs one).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../testing/auth.ts";
import { securityCases } from "../../testing/security.ts";
import { DigestWorker } from "../../api/workers/digest.ts";
import { digestRuns } from "../../db/schema/index.ts";
import { devRoutes } from "./dev-routes.ts";

import { expireLocks } from "../../api/services/attempts/attempts.ts";

let t: TestContext;
let carol: TestSession;
let dave: TestSession;
const clockSteps: number[] = [];

beforeAll(async () => {
  let context: TestContext | undefined;
  const routes = devRoutes({
    digestAsOfTomorrow: () =>
      new DigestWorker({ db: context!.ctx.database.db, log: context!.log, mailer: context!.ctx.mailer, appSecret: context!.ctx.appSecret, publicUrl: context!.env.PUBLIC_URL, hourUtc: 0, now: () => Date.now() + 86_400_000 }).runOnce(),
    refundBoostsAfter: async (seconds) => {
      clockSteps.push(seconds);
      return 0;
    },
    // The lock pass as of later (issue 39): the real pass against this context's database.
    expireLocksAfter: async (seconds) => (await expireLocks(context!.ctx, Date.now() + seconds * 1000)).expired,
  });
  t = context = await createTestContext({}, { extraRoutes: routes });
  carol = await signInAs(t, await createTestUser(t, { role: "contributor", username: "carol", email: "carol@example.com" }));
  dave = await signInAs(t, await createTestUser(t, { role: "contributor", username: "dave" }));
  // A subscriber: a digest run writes a row for her (nothing matches, so no mail is sent).
  expect((await call(t, "/api/alerts/searches", { as: carol, body: { query: "q=nothing-matches-this" } })).status).toBe(201);
});
afterAll(() => t?.close());

/** A POST as another site's page makes it: the browser adds the site's cookie only if it has one and SameSite allows. */
const crossSite = async (path: string, init: { body: string; contentType: string; cookie?: string }) =>
  t.app.request(path, {
    method: "POST",
    body: init.body,
    headers: { "Content-Type": init.contentType, Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site", ...(init.cookie ? { Cookie: init.cookie } : {}) },
  });

async function unchanged(send: () => Response | Promise<Response>, status: number) {
  const before = await databaseDigest(t);
  const steps = clockSteps.length;
  const res = await send();
  expect(res.status).toBe(status);
  expect(await databaseDigest(t)).toBe(before);
  expect(clockSteps.length).toBe(steps);
}

describe("/dev/* writes", () => {
  for (const [path, json] of [["/dev/digest", "{}"], ["/dev/refund-boosts", JSON.stringify({ seconds: 400 * 86_400 })]] as const) {
    test(`${path}: an anonymous cross-site form or no-cors POST changes nothing (401)`, async () => {
      await unchanged(() => crossSite(path, { body: "seconds=34560000", contentType: "application/x-www-form-urlencoded" }), 401);
      await unchanged(() => crossSite(path, { body: json, contentType: "text/plain;charset=UTF-8" }), 401);
      await unchanged(() => crossSite(path, { body: json, contentType: "application/json" }), 401);
    });

    test(`${path}: a cross-site POST with the developer's cookie and no token changes nothing (403)`, async () => {
      await unchanged(() => crossSite(path, { body: "seconds=60", contentType: "application/x-www-form-urlencoded", cookie: carol.cookie }), 403);
      await unchanged(() => crossSite(path, { body: json, contentType: "text/plain", cookie: carol.cookie }), 403);
    });

    test(`${path}: same-origin with the token but not JSON changes nothing (415)`, async () => {
      await unchanged(
        () => t.app.request(path, { method: "POST", body: "seconds=60", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: new URL(t.env.PUBLIC_URL).origin, Cookie: carol.cookie, "X-CSRF-Token": carol.csrfToken, "X-Forwarded-For": carol.ip } }),
        415,
      );
    });
  }
  securityCases({ method: "POST", path: "/dev/digest", body: {} }, { t: () => t, owner: () => carol, stranger: () => dave });
  securityCases({ method: "POST", path: "/dev/attempt-locks", body: { seconds: 60 } }, { t: () => t, owner: () => carol, stranger: () => dave });
  securityCases({ method: "POST", path: "/dev/refund-boosts", body: { seconds: 60 } }, { t: () => t, owner: () => carol, stranger: () => dave });

  test("same-origin JSON with a session and its token runs them", async () => {
    const digest = await call(t, "/dev/digest", { as: carol, body: {} });
    expect(digest.status).toBe(200);
    expect(((await digest.json()) as { handled: number }).handled).toBe(1);
    expect((await t.ctx.database.db.select().from(digestRuns)).map((r) => r.userId)).toEqual([carol.user.id]);
    const refund = await call(t, "/dev/refund-boosts", { as: carol, body: { seconds: 3600 } });
    expect(refund.status).toBe(200);
    expect(await refund.json()).toEqual({ sent: 0 });
    expect(clockSteps.at(-1)).toBe(3600);
    // The hook takes a whole number of seconds forward, at most 400 days.
    for (const seconds of [-60, 1.5, 400 * 86_400 + 1, "60"]) expect((await call(t, "/dev/refund-boosts", { as: carol, body: { seconds } })).status).toBe(400);
  });
});
