import type { AppContext } from "../../context.ts";
import { GitHubCatchUp } from "./catch-up.ts";
import { handleIssues } from "./issues.ts";
import { fillBountyMetadata } from "./bounty-metadata.ts";

/**
 * The GitHub catch-up pass (catch-up.ts), handling each close it finds as the issues delivery would (issues.ts), then
 * filling the labels and languages nobody told the platform yet (rows from before, the demo's): Explore filters by them.
 */
export function githubCatchUp(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "indexer" | "changes">, options: { now?: () => number } = {}): GitHubCatchUp {
  return new GitHubCatchUp({
    db: ctx.database.db,
    log: ctx.log,
    env: ctx.env,
    now: options.now,
    issueClosed: (repository, issue) =>
      handleIssues(ctx, { action: "closed", repository: { id: repository.githubRepoId }, issue: { number: issue.number, state_reason: issue.state_reason ?? null } }),
    afterPass: async () => {
      const filled = await fillBountyMetadata({ db: ctx.database.db, log: ctx.log, env: ctx.env });
      if (filled.repoIds.length) ctx.changes.publish(["repositories", ...filled.repoIds.map((id) => `repo:${id}`)]);
    },
  });
}
