import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { chainCursors, chainEvents } from "../../../db/schema/index.ts";

export type ChainEvent = typeof chainEvents.$inferSelect;

/**
 * The contract's money events as the indexer records them, read once each by a pass that keeps its own place
 * (issue 40: prices recorded at the moment of each event, rewards that arrived). A pass reads the events after its
 * cursor (the chain_events row id, kept in chain_cursors under its own name), handles them, then moves its cursor
 * on. Events recorded more than `freshMs` ago are passed over: the moment is gone (a first start on an old
 * database, a long outage), and a price or a mail then would be a made-up figure or a stale notice.
 * A reorganisation re-records events under new ids: a pass's own unique keys make the second sight a no-op.
 */
export interface EventFeed {
  events: ChainEvent[];
  /** Moves the cursor past `lastId` (the last event handled). */
  advance(lastId: number): Promise<void>;
}

export async function readEventFeed(
  db: Database,
  input: { cursor: string; chainId: number; names: string[]; freshMs: number; limit?: number; now?: number },
): Promise<EventFeed> {
  const now = input.now ?? Date.now();
  const [cursor] = await db.select({ lastBlock: chainCursors.lastBlock }).from(chainCursors).where(eq(chainCursors.name, input.cursor));
  const after = cursor?.lastBlock ?? 0;
  const events = await db
    .select()
    .from(chainEvents)
    .where(and(gt(chainEvents.id, after), eq(chainEvents.chainId, input.chainId), isNull(chainEvents.oldChain), inArray(chainEvents.name, input.names), gt(chainEvents.createdAt, new Date(now - input.freshMs))))
    .orderBy(asc(chainEvents.id))
    .limit(input.limit ?? 200);
  return {
    events,
    async advance(lastId: number) {
      if (lastId <= after) return;
      await db
        .insert(chainCursors)
        .values({ name: input.cursor, chainId: input.chainId, lastBlock: lastId })
        .onConflictDoUpdate({ target: chainCursors.name, set: { lastBlock: lastId, updatedAt: new Date() } });
    },
  };
}

/** Whether a pass has events to read (a read only: an idle pass writes nothing, not even its lease). */
export async function hasUnreadEvents(db: Database, input: { cursor: string; chainId: number; names: string[]; freshMs: number; now?: number }): Promise<boolean> {
  return (await readEventFeed(db, { ...input, limit: 1 })).events.length > 0;
}
