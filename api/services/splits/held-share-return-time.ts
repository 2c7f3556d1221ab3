import { and, desc, eq, gte, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { chainEvents } from "../../../db/schema/index.ts";

/** The contract's TIP_REFUND_DELAY: an unclaimed held share may go back to its pool this long after it was held. */
export const HELD_SHARE_RETURN_DELAY_MS = 30 * 24 * 3600 * 1000;

type ShareOf = { githubRepoId: number; issueNumber: number; githubUserId: number };

/** The latest BountyShareHeld the indexer recorded for this person's share of the issue (from `fromBlock` on, if given). */
export async function heldShareEvent(deps: Pick<AppContext, "database">, share: ShareOf, fromBlock?: number) {
  const [held] = await deps.database.db
    .select({ args: chainEvents.args, blockTime: chainEvents.blockTime, createdAt: chainEvents.createdAt })
    .from(chainEvents)
    .where(
      and(
        isNull(chainEvents.oldChain),
        eq(chainEvents.name, "BountyShareHeld"),
        eq(chainEvents.repoId, share.githubRepoId),
        eq(chainEvents.issueNumber, share.issueNumber),
        fromBlock === undefined ? undefined : gte(chainEvents.blockNumber, fromBlock),
        sql`json_extract(${chainEvents.args}, '$.githubUserId') = ${String(share.githubUserId)}`,
      ),
    )
    .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
    .limit(1);
  return held;
}

/**
 * When an escrowed share may go back to its pool: TIP_REFUND_DELAY after its BountyShareHeld (as the indexer
 * recorded it), or null while that event is not mirrored yet.
 */
export async function heldShareReturnableAt(deps: Pick<AppContext, "database">, share: ShareOf): Promise<Date | null> {
  const held = await heldShareEvent(deps, share);
  if (!held) return null;
  return new Date((held.blockTime ?? held.createdAt).getTime() + HELD_SHARE_RETURN_DELAY_MS);
}
