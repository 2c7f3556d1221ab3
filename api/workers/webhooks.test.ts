import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { DEFAULT_WEBHOOK_RETRY, nextWebhookAttempt, WebhookWorker, webhookLanes, type WebhookDelivery } from "./webhooks.ts";

/**
 * A failing delivery is retried for its whole window (72 hours by default,
 * issue 24), backing off exponentially up to the cap, then kept as failed.
 * Before: given up after 8 attempts, about 4¼ minutes. A moved clock stands
 * for the hours.
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t?.close());

const HOUR = 3_600_000;

test("the default policy retries for at least 72 hours, at most 10 minutes apart", () => {
  expect(DEFAULT_WEBHOOK_RETRY.windowMs).toBeGreaterThanOrEqual(72 * HOUR);
  const gaps = [1, 2, 3, 11, 50, 500].map((attempts) => nextWebhookAttempt(DEFAULT_WEBHOOK_RETRY, attempts, 0));
  expect(gaps.slice(0, 3)).toEqual([1_000, 2_000, 4_000]);
  expect(gaps.slice(3)).toEqual([DEFAULT_WEBHOOK_RETRY.maxMs, DEFAULT_WEBHOOK_RETRY.maxMs, DEFAULT_WEBHOOK_RETRY.maxMs]);
});

test("a delivery that keeps failing is retried until its window is over, then failed; one that succeeds meanwhile is done", async () => {
  const db = t.ctx.database.db;
  const start = Date.parse("2026-11-24T12:00:00Z");
  let now = start;
  let githubDown = true;
  const worker = new WebhookWorker({
    db,
    log: t.log,
    retry: DEFAULT_WEBHOOK_RETRY,
    now: () => now,
    handlers: {
      github: async () => {
        if (githubDown) throw new Error("GitHub could not be reached (ConnectionRefused)");
        return "done";
      },
    },
  });
  const [a, b] = await db
    .insert(webhookDeliveries)
    .values(
      ["outage-a", "outage-b"].map((deliveryId) => ({ source: "github" as const, deliveryId, event: "pull_request", payload: "{}", receivedAt: new Date(start), nextAttemptAt: new Date(start) })),
    )
    .returning();
  const row = async (id: number) => (await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)))[0]!;

  // Every due attempt, for 71 hours of GitHub being down: still pending.
  while (now < start + 71 * HOUR) {
    await worker.runOnce();
    const next = Math.min((await row(a!.id)).nextAttemptAt.getTime(), (await row(b!.id)).nextAttemptAt.getTime());
    now = Math.max(now + 1, next);
  }
  for (const id of [a!.id, b!.id]) {
    const r = await row(id);
    expect(r.status).toBe("pending");
    expect(r.attempts).toBeGreaterThan(400); // every 10 minutes once backed off
    expect(r.nextAttemptAt.getTime() - now).toBeLessThanOrEqual(DEFAULT_WEBHOOK_RETRY.maxMs);
  }

  // GitHub answers for one delivery's next attempt only; the other goes on failing past the window.
  githubDown = false;
  now = (await row(a!.id)).nextAttemptAt.getTime();
  await worker.process(a!.id);
  expect((await row(a!.id)).status).toBe("done");
  githubDown = true;
  now = start + 72 * HOUR;
  await worker.process(b!.id);
  expect((await row(b!.id)).status).toBe("failed");
  expect(t.log.lines.some((l) => l.includes("webhook processing given up after its retry window"))).toBe(true);
}, 60_000);

test("a delivery's lanes: its issue or pull request, and the issues a pull request's text mentions; none: it runs alone", () => {
  const lanes = (event: string, payload: unknown, source: WebhookDelivery["source"] = "github") => webhookLanes({ source, event, payload: JSON.stringify(payload) });
  expect(lanes("issues", { action: "closed", repository: { id: 7 }, issue: { number: 12 } })).toEqual(["7#12"]);
  expect(lanes("issue_comment", { repository: { id: 7 }, issue: { number: 40 } })).toEqual(["7#40"]);
  expect(lanes("pull_request", { repository: { id: 7 }, pull_request: { number: 40, title: "Fix #12", body: "Fixes #12, closes #13" } })).toEqual(["7#40", "7#12", "7#13"]);
  expect(lanes("installation", { installation: { id: 1 } })).toBeUndefined();
  expect(lanes("repository", { repository: { id: 7 } })).toBeUndefined();
  expect(lanes("issues", { repository: { id: 7 } })).toBeUndefined();
  expect(webhookLanes({ source: "github", event: "issues", payload: "{not json" })).toBeUndefined();
  expect(lanes("issues", { repository: { id: 7 }, issue: { number: 12 } }, "onramp")).toBeUndefined();
  const many = Array.from({ length: 60 }, (_, i) => `#${i + 1}`).join(" ");
  expect(lanes("pull_request", { repository: { id: 7 }, pull_request: { number: 99, body: many } })).toBeUndefined();
});

/** A promise the test opens by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("condition not met in 30 s");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

test("one pass: deliveries of different issues side by side, of one issue in their order, one without an issue alone; at most `concurrency` at once", async () => {
  const db = t.ctx.database.db;
  const issue = (deliveryId: string, number: number) => ({ deliveryId, event: "issues", payload: JSON.stringify({ action: "closed", repository: { id: 501 }, issue: { number } }) });
  const rows = await db
    .insert(webhookDeliveries)
    .values(
      [issue("lane-a1", 1), issue("lane-b", 2), issue("lane-a2", 1), issue("lane-c", 3), { deliveryId: "lane-install", event: "installation", payload: "{}" }, issue("lane-d", 4)].map((r) => ({
        source: "github" as const,
        ...r,
      })),
    )
    .returning();
  const started: string[] = [];
  const finished: string[] = [];
  const gates = new Map(rows.map((r) => [r.deliveryId, gate()]));
  let inFlight = 0;
  let mostInFlight = 0;
  const worker = new WebhookWorker({
    db,
    log: t.log,
    concurrency: 2,
    handlers: {
      github: async (delivery) => {
        started.push(delivery.deliveryId);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        await gates.get(delivery.deliveryId)!.opened;
        inFlight--;
        finished.push(delivery.deliveryId);
        return "done";
      },
    },
  });
  const pass = worker.runOnce();
  // Issue 1's first delivery and issue 2's run side by side; issue 3 waits for a slot, issue 1's second for its first
  // (and then for a slot: issue 3 was waiting for one before it).
  await until(() => started.length === 2);
  expect(started).toEqual(["lane-a1", "lane-b"]);
  gates.get("lane-a1")!.open();
  await until(() => started.length === 3);
  expect(started[2]).toBe("lane-c");
  gates.get("lane-b")!.open();
  await until(() => started.length === 4);
  expect(started[3]).toBe("lane-a2");
  // The installation waits for every earlier delivery; the one after it waits for the installation.
  gates.get("lane-a2")!.open();
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(started).not.toContain("lane-install");
  gates.get("lane-c")!.open();
  await until(() => started.length === 5);
  expect(started[4]).toBe("lane-install");
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(started).not.toContain("lane-d");
  gates.get("lane-install")!.open();
  await until(() => started.length === 6);
  gates.get("lane-d")!.open();
  expect(await pass).toBe(6);
  expect(mostInFlight).toBe(2);
  expect(finished.indexOf("lane-a1")).toBeLessThan(started.indexOf("lane-a2"));
  const statuses = await db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(inArray(webhookDeliveries.id, rows.map((r) => r.id)));
  expect(statuses.every((r) => r.status === "done")).toBe(true);
});

test("a delivery that arrives while a pass runs is taken by that pass at once, not after the pass's slowest delivery", async () => {
  const db = t.ctx.database.db;
  const issue = (deliveryId: string, number: number) => ({ source: "github" as const, deliveryId, event: "issues", payload: JSON.stringify({ action: "closed", repository: { id: 502 }, issue: { number } }) });
  await db.insert(webhookDeliveries).values([issue("mid-slow", 1), issue("mid-quick", 2)]);
  const slow = gate();
  const started: string[] = [];
  const worker = new WebhookWorker({
    db,
    log: t.log,
    handlers: {
      github: async (delivery) => {
        started.push(delivery.deliveryId);
        if (delivery.deliveryId === "mid-slow") await slow.opened;
        return "done";
      },
    },
  });
  const pass = worker.runOnce();
  try {
    await until(() => started.includes("mid-quick"));
    // Arrives now (the route stores it and nudges the worker); the slow delivery is still running.
    await db.insert(webhookDeliveries).values(issue("mid-late", 3));
    worker.nudge();
    await until(() => started.includes("mid-late"));
    expect(started.slice(0, 2).sort()).toEqual(["mid-quick", "mid-slow"]);
  } finally {
    slow.open();
  }
  expect(await pass).toBe(3);
});
