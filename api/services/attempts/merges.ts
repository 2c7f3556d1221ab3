import type { AppContext } from "../../context.ts";
import type { Repository } from "../../../db/schema/index.ts";
import { recordMerge } from "./eligibility.ts";
import { endAttemptsOnMerge } from "./attempts.ts";
import { tellOtherAuthors } from "./notices.ts";
import { syncPullPreview } from "./preview.ts";

/**
 * What a merged pull request means for attempts (issue 39), after its payout was decided (github-events/
 * pull-requests.ts): its author has a merged pull request on a registered repository (the newcomer's limit lifts),
 * the attempts on the issues it closed end (a holder overtaken by someone else's merge ends as `merged_other`: the
 * issue's comment says so), the authors of the other open pull requests closing them are told, and its preview
 * comment says it was merged. Idempotent (a redelivered webhook changes and sends nothing more).
 */
export async function afterMerge(
  ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "changes" | "mailer">,
  repository: Repository,
  pull: { number: number; author: { id: number; login: string } },
  closes: number[],
): Promise<void> {
  await recordMerge(ctx, { githubUserId: pull.author.id, repoId: repository.githubRepoId, pullNumber: pull.number, mergedAt: new Date() });
  // The record first: the other pull requests are told from it (the merged one is no longer open).
  const synced = await syncPullPreview(ctx, repository, pull.number, { closing: closes });
  for (const issueNumber of new Set([...closes, ...(synced?.closes ?? [])])) {
    await endAttemptsOnMerge(ctx, { repoId: repository.githubRepoId, issueNumber, pullNumber: pull.number, authorGithubId: pull.author.id });
    await tellOtherAuthors(ctx, repository, { pullNumber: pull.number, authorLogin: pull.author.login, issueNumber });
  }
}
