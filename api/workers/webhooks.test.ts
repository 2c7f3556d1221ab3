import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { webhookDeliveries } from "../../db/schema/index.ts";
import { DEFAULT_WEBHOOK_RETRY, nextWebhookAttempt, WebhookWorker } from "./webhooks.ts";

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
