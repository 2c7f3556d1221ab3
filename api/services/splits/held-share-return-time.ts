import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { chainEvents } from "../../../db/schema/index.ts";

/** The contract's TIP_REFUND_DELAY: an unclaimed held share may go back to its pool this long after it was held. */
export const HELD_SHARE_RETURN_DELAY_MS = 30 * 24 * 3600 * 1000;
/**
 * When an escrowed share may go back to its pool: TIP_REFUND_DELAY after its BountyShareHeld (as the indexer
 * recorded it), or null while that event is not mirrored yet.
 */
export async function heldShareReturnableAt(deps: Pick<AppContext, "database">, share: { githubRepoId: number; issueNumber: number; githubUserId: number }): Promise<Date | null> {
  const [held] = await deps.database.db
    .select({ blockTime: chainEvents.blockTime, createdAt: chainEvents.createdAt })
    .from(chainEvents)
    .where(
      and(
        isNull(chainEvents.oldChain),
        eq(chainEvents.name, "BountyShareHeld"),
        eq(chainEvents.repoId, share.githubRepoId),
        eq(chainEvents.issueNumber, share.issueNumber),
        sql`json_extract(${chainEvents.args}, '$.githubUserId') = ${String(share.githubUserId)}`,
      ),
    )
    .orderBy(sql`${chainEvents.blockNumber} desc`)
    .limit(1);
  if (!held) return null;
  return new Date((held.blockTime ?? held.createdAt).getTime() + HELD_SHARE_RETURN_DELAY_MS);
}
