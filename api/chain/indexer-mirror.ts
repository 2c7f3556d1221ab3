import { and, eq, inArray } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { Database } from "../../db/client.ts";
import { labelsColumn } from "../services/explore/search.ts";
import { payoutFacts, recordBountyChange } from "../services/reliability/record.ts";
import { bounties, chainEvents, chainTransactions, repositoryPools, type BountyStatus, type Currency } from "../../db/schema/index.ts";

/**
 * How the rewards contract's events become the database's mirror (api/chain/indexer.ts reads them): a bounty is
 * the state its last event states (each bounty event carries the whole of it), a pool is what the contract's own
 * view says plus what its open bounties lock. The same writes serve a batch of new events and a rebuild from the
 * stored events after a reorganisation.
 */
export const CURRENCY_BY_INDEX: Currency[] = ["XDC", "ROXN", "USDC"];
/**
 * A bounty's status after each of its events. A payout over the contract's
 * daily cap is queued (OutflowQueued, then BountyPaid when it runs, or
 * OutflowCancelled when the guardian drops it and the bounty is open again);
 * withdrawals' outflow events carry issue number 0 and touch no bounty.
 */
const STATUS_AFTER: Record<string, BountyStatus> = {
  BountyAllocated: "open",
  BountyPaid: "paid",
  BountyCancelled: "cancelled",
  OutflowQueued: "queued",
  OutflowCancelled: "open",
};
const BOUNTY_EVENTS = Object.keys(STATUS_AFTER);

export type ParsedEvent = { eventName: string; args: unknown; transactionHash: Hex; blockNumber: bigint; logIndex: number };

/**
 * Writes an issue's bounty as its last event in `events` states (the whole history, or a batch: every bounty event
 * carries the bounty's currency and amount, and the contributor when paid); removes it when `events` hold none.
 */
export async function writeBounty(
  tx: Database,
  events: ParsedEvent[],
  blockTimes: Map<bigint, Date>,
  repoId: bigint,
  issueNumber: bigint,
  updatedBlock: number,
  options: { removeWhenNone?: boolean } = {},
): Promise<void> {
  // A bounty's state after the batch is what its last event says: the contract emits one event for every
  // change of a bounty, carrying its currency and amount (and the contributor, when paid).
  const last = lastEvent(events, BOUNTY_EVENTS, repoId, issueNumber);
  const where = and(eq(bounties.githubRepoId, Number(repoId)), eq(bounties.issueNumber, Number(issueNumber)));
  // The sponsor's record moves by the difference (api/services/reliability/record.ts).
  const [before] = await tx
    .select({ status: bounties.status, currency: bounties.currency, amount: bounties.amount, recipient: bounties.recipient, allocatedTx: bounties.allocatedTx, paidTx: bounties.paidTx, paidAfterMs: bounties.paidAfterMs, paidAutomatically: bounties.paidAutomatically, closedAt: bounties.closedAt })
    .from(bounties)
    .where(where)
    .limit(1);
  if (!last) {
    if (options.removeWhenNone) {
      await tx.delete(bounties).where(where);
      await recordBountyChange(tx, Number(repoId), before, undefined);
    }
    return;
  }
  const { currency: currencyIndex, amount, contributor, to: queuedTo } = last.args as { currency: number; amount: bigint; contributor?: Address; to?: Address };
  const status = STATUS_AFTER[last.eventName]!;
  const allocated = lastEvent(events, "BountyAllocated", repoId, issueNumber);
  const paid = lastEvent(events, "BountyPaid", repoId, issueNumber);
  const closedEvent = paid ?? lastEvent(events, "BountyCancelled", repoId, issueNumber);
  const intent = allocated ? await allocationIntent(tx, allocated.transactionHash) : undefined;
  const values = {
    currency: CURRENCY_BY_INDEX[currencyIndex]!,
    amount,
    status,
    recipient: status === "paid" ? (contributor ?? null) : status === "queued" ? (queuedTo ?? null) : null,
    updatedBlock,
    updatedAt: new Date(),
    ...(closedEvent ? { closedAt: blockTimes.get(closedEvent.blockNumber) ?? new Date() } : {}),
    ...(paid ? { paidTx: paid.transactionHash } : {}),
  };
  // How and how fast it was paid, worked out once per payout (kept on the row, so a rebuild counts the same).
  const samePayout = before?.status === "paid" && paid && before.paidTx === paid.transactionHash;
  const facts =
    status !== "paid" || !paid
      ? { paidAfterMs: null, paidAutomatically: null }
      : samePayout
        ? { paidAfterMs: before.paidAfterMs, paidAutomatically: before.paidAutomatically }
        : await payoutFacts(tx, { repoId: Number(repoId), issueNumber: Number(issueNumber), paidTx: paid.transactionHash, paidAt: blockTimes.get(paid.blockNumber) ?? new Date() });
  Object.assign(values, facts);
  if (allocated) {
    // A new allocation (also after a cancellation) starts a fresh row.
    const fresh = {
      ...values,
      allocatedTx: allocated.transactionHash,
      allocatedAt: blockTimes.get(allocated.blockNumber) ?? new Date(),
      issueTitle: intent?.issueTitle ?? null,
      issueUrl: intent?.issueUrl ?? null,
      labels: labelsColumn(intent?.issueLabels),
      paidTx: paid?.transactionHash ?? null,
      closedAt: closedEvent ? (blockTimes.get(closedEvent.blockNumber) ?? new Date()) : null,
    };
    await tx
      .insert(bounties)
      .values({ githubRepoId: Number(repoId), issueNumber: Number(issueNumber), ...fresh })
      .onConflictDoUpdate({ target: [bounties.githubRepoId, bounties.issueNumber], set: fresh });
    // A new allocation replaces the row of an earlier, cancelled bounty: that one stays counted as it ended.
    const replaced = before && before.allocatedTx !== allocated.transactionHash;
    await recordBountyChange(tx, Number(repoId), replaced ? undefined : before, { status, currency: values.currency, amount, recipient: values.recipient, ...facts, closedAt: fresh.closedAt });
  } else {
    await tx.update(bounties).set(values).where(where);
    if (before) {
      await recordBountyChange(tx, Number(repoId), before, { status, currency: values.currency, amount, recipient: values.recipient, ...facts, closedAt: values.closedAt ?? before.closedAt });
    }
  }
}

/** A repository's pool as the contract states it, with what its open bounties lock. */
export async function writePool(tx: Database, repoId: bigint, [xdc, roxn, usdc]: readonly [bigint, bigint, bigint]): Promise<void> {
  const open = await tx
    .select({ currency: bounties.currency, amount: bounties.amount })
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, Number(repoId)), inArray(bounties.status, ["open", "queued"])));
  const locked = (c: Currency) => open.filter((b) => b.currency === c).reduce((sum, b) => sum + b.amount, 0n);
  for (const [currency, balance] of [["XDC", xdc], ["ROXN", roxn], ["USDC", usdc]] as [Currency, bigint][]) {
    const set = { balance, allocated: locked(currency), updatedAt: new Date() };
    await tx
      .insert(repositoryPools)
      .values({ githubRepoId: Number(repoId), currency, ...set })
      .onConflictDoUpdate({ target: [repositoryPools.githubRepoId, repositoryPools.currency], set });
  }
}

/** A stored event as the parser gave it (bigints back from their strings). */
export function parsedFromStored(e: typeof chainEvents.$inferSelect): ParsedEvent {
  const raw = JSON.parse(e.args) as Record<string, unknown>;
  const args: Record<string, unknown> = { ...raw };
  for (const key of ["repoId", "issueNumber", "amount"]) if (typeof raw[key] === "string") args[key] = BigInt(raw[key] as string);
  return { eventName: e.name, args, transactionHash: e.txHash as Hex, blockNumber: BigInt(e.blockNumber), logIndex: e.logIndex };
}

/** The last event of an issue's bounty named `names` (one name or any of several). */
export function lastEvent(events: ParsedEvent[], names: string | string[], repoId: bigint, issueNumber: bigint): ParsedEvent | undefined {
  const wanted = typeof names === "string" ? [names] : names;
  return events.findLast((e) => {
    const args = e.args as { repoId?: bigint; issueNumber?: bigint };
    return wanted.includes(e.eventName) && args.repoId === repoId && args.issueNumber === issueNumber;
  });
}

async function allocationIntent(db: Database, txHash: Hex): Promise<{ issueTitle?: string; issueUrl?: string; issueLabels?: string[] } | undefined> {
  const [row] = await db.select({ intent: chainTransactions.intent }).from(chainTransactions).where(eq(chainTransactions.txHash, txHash)).limit(1);
  if (!row) return undefined;
  const intent = JSON.parse(row.intent) as { issueTitle?: string; issueUrl?: string; issueLabels?: string[] };
  return { issueTitle: intent.issueTitle, issueUrl: intent.issueUrl, issueLabels: intent.issueLabels };
}

