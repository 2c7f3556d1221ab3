import type { AppContext } from "../../context.ts";
import { syncBountyComment } from "./bounty-comment.ts";

/**
 * Keeps the bot's comments in step with bounties: every `bounty:<repo>:<issue>`
 * change (allocation, payment, cancellation from the indexer; a new
 * contributor) queues a sync of that comment. One at a time, each
 * issue once per burst; failures are logged and retried on the next change.
 */
export function keepBountyCommentsInStep(ctx: AppContext): { idle(): Promise<void> } {
  const queued = new Set<string>();
  let chain: Promise<void> = Promise.resolve();
  ctx.changes.subscribe((tags) => {
    for (const tag of tags) {
      const match = /^bounty:(\d+):(\d+)$/.exec(tag);
      if (!match || queued.has(tag)) continue;
      queued.add(tag);
      chain = chain.then(async () => {
        queued.delete(tag);
        try {
          await syncBountyComment(ctx, Number(match[1]), Number(match[2]));
        } catch (err) {
          ctx.log.warn("bot comment sync failed", { tag, err: (err as Error).message });
        }
      });
    }
  });
  return { idle: () => chain };
}
