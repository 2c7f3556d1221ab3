/**
 * The webhook endpoint routes (issue 30): the caller's own endpoints only (someone else's is 404), a secret shown
 * once, a repository's endpoint for pool managers only, a URL that does not name a public address refused when
 * saved, the test event queued for the worker (never sent by the request), the delivery log, and the shared
 * security cases on every write. Answers are checked against the API document (testing/context.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { securityCases } from "../../../testing/security.ts";
import { outboundMessages, repositories, webhookEndpoints } from "../../../db/schema/index.ts";
import { checkEndpointUrl } from "../../services/notify/endpoints.ts";
import { testEnv } from "../../../testing/context.ts";

let t: TestContext;
let alice: TestSession;
let bob: TestSession;
let receiver: ReturnType<typeof Bun.serve>;
/** Deliveries received for alice's endpoint (the rate-limit test's endpoint posts to another path of the same receiver). */
let hits = 0;
let aliceEndpoint: string;

beforeAll(async () => {
  t = await createTestContext({ env: { OUTBOUND_ALLOW_LOOPBACK: "true" } });
  alice = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      if (new URL(request.url).pathname === "/alice") hits++;
      return new Response("ok");
    },
  });
  const res = await call(t, "/api/alerts/webhooks", { as: alice, body: { url: hook("/alice"), description: "CI bot" } });
  aliceEndpoint = ((await res.json()) as { endpoint: { id: string } }).endpoint.id;
});
afterAll(() => {
  receiver?.stop(true);
  t?.close();
});

const hook = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
type EndpointBody = { endpoint: { id: string; url: string; kind: string; events: string[]; enabled: boolean; repositoryId: number | null }; secret?: string };

describe("POST /api/alerts/webhooks", () => {
  test("adds an account endpoint: all events by default, the secret shown once and never again", async () => {
    const res = await call(t, "/api/alerts/webhooks", { as: bob, body: { url: hook("/bob") } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as EndpointBody;
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(body.endpoint).toMatchObject({ url: hook("/bob"), kind: "standard", enabled: true, repositoryId: null });
    expect(body.endpoint.events).toHaveLength(6);
    const again = (await (await call(t, `/api/alerts/webhooks/${body.endpoint.id}`, { as: bob })).json()) as Record<string, unknown>;
    expect(JSON.stringify(again)).not.toContain(body.secret!);
    // Stored sealed, not in plaintext.
    const [row] = await t.ctx.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, body.endpoint.id));
    expect(row!.secretSealed).not.toContain(body.secret!.slice(6));
  });

  test("Slack and Discord incoming-webhook URLs are recognised as such", async () => {
    // Their hosts resolve to public addresses; checked here with the resolver the save uses.
    const resolve = async () => ["93.184.216.34"];
    const env = { env: t.env };
    expect((await checkEndpointUrl(env, "https://hooks.slack.com/services/T0/B0/x", resolve)).hostname).toBe("hooks.slack.com");
    const { kindOf } = await import("../../services/notify/endpoints.ts");
    expect(kindOf(new URL("https://hooks.slack.com/services/T0/B0/x"))).toBe("slack");
    expect(kindOf(new URL("https://discord.com/api/webhooks/1/abc"))).toBe("discord");
    expect(kindOf(new URL("https://example.com/api/webhooks/1"))).toBe("standard");
  });

  const refusedUrls = [
    "http://127.0.0.2/hook",
    "http://10.0.0.5/hook",
    "http://192.168.1.10/hook",
    "http://172.16.3.4/hook",
    "http://100.64.1.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/hook",
    "http://[fd00:ec2::254]/hook",
    "http://[fe80::1]/hook",
    "http://0.0.0.0/hook",
    "http://localhost.localdomain.invalid/hook",
    "ftp://example.com/hook",
    "http://user:pass@127.0.0.1/hook",
  ];
  for (const url of refusedUrls) {
    test(`refuses ${url} and stores nothing`, async () => {
      const before = (await t.ctx.database.db.select().from(webhookEndpoints)).length;
      const res = await call(t, "/api/alerts/webhooks", { as: bob, body: { url } });
      expect(res.status).toBe(400);
      expect((await t.ctx.database.db.select().from(webhookEndpoints)).length).toBe(before);
    });
  }

  test("without the development setting, 127.0.0.1 is refused too, and http is", async () => {
    const production = { ...t.env, OUTBOUND_ALLOW_LOOPBACK: false };
    await expect(checkEndpointUrl({ env: production }, hook("/x"))).rejects.toThrow("url: must be an https URL.");
    await expect(checkEndpointUrl({ env: production }, `https://127.0.0.1:${receiver.port}/x`)).rejects.toThrow("public address");
    await expect(checkEndpointUrl({ env: production }, "https://rebind.example/x", async () => ["127.0.0.1"])).rejects.toThrow("public address");
  });

  test("the setting is refused in production", async () => {
    await expect(testEnv({ NODE_ENV: "production", OUTBOUND_ALLOW_LOOPBACK: "true" })).rejects.toThrow("OUTBOUND_ALLOW_LOOPBACK: only for development and tests");
    expect((await testEnv({ NODE_ENV: "production" })).OUTBOUND_ALLOW_LOOPBACK).toBe(false);
  });

  test("a repository's endpoint: a contributor is refused (403), an unknown repository is 404", async () => {
    const refused = await call(t, "/api/alerts/webhooks", { as: bob, body: { url: hook("/repo"), repositoryId: 12345 } });
    expect(refused.status).toBe(403);
    const unknown = await call(t, "/api/alerts/webhooks", { as: alice, body: { url: hook("/repo"), repositoryId: 999_999_999 } });
    expect(unknown.status).toBe(404);
  });

  test("an unknown event type is refused", async () => {
    const res = await call(t, "/api/alerts/webhooks", { as: bob, body: { url: hook("/x"), events: ["bounty.stolen"] } });
    expect(res.status).toBe(400);
  });

  securityCases({ method: "POST", path: "/api/alerts/webhooks", body: { url: "http://127.0.0.1:9/hook" } }, { t: () => t, owner: () => alice, stranger: () => bob });
});

describe("one endpoint", () => {
  test("lists only the caller's endpoints", async () => {
    const mine = (await (await call(t, "/api/alerts/webhooks", { as: alice })).json()) as { endpoints: { id: string }[] };
    expect(mine.endpoints.map((e) => e.id)).toContain(aliceEndpoint);
    const theirs = (await (await call(t, "/api/alerts/webhooks", { as: bob })).json()) as { endpoints: { id: string }[] };
    expect(theirs.endpoints.map((e) => e.id)).not.toContain(aliceEndpoint);
    expect((await call(t, "/api/alerts/webhooks")).status).toBe(401);
  });

  test("someone else's endpoint is 404 for every call", async () => {
    for (const [method, path, body] of [
      ["GET", "", undefined],
      ["PATCH", "", { enabled: false }],
      ["DELETE", "", undefined],
      ["POST", "/test", undefined],
      ["POST", "/rotate-secret", undefined],
    ] as const) {
      const res = await call(t, `/api/alerts/webhooks/${aliceEndpoint}${path}`, { as: bob, method, body });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
    }
    const [row] = await t.ctx.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, aliceEndpoint));
    expect(row).toMatchObject({ enabled: true, deletedAt: null });
  });

  test("PATCH changes the events and the URL (checked again)", async () => {
    const res = await call(t, `/api/alerts/webhooks/${aliceEndpoint}`, { as: alice, method: "PATCH", body: { events: ["bounty.paid"], description: "payouts" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as EndpointBody).endpoint.events).toEqual(["bounty.paid"]);
    const refused = await call(t, `/api/alerts/webhooks/${aliceEndpoint}`, { as: alice, method: "PATCH", body: { url: "http://10.1.1.1/" } });
    expect(refused.status).toBe(400);
  });

  test("the test event is queued, sent by the worker, and shows in the delivery log", async () => {
    const before = hits;
    const res = await call(t, `/api/alerts/webhooks/${aliceEndpoint}/test`, { as: alice, method: "POST" });
    expect(res.status).toBe(202);
    const { messageId } = (await res.json()) as { messageId: string };
    expect(hits).toBe(before);
    const [queued] = await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.messageId, messageId));
    expect(queued).toMatchObject({ status: "pending", type: "webhook.test" });
    await t.ctx.outbound.runOnce();
    expect(hits).toBe(before + 1);
    const detail = (await (await call(t, `/api/alerts/webhooks/${aliceEndpoint}`, { as: alice })).json()) as { attempts: { messageId: string; statusCode: number; messageStatus: string }[] };
    expect(detail.attempts[0]).toMatchObject({ messageId, statusCode: 200, messageStatus: "delivered" });
  });

  test("rotating the secret answers a new one", async () => {
    const first = (await (await call(t, `/api/alerts/webhooks/${aliceEndpoint}/rotate-secret`, { as: alice, method: "POST" })).json()) as { secret: string };
    const second = (await (await call(t, `/api/alerts/webhooks/${aliceEndpoint}/rotate-secret`, { as: alice, method: "POST" })).json()) as { secret: string };
    expect(first.secret).toStartWith("whsec_");
    expect(second.secret).not.toBe(first.secret);
  });

  securityCases(() => ({ method: "PATCH", path: `/api/alerts/webhooks/${aliceEndpoint}`, body: { enabled: false } }), { t: () => t, owner: () => alice, stranger: () => bob, ownedResource: true });
  securityCases(() => ({ method: "POST", path: `/api/alerts/webhooks/${aliceEndpoint}/test` }), { t: () => t, owner: () => alice, stranger: () => bob, ownedResource: true });
  securityCases(() => ({ method: "POST", path: `/api/alerts/webhooks/${aliceEndpoint}/rotate-secret` }), { t: () => t, owner: () => alice, stranger: () => bob, ownedResource: true });
  securityCases(() => ({ method: "DELETE", path: `/api/alerts/webhooks/${aliceEndpoint}` }), { t: () => t, owner: () => alice, stranger: () => bob, ownedResource: true });

  test(`test events, new endpoints and new secrets are limited per user (${30} a minute, then 429 with Retry-After)`, async () => {
    const spammer = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    const created = await call(t, "/api/alerts/webhooks", { as: spammer, body: { url: hook("/spam") } });
    const id = ((await created.json()) as EndpointBody).endpoint.id;
    // A fixed window: a minute's boundary during the loop gives at most one more window's worth.
    let accepted = 0;
    let limited: Response | undefined;
    for (let i = 0; i < 61 && !limited; i++) {
      const res = await call(t, `/api/alerts/webhooks/${id}/test`, { as: spammer, method: "POST" });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(202), accepted++;
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThanOrEqual(29);
    expect((await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.endpointId, id))).length).toBe(accepted);
  });

  test("DELETE removes it (then 404)", async () => {
    // An endpoint of its own: the other tests of this file use alice's, in any order (bun test --randomize).
    const created = await call(t, "/api/alerts/webhooks", { as: alice, body: { url: hook("/alice-gone"), description: "to delete" } });
    const id = ((await created.json()) as EndpointBody).endpoint.id;
    expect((await call(t, `/api/alerts/webhooks/${id}`, { as: alice, method: "DELETE" })).status).toBe(200);
    expect((await call(t, `/api/alerts/webhooks/${id}`, { as: alice })).status).toBe(404);
  });
});

// Registered so the repository check has something to find (a contributor is refused before GitHub is asked).
beforeAll(async () => {
  await t.ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: 12345, fullName: "acme/gadgets", fullNameKey: "acme/gadgets", owner: "acme", name: "gadgets", htmlUrl: "https://github.com/acme/gadgets" })
    .onConflictDoNothing();
});
