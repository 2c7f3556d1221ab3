import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { payoutSplits, type PayoutSplit } from "../../../db/schema/index.ts";

/**
 * The split that decides who is paid an issue's bounty, while it does (its
 * release window open, or its shares being paid): the merge path, the
 * issue-closed path and cancelling leave such a bounty alone. Apart from the
 * rest of splits/ so money/ can ask without importing the release.
 */
export async function liveSplit(deps: { database: { db: Database } }, repoId: number, issueNumber: number): Promise<PayoutSplit | undefined> {
  const [row] = await deps.database.db
    .select()
    .from(payoutSplits)
    .where(and(eq(payoutSplits.githubRepoId, repoId), eq(payoutSplits.issueNumber, issueNumber), inArray(payoutSplits.status, ["window", "releasing"])))
    .limit(1);
  return row;
}
