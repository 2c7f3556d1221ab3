/**
 * Outbound webhooks (issue 30): a recorded bounty event reaches a local receiver signed as the Standard Webhooks
 * specification says (verified with `standardwebhooks`, its reference implementation); a failing receiver is
 * retried with capped exponential backoff on a fake clock and given up after the 24 h window; Slack and Discord
 * get their own formats; a name that resolves to a private address at send time (DNS rebinding) is refused
 * without a connection; the delivery log keeps every attempt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { eventually } from "../../testing/stack.ts";
import { createTestUser } from "../../testing/auth.ts";
import { outboundAttempts, outboundMessages, repositories, workerLeases, type User } from "../../db/schema/index.ts";
import { createEndpoint, deliveryLog, queueTestEvent } from "../services/notify/endpoints.ts";
import { recordBountyEvent } from "../services/notify/events.ts";
import { OutboundWorker, type OutboundDeps } from "./outbound.ts";

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

let t: TestContext;
let owner: User;
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
let answer = 200;
const REPO = { id: 770_001, fullName: "acme/widgets" };

beforeAll(async () => {
  t = await createTestContext({ env: { OUTBOUND_ALLOW_LOOPBACK: "true" } });
  owner = await createTestUser(t, { role: "poolmanager", username: "acme-admin" });
  await t.ctx.database.db.insert(repositories).values({
    githubRepoId: REPO.id,
    fullName: REPO.fullName,
    fullNameKey: REPO.fullName,
    owner: "acme",
    name: "widgets",
    htmlUrl: `https://github.com/${REPO.fullName}`,
    registeredByUserId: owner.id,
  });
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
      return new Response("ok", { status: answer });
    },
  });
});
afterAll(() => {
  receiver?.stop(true);
  t?.close();
});

const hookUrl = (path = "/hook") => `http://127.0.0.1:${receiver.port}${path}`;
let keys = 0;
const event = (type: "bounty.paid" | "bounty.created" = "bounty.paid") =>
  recordBountyEvent(t.ctx.database.db, {
    type,
    key: `test:${keys++}`,
    repoId: REPO.id,
    issueNumber: 7,
    data: { currency: "XDC", amount: "2500000000000000000", transactionHash: "0xabc", contributor: null },
  });
const worker = (overrides: Partial<OutboundDeps> = {}) =>
  new OutboundWorker({
    db: t.ctx.database.db,
    keyring: t.ctx.keyring,
    log: t.log,
    publicUrl: "https://issuepool.example",
    githubUrl: "https://github.com",
    allowLoopback: true,
    timeoutMs: 5_000,
    ...overrides,
  });

describe("a bounty event", () => {
  test("reaches the endpoint signed per Standard Webhooks (verified with the standardwebhooks package)", async () => {
    const { endpoint, secret } = await createEndpoint(t.ctx, owner, { url: hookUrl("/signed"), repoId: REPO.id });
    expect(secret).toStartWith("whsec_");
    answer = 200;
    expect(await event()).toBe(true);
    await worker().runOnce();
    // This test's endpoint only: the file's other endpoints (same repository, any order) get the event too.
    const mine = received.filter((r) => r.path === "/signed" && r.headers["webhook-id"] && r.body.includes('"bounty.paid"'));
    expect(mine).toHaveLength(1);
    const { headers, body } = mine[0]!;
    const verified = new Webhook(secret).verify(body, headers) as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe("bounty.paid");
    expect(verified.data).toMatchObject({
      repository: { id: REPO.id, fullName: REPO.fullName },
      issue: { number: 7 },
      currency: "XDC",
      amount: "2500000000000000000",
      amountFormatted: "2.5 XDC",
      transactionHash: "0xabc",
    });
    // Tampered bytes or another secret do not verify.
    expect(() => new Webhook(secret).verify(body.replace("2.5", "9.5"), headers)).toThrow();
    const [message] = await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.endpointId, endpoint.id));
    expect(message).toMatchObject({ status: "delivered", attempts: 1, messageId: headers["webhook-id"] });
    // A second pass sends nothing more; recording the same event again records nothing.
    await worker().runOnce();
    expect(received.filter((r) => r.headers["webhook-id"] === headers["webhook-id"])).toHaveLength(1);
    expect(await recordBountyEvent(t.ctx.database.db, { type: "bounty.paid", key: `test:${keys - 1}`, repoId: REPO.id, issueNumber: 7, data: {} })).toBe(false);
    const log = await deliveryLog(t.ctx, owner, endpoint.id);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ statusCode: 200, error: null, messageStatus: "delivered" });
    expect(log[0]!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  test("an endpoint that did not subscribe to the type gets nothing", async () => {
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/created-only"), repoId: REPO.id, events: ["bounty.created"] });
    await event("bounty.paid");
    await worker().runOnce();
    expect(await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.endpointId, endpoint.id))).toHaveLength(0);
  });

  test("Slack and Discord targets get their message formats", async () => {
    await createEndpoint(t.ctx, owner, { url: hookUrl("/slack"), repoId: REPO.id, kind: "slack" });
    await createEndpoint(t.ctx, owner, { url: hookUrl("/discord"), repoId: REPO.id, kind: "discord" });
    const before = received.length;
    await event("bounty.created");
    await worker().runOnce();
    const bodies = received.slice(before).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    const slack = bodies.find((b) => typeof b.text === "string");
    const discord = bodies.find((b) => typeof b.content === "string");
    expect(slack?.text).toBe("*New bounty (2.5 XDC)*: <https://issuepool.example/acme/widgets|acme/widgets#7>");
    expect(discord).toMatchObject({ content: "New bounty \\(2.5 XDC\\)", allowed_mentions: { parse: [] } });
    expect((discord!.embeds as { url: string }[])[0]!.url).toBe("https://issuepool.example/acme/widgets");
  });
});

describe("retries", () => {
  test("a failing receiver is retried with capped exponential backoff, then given up after the 24 h window", async () => {
    let clock = Date.parse("2026-11-20T00:00:00Z");
    const retry = { baseMs: 1_000, maxMs: 3_600_000, windowMs: 24 * 3_600_000 };
    const w = worker({ now: () => clock, retry });
    // Only this test's endpoint: earlier endpoints are done with their messages.
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/failing"), repoId: REPO.id, events: ["bounty.refunded"] });
    await recordBountyEvent(t.ctx.database.db, { type: "bounty.refunded", key: "retry:1", repoId: REPO.id, issueNumber: 8, data: {} });
    answer = 503;
    const attemptsAt = async () => (await t.ctx.database.db.select().from(outboundAttempts).where(eq(outboundAttempts.endpointId, endpoint.id))).length;
    const message = async () => (await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.endpointId, endpoint.id)))[0]!;
    // Messages are made on the fake clock too.
    await w.runOnce();
    expect(await attemptsAt()).toBe(1);
    expect((await message()).nextAttemptAt.getTime() - clock).toBe(1_000);
    // Not due yet: nothing is sent.
    clock += 999;
    await w.runOnce();
    expect(await attemptsAt()).toBe(1);
    const gaps: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = (await message()).nextAttemptAt.getTime();
      clock = next;
      await w.runOnce();
      gaps.push((await message()).nextAttemptAt.getTime() - clock);
    }
    expect(gaps).toEqual([2_000, 4_000, 8_000, 16_000, 32_000]);
    expect(await attemptsAt()).toBe(6);
    // The gap doubles up to its cap of an hour, then stays there.
    for (let i = 0; i < 10; i++) {
      clock = (await message()).nextAttemptAt.getTime();
      await w.runOnce();
      gaps.push((await message()).nextAttemptAt.getTime() - clock);
    }
    expect(gaps.slice(5)).toEqual([64_000, 128_000, 256_000, 512_000, 1_024_000, 2_048_000, 3_600_000, 3_600_000, 3_600_000, 3_600_000]);
    expect((await message()).status).toBe("pending");
    // Past 24 h after the message was made: the next failure gives it up.
    clock = (await message()).createdAt.getTime() + 24 * 3_600_000;
    await w.runOnce();
    expect((await message()).status).toBe("failed");
    const attempts = await attemptsAt();
    clock += 10 * 3_600_000;
    await w.runOnce();
    expect(await attemptsAt()).toBe(attempts);
    const log = await deliveryLog(t.ctx, owner, endpoint.id);
    expect(log[0]).toMatchObject({ statusCode: 503, error: "answered 503", messageStatus: "failed" });
    answer = 200;
  });

  test("a message whose receiver comes back is delivered on its next attempt", async () => {
    let clock = Date.now();
    const w = worker({ now: () => clock });
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/flaky"), repoId: null, events: ["bounty.claimed"] });
    await t.ctx.database.db.update(outboundMessages).set({ status: "failed" }).where(eq(outboundMessages.status, "pending"));
    answer = 500;
    await recordBountyEvent(t.ctx.database.db, { type: "bounty.claimed", key: "flaky:1", repoId: REPO.id, issueNumber: 9, data: {} });
    await w.runOnce();
    answer = 200;
    clock += 60_000;
    await w.runOnce();
    const [message] = await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.endpointId, endpoint.id));
    expect(message).toMatchObject({ status: "delivered", attempts: 2 });
    const ids = received.filter((r) => r.body.includes('"flaky') || r.headers["webhook-id"] === message!.messageId).map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(1);
  });
});

describe("retention", () => {
  test("the log, finished messages and fanned-out events older than 30 days are pruned; pending ones stay", async () => {
    const clock = { now: Date.now() + 31 * 86_400_000 };
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/old"), repoId: null });
    // A delivery of its own (so the log has an attempt whatever ran before), then one left pending.
    await queueTestEvent(t.ctx, owner, endpoint.id);
    await worker().sendDue();
    await queueTestEvent(t.ctx, owner, endpoint.id);
    const pendingBefore = (await t.ctx.database.db.select().from(outboundMessages).where(eq(outboundMessages.status, "pending"))).length;
    expect((await t.ctx.database.db.select().from(outboundAttempts)).length).toBeGreaterThan(0);
    await worker({ now: () => clock.now }).prune();
    expect(await t.ctx.database.db.select().from(outboundAttempts)).toHaveLength(0);
    expect((await t.ctx.database.db.select().from(outboundMessages)).every((m) => m.status === "pending")).toBe(true);
    expect((await t.ctx.database.db.select().from(outboundMessages)).length).toBe(pendingBefore);
  });
});

describe("payouts first", () => {
  test("sending waits while money is in flight, at most maxDeferMs per pass", async () => {
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/deferred"), repoId: null });
    const { messageId } = await queueTestEvent(t.ctx, owner, endpoint.id);
    let inFlight = true;
    let asked = 0;
    const w = worker({ paymentsInFlight: async () => (asked++, inFlight), maxDeferMs: 60_000 });
    const pass = w.runOnce();
    await eventually(async () => asked > 2, 10_000, "the worker asking again");
    expect(received.some((r) => r.headers["webhook-id"] === messageId)).toBe(false);
    inFlight = false;
    await pass;
    expect(received.some((r) => r.headers["webhook-id"] === messageId)).toBe(true);
    // A payout that never ends does not stop deliveries: after maxDeferMs the pass sends anyway.
    const second = await queueTestEvent(t.ctx, owner, endpoint.id);
    await worker({ paymentsInFlight: async () => true, maxDeferMs: 100 }).runOnce();
    expect(received.some((r) => r.headers["webhook-id"] === second.messageId)).toBe(true);
  });
});

describe("the address guard at send time", () => {
  for (const [label, address] of [
    ["loopback", "127.0.0.1"],
    ["private", "10.0.0.7"],
    ["metadata", "169.254.169.254"],
    ["IPv6 loopback", "::1"],
  ] as const) {
    test(`a name that resolves to ${label} (${address}) when sending is refused without a connection (DNS rebinding)`, async () => {
      const { endpoint } = await createEndpoint(t.ctx, owner, { url: `https://rebind.example/${label.replace(/ /g, "-")}`, repoId: null }, async () => ["93.184.216.34"]);
      const before = received.length;
      await queueTestEvent(t.ctx, owner, endpoint.id);
      // Sending is not allowed loopback (production), and DNS now answers a private address.
      await worker({ allowLoopback: false, resolve: async () => [address] }).sendDue();
      expect(received.length).toBe(before);
      const log = await deliveryLog(t.ctx, owner, endpoint.id);
      expect(log[0]).toMatchObject({ statusCode: null, error: `refused: ${address} is not a public address` });
    });
  }

  test("an address written in the URL is checked at send time too (it is never looked up): loopback refused when not allowed", async () => {
    // Saved while loopback was allowed (as in development), sent by a worker that does not allow it.
    const { endpoint } = await createEndpoint(t.ctx, owner, { url: hookUrl("/literal"), repoId: null });
    const { messageId } = await queueTestEvent(t.ctx, owner, endpoint.id);
    await worker({ allowLoopback: false }).sendDue();
    expect(received.some((r) => r.headers["webhook-id"] === messageId)).toBe(false);
    const log = await deliveryLog(t.ctx, owner, endpoint.id);
    expect(log[0]).toMatchObject({ statusCode: null, error: "refused: 127.0.0.1 is not a public address" });
    // The same message goes once loopback is allowed again: it was kept for a retry, not dropped.
    await t.ctx.database.db.update(outboundMessages).set({ nextAttemptAt: new Date(0) }).where(eq(outboundMessages.endpointId, endpoint.id));
    await worker().sendDue();
    expect(received.some((r) => r.headers["webhook-id"] === messageId)).toBe(true);
  });

  test("the test event goes through the worker, not the request", async () => {
    const { endpoint, secret } = await createEndpoint(t.ctx, owner, { url: hookUrl("/test-event"), repoId: null });
    const { messageId } = await queueTestEvent(t.ctx, owner, endpoint.id);
    expect(received.some((r) => r.headers["webhook-id"] === messageId)).toBe(false);
    await worker().sendDue();
    const got = received.find((r) => r.headers["webhook-id"] === messageId)!;
    expect((new Webhook(secret).verify(got.body, got.headers) as { type: string }).type).toBe("webhook.test");
  });
});

describe("an idle pass", () => {
  test("reads, and writes nothing: the fan-out's lease is not taken when no event waits (it was taken and dropped every pass)", async () => {
    const db = t.ctx.database.db;
    while ((await worker().fanOut()) > 0);
    // An expired lease of another process: taking the lease would overwrite it, and dropping it would delete it.
    await db.insert(workerLeases).values({ name: "outbound-fanout", owner: "another-process", until: new Date(Date.now() - 1_000) });
    try {
      await worker().runOnce();
      expect(await db.select({ owner: workerLeases.owner }).from(workerLeases).where(eq(workerLeases.name, "outbound-fanout"))).toEqual([{ owner: "another-process" }]);
      // With an event waiting, the pass takes the lease (and drops it once done).
      await event();
      await worker().runOnce();
      expect(await db.select().from(workerLeases).where(eq(workerLeases.name, "outbound-fanout"))).toEqual([]);
    } finally {
      await db.delete(workerLeases).where(eq(workerLeases.name, "outbound-fanout"));
    }
  });
});
