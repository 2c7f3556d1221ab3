/**
 * What the payout decision (decision.ts) knows about one issue's bounty, read at one moment under the
 * bounty's lock: the chain's account of it (status, round, the pool's share and the funders'), the
 * platform's commitment of its current round, a split or a hold that already decide it, a payout or
 * cancellation on its way, and when the last unit of its money was committed.
 *
 * "Committed" for money means: on the chain, as the platform first knew it. An indexed event's time is the
 * earlier of its block's time and the moment it was indexed (a local chain whose clock was moved on shows
 * block times ahead of every other clock; a re-indexed event keeps its block's time); a funding transaction
 * the platform sent and the indexer has not read yet counts from when its row was written. An issue's
 * rounds are separated by `BountyCancelled` (the contract starts a new round only after a cancellation).
 */
import { and, desc, eq, inArray, isNull, notInArray } from "drizzle-orm";
import type { Address } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import {
  bountyCommitments,
  chainEvents,
  chainTransactions,
  heldPayouts,
  type BountyCommitment,
  type Currency,
  type HeldPayout,
  type PayoutSplit,
} from "../../../db/schema/index.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { liveSplit } from "../splits/live.ts";

export const CHAIN_BOUNTY_STATUSES = ["none", "open", "paid", "cancelled", "queued"] as const;
export type ChainBountyStatus = (typeof CHAIN_BOUNTY_STATUSES)[number];

export interface ChainBounty {
  status: ChainBountyStatus;
  currency: Currency;
  /** The whole bounty: the pool's share plus the funders'. */
  amount: bigint;
  poolShare: bigint;
  boosted: bigint;
  round: number;
  recipient: Address;
}

export interface BountyFacts {
  repoId: number;
  issueNumber: number;
  chain: ChainBounty;
  /** The platform's commitment of the chain's current round, if one was made. */
  commitment?: BountyCommitment;
  /** A split that decides who is paid (window open, or shares being paid). */
  split?: PayoutSplit;
  /** The bounty is owed to a GitHub user without a wallet. */
  hold?: HeldPayout;
  /** A payout or cancellation of the bounty on its way to the chain (not yet settled there). */
  settling?: "pay_bounty" | "cancel_bounty";
  /** When the last unit of the current round's money was committed (undefined: the platform has no record of it yet). */
  moneyCommittedAt?: Date;
}

/** The bounty as the chain states it now: one read. */
export async function chainBounty(ctx: Pick<AppContext, "chain">, repoId: number, issueNumber: number): Promise<ChainBounty> {
  const d = await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getBountyDetails",
    args: [BigInt(repoId), BigInt(issueNumber)],
  });
  return {
    status: CHAIN_BOUNTY_STATUSES[d.status]!,
    currency: CURRENCY_BY_INDEX[d.currency]!,
    amount: d.amount,
    poolShare: d.poolShare,
    boosted: d.boosted,
    round: Number(d.round),
    recipient: d.recipient,
  };
}

/** Kinds of the outbox rows that put money into a bounty. */
export const FUNDING_KINDS = ["allocate_bounty", "boost_xdc", "boost_roxn", "boost_usdc"] as const;

/**
 * `withMoney`: also when the money was committed (what a merge is judged against: an indexed read of the issue's
 * events); the paths that only ask whether the bounty may still move leave it out.
 */
export async function bountyFacts(ctx: Pick<AppContext, "database" | "chain">, repoId: number, issueNumber: number, options: { withMoney?: boolean } = {}): Promise<BountyFacts> {
  const db = ctx.database.db;
  const chain = await chainBounty(ctx, repoId, issueNumber);
  const [commitment, split, hold, settling, moneyCommittedAt] = await Promise.all([
    db
      .select()
      .from(bountyCommitments)
      .where(and(eq(bountyCommitments.githubRepoId, repoId), eq(bountyCommitments.issueNumber, issueNumber), eq(bountyCommitments.round, chain.round)))
      .limit(1)
      .then((rows) => rows[0]),
    liveSplit(ctx, repoId, issueNumber),
    db
      .select()
      .from(heldPayouts)
      .where(and(eq(heldPayouts.githubRepoId, repoId), eq(heldPayouts.issueNumber, issueNumber), isNull(heldPayouts.releasedAt)))
      .limit(1)
      .then((rows) => rows[0]),
    db
      .select({ kind: chainTransactions.kind })
      .from(chainTransactions)
      .where(
        and(
          inArray(chainTransactions.kind, ["pay_bounty", "cancel_bounty"]),
          eq(chainTransactions.githubRepoId, repoId),
          eq(chainTransactions.issueNumber, issueNumber),
          isNull(chainTransactions.oldChain),
          notInArray(chainTransactions.status, ["confirmed", "failed", "reverted"]),
        ),
      )
      .limit(1)
      .then((rows) => rows[0]?.kind as BountyFacts["settling"]),
    chain.status === "open" && options.withMoney ? moneyCommitted(ctx, repoId, issueNumber) : Promise.resolve(undefined),
  ]);
  return { repoId, issueNumber, chain, commitment, split, hold, settling, moneyCommittedAt };
}

/** When the last unit of money of the issue's current round was committed (see the file's opening comment). */
export async function moneyCommitted(ctx: Pick<AppContext, "database">, repoId: number, issueNumber: number): Promise<Date | undefined> {
  const db = ctx.database.db;
  const [events, rows] = await Promise.all([
    db
      .select({ name: chainEvents.name, txHash: chainEvents.txHash, blockTime: chainEvents.blockTime, createdAt: chainEvents.createdAt })
      .from(chainEvents)
      .where(
        and(
          eq(chainEvents.repoId, repoId),
          eq(chainEvents.issueNumber, issueNumber),
          isNull(chainEvents.oldChain),
          inArray(chainEvents.name, ["BountyAllocated", "BountyBoosted", "BountyCancelled"]),
        ),
      )
      .orderBy(chainEvents.blockNumber, chainEvents.logIndex),
    // Fundings on their way, or mined and not indexed yet.
    db
      .select({ txHash: chainTransactions.txHash, createdAt: chainTransactions.createdAt })
      .from(chainTransactions)
      .where(
        and(
          inArray(chainTransactions.kind, [...FUNDING_KINDS]),
          eq(chainTransactions.githubRepoId, repoId),
          eq(chainTransactions.issueNumber, issueNumber),
          isNull(chainTransactions.oldChain),
          notInArray(chainTransactions.status, ["failed", "reverted"]),
        ),
      )
      .orderBy(desc(chainTransactions.createdAt)),
  ]);
  const indexed = new Set(events.map((e) => e.txHash.toLowerCase()));
  let latest: number | undefined;
  for (const e of events) {
    if (e.name === "BountyCancelled") {
      latest = undefined;
      continue;
    }
    const at = Math.min(e.createdAt.getTime(), e.blockTime?.getTime() ?? Infinity);
    latest = latest === undefined ? at : Math.max(latest, at);
  }
  for (const row of rows) {
    if (row.txHash && indexed.has(row.txHash.toLowerCase())) continue;
    latest = Math.max(latest ?? 0, row.createdAt.getTime());
  }
  return latest === undefined ? undefined : new Date(latest);
}
