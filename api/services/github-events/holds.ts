import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { heldPayouts, type HeldPayout } from "../../../db/schema/index.ts";

/**
 * Holding a bounty for a GitHub user without a wallet (the first state of
 * held-payouts.ts, which releases them). Apart from the release because the
 * merge path (money/bounty-release.ts) holds, and the release pays through it.
 */
export async function holdPayout(
  ctx: Pick<AppContext, "database" | "log" | "changes">,
  /** `pullNumber` null: the pool manager chose this user for a bounty awaiting decision. */
  input: { repoId: number; issueNumber: number; author: { id: number; login: string }; pullNumber: number | null },
): Promise<HeldPayout> {
  await ctx.database.db
    .insert(heldPayouts)
    .values({ githubRepoId: input.repoId, issueNumber: input.issueNumber, githubUserId: input.author.id, githubLogin: input.author.login, pullNumber: input.pullNumber })
    .onConflictDoNothing();
  ctx.log.info("bounty held for a GitHub user without a wallet", { repoId: input.repoId, issue: input.issueNumber, author: input.author.login });
  ctx.changes.publish(["repositories", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  // The hold that stands (an earlier one wins: a bounty is owed to one person).
  const [row] = await ctx.database.db
    .select()
    .from(heldPayouts)
    .where(and(eq(heldPayouts.githubRepoId, input.repoId), eq(heldPayouts.issueNumber, input.issueNumber)))
    .limit(1);
  return row!;
}
