import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import type { Database } from "../../db/client.ts";
import { CURRENCIES } from "../../lib/money.ts";
import { labelsColumn } from "../services/explore/search.ts";
import { payoutFacts, recordBountyChange, type CountedBounty, type PayoutShare } from "../services/reliability/record.ts";
import { bounties, bountyShares, chainEvents, chainTransactions, payoutSplitShares, repositoryPools, type BountyStatus, type Currency } from "../../db/schema/index.ts";

/**
 * How the rewards contract's events become the database's mirror (api/chain/indexer.ts reads them). A bounty
 * row is the pool's bounty on an issue: it starts with the pool's allocation (BountyAllocated) and follows the
 * contract's bounty from there, event by event, from the row as it was (a batch) or from the issue's last
 * allocation (a rebuild from the stored events after a reorganisation). A pool is what the contract's own view
 * says plus what its bounties lock of it. The same writes serve a batch of new events and a rebuild.
 *
 * What `bounties.amount` means (docs/design.md, "The bounty's amount in the mirror"), as every reader uses it:
 * - open: the pool's share on the issue (0 once the pool manager took it back with `cancelPoolShare`: the bounty
 *   stays open on its funders' shares). The funders' active shares (bounty_boosts) are on top of it: the total
 *   shown is amount + boosted (api/services/funding/funders-read.ts);
 * - queued or paid: the whole payout (pool's share + funders' shares), as OutflowQueued and BountyPaid carry it,
 *   the funders' shares being part of the payout (the contributors' totals count it);
 * - cancelled: the pool's share that went back to the pool (0 when it had gone back before).
 * A bounty funded by boosts alone (a community bounty, api/services/funding/community.ts) has no row: the pool
 * has nothing on it. The pool's locked amount (repository_pools.allocated) is the pool's shares of its open and
 * queued bounties, as the contract's getBountyDetails(...).poolShare states them.
 */
/** A currency by its on-chain id (lib/money.ts keeps CURRENCIES in the contract's order). */
export const CURRENCY_BY_INDEX: readonly Currency[] = CURRENCIES;
/**
 * The events that move a pool's bounty. A payout over the contract's daily cap (or young money, or a new
 * address) is queued (OutflowQueued, then BountyPaid when it runs, or OutflowCancelled when the guardian drops
 * it and the bounty is open again); withdrawals' outflow events carry issue number 0 and touch no bounty, tips'
 * carry repository 0. BountyBoosted, BoostRefunded and BountySharePaid leave the pool's share as it is (the
 * funders' shares are bounty_boosts' rows; a split's shares sum to BountyPaid's amount).
 */
const BOUNTY_EVENTS = ["BountyAllocated", "PoolShareCancelled", "OutflowQueued", "OutflowCancelled", "BountyPaid", "BountyCancelled"];

export type ParsedEvent = { eventName: string; args: unknown; transactionHash: Hex; blockNumber: bigint; logIndex: number };

/** A bounty row as the events make it. */
interface Mirrored {
  status: BountyStatus;
  currency: Currency;
  /** As `bounties.amount` means it (above). */
  amount: bigint;
  /** The pool's share the contract holds for it (getBountyDetails' poolShare while open or queued). */
  poolShare: bigint;
  recipient: string | null;
  /** The allocation that started the row, when it is among the events folded. */
  allocated?: ParsedEvent;
  /** Whether `allocated` joined an open bounty of the same row (its pool's share had been taken back). */
  joined?: boolean;
  paid?: ParsedEvent;
  closed?: ParsedEvent;
}

type EventArgs = { currency: number; amount: bigint; contributor?: Address; to?: Address };

/** The row after one event; events of a bounty the pool has no row for (cancelled, or boosts only) change nothing until it allocates. */
function step(state: Mirrored | undefined, e: ParsedEvent): Mirrored | undefined {
  const args = e.args as EventArgs;
  if (e.eventName === "BountyAllocated") {
    const currency = CURRENCY_BY_INDEX[args.currency]!;
    return { status: "open", currency, amount: args.amount, poolShare: args.amount, recipient: null, allocated: e, joined: state?.status === "open" };
  }
  if (!state || state.status === "cancelled") return state;
  switch (e.eventName) {
    case "PoolShareCancelled":
      return { ...state, amount: 0n, poolShare: 0n };
    case "OutflowQueued":
      return { ...state, status: "queued", amount: args.amount, recipient: args.to ?? null };
    case "OutflowCancelled":
      return { ...state, status: "open", amount: state.poolShare, recipient: null };
    case "BountyPaid":
      return { ...state, status: "paid", amount: args.amount, recipient: args.contributor ?? null, paid: e, closed: e };
    case "BountyCancelled":
      return { ...state, status: "cancelled", amount: state.poolShare, poolShare: 0n, recipient: null, closed: e };
    default:
      return state;
  }
}

const ofIssue = (e: ParsedEvent, repoId: bigint, issueNumber: bigint) => {
  const args = e.args as { repoId?: bigint; issueNumber?: bigint };
  return BOUNTY_EVENTS.includes(e.eventName) && args.repoId === repoId && args.issueNumber === issueNumber;
};

/**
 * Writes an issue's bounty as `events` leave it: a batch of new events (all issues'; this issue's are applied in
 * order to the row as it is), or with `removeWhenNone` the issue's stored history from its last allocation (a
 * rebuild: applied from nothing; the row goes when they hold no allocation).
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
  const mine = events.filter((e) => ofIssue(e, repoId, issueNumber));
  const where = and(eq(bounties.githubRepoId, Number(repoId)), eq(bounties.issueNumber, Number(issueNumber)));
  // The sponsor's record moves by the difference (api/services/reliability/record.ts).
  const [before] = await tx
    .select({ status: bounties.status, currency: bounties.currency, amount: bounties.amount, recipient: bounties.recipient, allocatedTx: bounties.allocatedTx, paidTx: bounties.paidTx, paidAfterMs: bounties.paidAfterMs, paidAutomatically: bounties.paidAutomatically, closedAt: bounties.closedAt })
    .from(bounties)
    .where(where)
    .limit(1);
  // A split payout's shares, as the row was: a reorganisation that takes the payout back takes back every share.
  const beforeShares = before?.status === "paid" ? await sharesOfRow(tx, repoId, issueNumber) : [];
  const counted0: CountedBounty | undefined = before && { ...before, shares: beforeShares };
  if (options.removeWhenNone && !mine.some((e) => e.eventName === "BountyAllocated")) {
    await tx.delete(bounties).where(where);
    await writeShares(tx, repoId, issueNumber, undefined, []);
    await recordBountyChange(tx, Number(repoId), counted0, undefined);
    return;
  }
  if (!mine.length) return;
  // Where the fold starts: nothing (a rebuild), or the row as it is (its pool's share is its amount while open; a
  // queued row's is read from the stored events before this batch, for a payout the guardian may drop).
  let state: Mirrored | undefined =
    options.removeWhenNone || !before
      ? undefined
      : {
          status: before.status,
          currency: before.currency,
          amount: before.amount,
          poolShare: before.status === "open" ? before.amount : before.status === "queued" ? await storedPoolShare(tx, repoId, issueNumber, mine[0]) : 0n,
          recipient: before.recipient,
        };
  // The record counts each row as it ends: a bounty cancelled and allocated again in one batch is two rows.
  let counted: CountedBounty | undefined = counted0;
  for (const e of mine) {
    const next = step(state, e);
    if (next?.allocated === e && !next.joined && state) {
      // A new row replaces one that ended (cancelled): that one stays counted as it ended.
      const closedAt = state.closed ? (blockTimes.get(state.closed.blockNumber) ?? null) : (before?.closedAt ?? null);
      // A paid one (a new round after the payout) keeps its shares as counted.
      const ended = countedOf(state, closedAt);
      if (ended.status === "paid") ended.shares = state.paid ? await storedShares(tx, repoId, issueNumber, state.paid.transactionHash) : beforeShares;
      await recordBountyChange(tx, Number(repoId), counted, ended);
      counted = undefined;
    }
    state = next;
  }
  if (!state) return;
  const status = state.status;
  const allocated = state.allocated;
  const paid = state.paid;
  const closedEvent = state.closed;
  const values = {
    currency: state.currency,
    amount: state.amount,
    status,
    recipient: status === "paid" || status === "queued" ? state.recipient : null,
    updatedBlock,
    updatedAt: new Date(),
    ...(closedEvent ? { closedAt: blockTimes.get(closedEvent.blockNumber) ?? new Date() } : {}),
    ...(paid ? { paidTx: paid.transactionHash } : {}),
  };
  // How and how fast it was paid, worked out once per payout (kept on the row, so a rebuild counts the same).
  const samePayout = before?.status === "paid" && paid && before.paidTx === paid.transactionHash;
  const facts =
    status !== "paid" || !paid
      ? status === "paid" && before?.status === "paid"
        ? { paidAfterMs: before.paidAfterMs, paidAutomatically: before.paidAutomatically }
        : { paidAfterMs: null, paidAutomatically: null }
      : samePayout
        ? { paidAfterMs: before.paidAfterMs, paidAutomatically: before.paidAutomatically }
        : await payoutFacts(tx, { repoId: Number(repoId), issueNumber: Number(issueNumber), paidTx: paid.transactionHash, paidAt: blockTimes.get(paid.blockNumber) ?? new Date() });
  Object.assign(values, facts);
  // A split payout's shares: its BountySharePaid events (stored before the bounties are written), and its held shares
  // paid since (a rebuild of the same payout reads them again: a reorganisation may have taken such a payment back);
  // a row paid before this batch keeps its own.
  const shares = status !== "paid" ? [] : paid ? await storedShares(tx, repoId, issueNumber, paid.transactionHash) : beforeShares;
  if (allocated || before) await writeShares(tx, repoId, issueNumber, values.currency, shares);
  if (allocated) {
    // A new allocation (also after a cancellation) starts a fresh row; one that joins the open bounty its pool's
    // share had left updates the row to it.
    const intent = await allocationIntent(tx, allocated.transactionHash);
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
    await recordBountyChange(tx, Number(repoId), counted, { status, currency: values.currency, amount: values.amount, recipient: values.recipient, shares, ...facts, closedAt: fresh.closedAt });
  } else if (before) {
    await tx.update(bounties).set(values).where(where);
    await recordBountyChange(tx, Number(repoId), counted, { status, currency: values.currency, amount: values.amount, recipient: values.recipient, shares, ...facts, closedAt: values.closedAt ?? before.closedAt });
  }
}

function countedOf(state: Mirrored, closedAt: Date | null): CountedBounty {
  return { status: state.status, currency: state.currency, amount: state.amount, recipient: state.status === "paid" || state.status === "queued" ? state.recipient : null, paidAfterMs: null, paidAutomatically: null, closedAt };
}

/** The shares the mirror keeps for an issue's paid bounty (none: not a split payout). */
async function sharesOfRow(tx: Database, repoId: bigint, issueNumber: bigint): Promise<PayoutShare[]> {
  return tx
    .select({ recipient: bountyShares.recipient, amount: bountyShares.amount })
    .from(bountyShares)
    .where(and(eq(bountyShares.githubRepoId, Number(repoId)), eq(bountyShares.issueNumber, Number(issueNumber))));
}

/**
 * A payout's shares as its stored BountySharePaid events state them (a recipient named twice gets the sum), with
 * each share it held in escrow for a person without a wallet (BountyShareHeld) once the operator paid it to the
 * wallet they registered (the held tip's TipPaid): credited to that wallet from then on, to nobody before.
 */
async function storedShares(tx: Database, repoId: bigint, issueNumber: bigint, paidTx: Hex): Promise<PayoutShare[]> {
  const stored = await tx
    .select()
    .from(chainEvents)
    .where(and(isNull(chainEvents.oldChain), eq(chainEvents.txHash, paidTx), inArray(chainEvents.name, ["BountySharePaid", "BountyShareHeld"]), eq(chainEvents.repoId, Number(repoId)), eq(chainEvents.issueNumber, Number(issueNumber))))
    .orderBy(asc(chainEvents.logIndex));
  const held = stored.filter((e) => e.name === "BountyShareHeld").map((e) => (JSON.parse(e.args) as { tipId: string }).tipId);
  const paidHeld = new Map<string, string>();
  if (held.length) {
    const tipPaid = await tx
      .select({ args: chainEvents.args })
      .from(chainEvents)
      .where(and(isNull(chainEvents.oldChain), eq(chainEvents.name, "TipPaid"), inArray(sql`json_extract(${chainEvents.args}, '$.tipId')`, held)));
    for (const row of tipPaid) {
      const args = JSON.parse(row.args) as { tipId: string; recipient: string };
      paidHeld.set(args.tipId, args.recipient);
    }
  }
  const byRecipient = new Map<string, bigint>();
  for (const e of stored.map(parsedFromStored)) {
    const args = e.args as { recipient?: string; amount: bigint; tipId?: bigint };
    const recipient = e.eventName === "BountySharePaid" ? args.recipient : paidHeld.get(String(args.tipId));
    if (!recipient) continue;
    byRecipient.set(recipient, (byRecipient.get(recipient) ?? 0n) + args.amount);
  }
  return [...byRecipient].map(([recipient, amount]) => ({ recipient, amount }));
}

/**
 * A batch's TipPaid events that pay held shares of split payouts (a co-author who registered after the payout):
 * the paid bounty's shares are written again, now crediting them, and the contributors' records move by the
 * difference. Idempotent (the shares are recomputed from the stored events), so a payout and its held share's
 * payment in one batch are credited once.
 */
export async function writePaidHeldShares(tx: Database, events: ParsedEvent[]): Promise<void> {
  const tipIds = events.filter((e) => e.eventName === "TipPaid").map((e) => String((e.args as { tipId: bigint }).tipId));
  if (!tipIds.length) return;
  const held = await tx
    .selectDistinct({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber, txHash: chainEvents.txHash })
    .from(chainEvents)
    .where(and(isNull(chainEvents.oldChain), eq(chainEvents.name, "BountyShareHeld"), inArray(sql`json_extract(${chainEvents.args}, '$.tipId')`, tipIds)));
  for (const { repoId, issueNumber, txHash } of held) {
    // Only registered repositories have a row (unregistered ones are not mirrored).
    if (repoId === null || issueNumber === null) continue;
    const [row] = await tx
      .select()
      .from(bounties)
      .where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber)))
      .limit(1);
    if (!row || row.status !== "paid" || row.paidTx?.toLowerCase() !== txHash.toLowerCase()) continue;
    const before = await sharesOfRow(tx, BigInt(repoId), BigInt(issueNumber));
    const after = await storedShares(tx, BigInt(repoId), BigInt(issueNumber), row.paidTx as Hex);
    const key = (shares: PayoutShare[]) => JSON.stringify(shares.map((s) => [s.recipient, s.amount.toString()]).sort());
    if (key(before) === key(after)) continue;
    await writeShares(tx, BigInt(repoId), BigInt(issueNumber), row.currency, after);
    const counted = { status: row.status, currency: row.currency, amount: row.amount, recipient: row.recipient, paidAfterMs: row.paidAfterMs, paidAutomatically: row.paidAutomatically, closedAt: row.closedAt };
    await recordBountyChange(tx, repoId, { ...counted, shares: before }, { ...counted, shares: after });
  }
}

/**
 * A batch's HeldShareReturned events: an unclaimed held share of a split payout went back to its repository's pool
 * (the pool manager's return, api/services/splits/return-share.ts, or the contract called directly). Its share row
 * reads `returned` from then on, and nothing will try to pay it (release.ts pays escrowed shares only). The pool's
 * balance moves with the pool row the batch reads anyway.
 */
export async function writeReturnedHeldShares(tx: Database, events: ParsedEvent[]): Promise<void> {
  const tipIds = events.filter((e) => e.eventName === "HeldShareReturned").map((e) => String((e.args as { tipId: bigint }).tipId));
  if (!tipIds.length) return;
  const held = await tx
    .select({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber, args: chainEvents.args })
    .from(chainEvents)
    .where(and(isNull(chainEvents.oldChain), eq(chainEvents.name, "BountyShareHeld"), inArray(sql`json_extract(${chainEvents.args}, '$.tipId')`, tipIds)));
  for (const { repoId, issueNumber, args } of held) {
    if (repoId === null || issueNumber === null) continue;
    const { githubUserId } = JSON.parse(args) as { githubUserId: string };
    await tx
      .update(payoutSplitShares)
      .set({ status: "returned" })
      .where(and(eq(payoutSplitShares.githubRepoId, repoId), eq(payoutSplitShares.issueNumber, issueNumber), eq(payoutSplitShares.githubUserId, Number(githubUserId)), eq(payoutSplitShares.status, "escrowed")));
  }
}

/** Replaces the issue's shares with `shares` (none: not a paid split payout). */
async function writeShares(tx: Database, repoId: bigint, issueNumber: bigint, currency: Currency | undefined, shares: PayoutShare[]): Promise<void> {
  await tx.delete(bountyShares).where(and(eq(bountyShares.githubRepoId, Number(repoId)), eq(bountyShares.issueNumber, Number(issueNumber))));
  if (!currency || !shares.length) return;
  await tx.insert(bountyShares).values(shares.map((s) => ({ githubRepoId: Number(repoId), issueNumber: Number(issueNumber), currency, recipient: s.recipient, amount: s.amount })));
}

/**
 * The pool's share of an issue's bounty as the stored events state it (before `until`, when given): what a queued
 * payout's bounty gives back to open when the guardian drops it, and what it locks of its pool meanwhile.
 */
async function storedPoolShare(tx: Database, repoId: bigint, issueNumber: bigint, until?: ParsedEvent): Promise<bigint> {
  const stored = await tx
    .select()
    .from(chainEvents)
    .where(and(isNull(chainEvents.oldChain), eq(chainEvents.repoId, Number(repoId)), eq(chainEvents.issueNumber, Number(issueNumber))))
    .orderBy(asc(chainEvents.blockNumber), asc(chainEvents.logIndex));
  const before = until ? stored.filter((e) => e.blockNumber < Number(until.blockNumber) || (e.blockNumber === Number(until.blockNumber) && e.logIndex < until.logIndex)) : stored;
  let state: Mirrored | undefined;
  for (const e of before.map(parsedFromStored)) if (ofIssue(e, repoId, issueNumber)) state = step(state, e);
  return state && (state.status === "open" || state.status === "queued") ? state.poolShare : 0n;
}

/** A repository's pool as the contract states it, with what its open and queued bounties lock of it (their pool's shares). */
export async function writePool(tx: Database, repoId: bigint, [xdc, roxn, usdc]: readonly [bigint, bigint, bigint]): Promise<void> {
  const live = await tx
    .select({ issueNumber: bounties.issueNumber, status: bounties.status, currency: bounties.currency, amount: bounties.amount })
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, Number(repoId)), inArray(bounties.status, ["open", "queued"])));
  const locked: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
  for (const b of live) locked[b.currency] += b.status === "open" ? b.amount : await storedPoolShare(tx, repoId, BigInt(b.issueNumber));
  for (const [currency, balance] of [["XDC", xdc], ["ROXN", roxn], ["USDC", usdc]] as [Currency, bigint][]) {
    const set = { balance, allocated: locked[currency], updatedAt: new Date() };
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

