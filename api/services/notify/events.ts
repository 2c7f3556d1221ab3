import type { Database } from "../../../db/client.ts";
import { bountyEvents, type BountyEventType } from "../../../db/schema/index.ts";

/**
 * The emission hook of bounty events (issue 30): what happened to a bounty, recorded as one row. Any path that
 * changes a bounty calls it, in its own transaction when it has one; it does nothing else, so the payout path
 * pays one insert and never waits for endpoints (the outbound worker fans the row out, api/workers/outbound.ts).
 *
 *   await recordBountyEvent(tx, {
 *     type: "bounty.boosted",
 *     key: `chain:${txHash}:${logIndex}`,      // what makes it one event: a replay records nothing
 *     repoId, issueNumber,
 *     data: { currency: "XDC", amount: added.toString(), total: total.toString(), transactionHash: txHash },
 *   });
 *
 * `data` is JSON with amounts as decimal strings in the token's smallest unit; `currency`, `amount` and
 * `transactionHash` are shown by Slack/Discord messages when present. Returns whether it was new.
 */
export interface BountyEventInput {
  type: BountyEventType;
  key: string;
  repoId: number;
  issueNumber: number;
  /** The contributor it concerns (claimed, paid), when known. */
  userId?: number | null;
  data: Record<string, string | number | boolean | null>;
  occurredAt?: Date;
}

export async function recordBountyEvent(db: Pick<Database, "insert">, event: BountyEventInput): Promise<boolean> {
  const rows = await db
    .insert(bountyEvents)
    .values({
      eventKey: event.key,
      type: event.type,
      githubRepoId: event.repoId,
      issueNumber: event.issueNumber,
      userId: event.userId ?? null,
      data: JSON.stringify(event.data),
      occurredAt: event.occurredAt ?? new Date(),
    })
    .onConflictDoNothing()
    .returning({ id: bountyEvents.id });
  return rows.length > 0;
}

/** The contract's bounty events and what integrators hear of them. */
export const CHAIN_EVENT_TYPES: Record<string, BountyEventType> = {
  BountyAllocated: "bounty.created",
  BountyPaid: "bounty.paid",
  BountyCancelled: "bounty.refunded",
};

/** A contributor chose Contribute (the site, the API or the bot's command): once per contributor and issue. */
export function recordClaimEvent(db: Pick<Database, "insert">, input: { repoId: number; issueNumber: number; userId: number; login: string }): Promise<boolean> {
  return recordBountyEvent(db, {
    type: "bounty.claimed",
    key: `claim:${input.repoId}:${input.issueNumber}:${input.userId}`,
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    userId: input.userId,
    data: { contributorLogin: input.login },
  });
}
