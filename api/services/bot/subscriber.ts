import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories } from "../../../db/schema/index.ts";
import { syncBountyComment } from "./bounty-comment.ts";

/** How long the bot waits after a bounty's change for the changes that follow it before it writes the comment. */
export const BOT_SETTLE_MS = 250;

/**
 * Keeps the bot's comments in step with bounties: every `bounty:<repo>:<issue>`
 * change (allocation, payment, cancellation from the indexer; a new
 * contributor) queues a sync of that issue's comment, BOT_SETTLE_MS after the
 * first change of a burst. One burst at a time, each issue once per burst, each repository read once per burst (most
 * changes under load are of repositories without the app, where the bot
 * has nothing to do); failures are logged and retried on the next change.
 */
export function keepBountyCommentsInStep(
  ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "changes">,
  options: { settleMs?: number } = {},
): { idle(): Promise<void>; stop(): Promise<void> } {
  const settleMs = options.settleMs ?? BOT_SETTLE_MS;
  let pending = new Map<number, Set<number>>();
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;
  const syncPending = async () => {
    const burst = pending;
    pending = new Map();
    if (!burst.size) return;
    const rows = await ctx.database.db.select().from(repositories).where(inArray(repositories.githubRepoId, [...burst.keys()]));
    for (const repository of rows) {
      if (!repository.installationId) continue; // without the app the bot cannot write
      for (const issueNumber of burst.get(repository.githubRepoId) ?? []) {
        try {
          await syncBountyComment(ctx, repository.githubRepoId, issueNumber, repository);
        } catch (err) {
          ctx.log.warn("bot comment sync failed", { tag: `bounty:${repository.githubRepoId}:${issueNumber}`, err: (err as Error).message });
        }
      }
    }
  };
  const unsubscribe = ctx.changes.subscribe((tags) => {
    let added = false;
    for (const tag of tags) {
      const match = /^bounty:(\d+):(\d+)$/.exec(tag);
      if (!match) continue;
      const repoId = Number(match[1]);
      const issues = pending.get(repoId) ?? new Set<number>();
      if (!pending.has(repoId)) pending.set(repoId, issues);
      issues.add(Number(match[2]));
      added = true;
    }
    if (added && !scheduled) {
      // One burst per settle time: the changes of one operation (queued, sent, mirrored) come within moments of each
      // other and would each rebuild the comment's body; they make one sync after it.
      scheduled = true;
      chain = chain
        .then(() => (settleMs > 0 ? Bun.sleep(settleMs) : undefined))
        .then(() => {
          scheduled = false;
          return syncPending();
        })
        .catch((err: unknown) => ctx.log.warn("bot comment sync failed", { err: (err as Error).message }));
    }
  });
  return {
    idle: () => chain,
    /** No new syncs; waits for the one under way (stop this before GitHub's client or the database goes away). */
    async stop() {
      unsubscribe();
      await chain;
    },
  };
}
