/**
 * The money the platform moved for a user besides what they sent themselves
 * (issue 11: a contributor's earned rewards appeared nowhere in their
 * wallet): bounties paid to their wallet, pool withdrawals to it, their own
 * fundings of pools (issue 38: they appeared nowhere), and bounties of their
 * repositories cancelled back to the pool. Read from the indexer's copy of
 * the contract's events, with the repository and the issue's title, newest
 * first. Each entry says which way its money went for this wallet
 * (`direction`): in, out, or neither (a cancelled bounty goes back to the
 * pool, not to the pool manager's wallet).
 */
import { and, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bounties, chainEvents, repositories, type Currency, type User } from "../../../db/schema/index.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { walletOfUser } from "./custodial.ts";

/**
 * held: a share of a split payout kept in the escrow for the user (no wallet yet); its reward follows when paid.
 * funding: the user's wallet funded a repository's pool (amount: what left the wallet, fee included).
 */
export type HistoryKind = "reward" | "held" | "withdrawal" | "refund" | "funding";

/** Which way an entry's money went for this wallet: into it, out of it, or neither (it moved between the pool and a bounty). */
export type HistoryDirection = "in" | "out" | "none";

export const HISTORY_DIRECTION: Record<HistoryKind, HistoryDirection> = { reward: "in", withdrawal: "in", funding: "out", held: "none", refund: "none" };

export interface HistoryEntry {
  id: string;
  kind: HistoryKind;
  direction: HistoryDirection;
  currency: Currency;
  /** What moved: for a funding, what left the wallet (the pool got it less `fee`). */
  amount: string;
  /** The platform's fee in `amount` (a funding); null when none was taken. */
  fee: string | null;
  repository: string | null;
  issueNumber: number | null;
  issueTitle: string | null;
  issueUrl: string | null;
  transactionHash: string;
  explorerUrl: string | null;
  createdAt: string;
}

/** A BountyPaid that is not the total of a split payout (whose shares are BountySharePaid events of the same transaction). */
export const notASplit = sql`not exists (select 1 from ${chainEvents} s where s.tx_hash = ${chainEvents.txHash} and s.name = 'BountySharePaid')`;

/** A TipPaid that pays a split payout's held share (a BountyShareHeld with its tip id): a reward, not a tip. */
export const paysHeldShare = sql`exists (select 1 from ${chainEvents} h where h.name = 'BountyShareHeld' and h.old_chain is null and json_extract(h.args, '$.tipId') = json_extract(${chainEvents.args}, '$.tipId'))`;

export async function bountyHistory(ctx: Pick<AppContext, "database" | "chain">, user: User, limit: number): Promise<HistoryEntry[]> {
  const db = ctx.database.db;
  const wallet = await walletOfUser(db, user.id);
  const mine = await db.select({ id: repositories.githubRepoId }).from(repositories).where(eq(repositories.registeredByUserId, user.id));
  const address = wallet?.address.toLowerCase() ?? "";
  const conditions = [
    ...(wallet
      ? [
          // A split payout (contract v3) names its first recipient in BountyPaid with the whole amount: each
          // person's own share is its BountySharePaid.
          and(eq(chainEvents.name, "BountyPaid"), sql`lower(json_extract(${chainEvents.args}, '$.contributor')) = ${address}`, notASplit),
          and(eq(chainEvents.name, "BountySharePaid"), sql`lower(json_extract(${chainEvents.args}, '$.recipient')) = ${address}`),
          and(eq(chainEvents.name, "PoolWithdrawn"), sql`lower(json_extract(${chainEvents.args}, '$.to')) = ${address}`),
          and(eq(chainEvents.name, "TipPaid"), sql`lower(json_extract(${chainEvents.args}, '$.recipient')) = ${address}`, paysHeldShare),
          and(eq(chainEvents.name, "PoolFunded"), sql`lower(json_extract(${chainEvents.args}, '$.funder')) = ${address}`),
        ]
      : []),
    // Held for them before they had a wallet (the repository and issue are the event's own).
    and(eq(chainEvents.name, "BountyShareHeld"), sql`json_extract(${chainEvents.args}, '$.githubUserId') = ${String(user.githubId)}`),
    ...(mine.length ? [and(eq(chainEvents.name, "BountyCancelled"), inArray(chainEvents.repoId, mine.map((r) => r.id)))] : []),
  ];
  if (conditions.length === 0) return [];
  const rows = await db
    .select({ event: chainEvents, repository: repositories.fullName, issueTitle: bounties.issueTitle, issueUrl: bounties.issueUrl })
    .from(chainEvents)
    .leftJoin(repositories, eq(repositories.githubRepoId, chainEvents.repoId))
    .leftJoin(bounties, and(eq(bounties.githubRepoId, chainEvents.repoId), eq(bounties.issueNumber, chainEvents.issueNumber)))
    .where(and(eq(chainEvents.chainId, ctx.chain.config.chain.id), isNull(chainEvents.oldChain), or(...conditions)))
    .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
    .limit(limit);
  return rows.map(({ event, repository, issueTitle, issueUrl }) => {
    const args = JSON.parse(event.args) as { currency: number | string; amount?: string; gross?: string; fee?: string };
    const currency = CURRENCY_BY_INDEX[Number(args.currency)] ?? "XDC";
    const kind: HistoryKind =
      event.name === "BountyPaid" || event.name === "BountySharePaid" || event.name === "TipPaid"
        ? "reward"
        : event.name === "BountyShareHeld"
          ? "held"
          : event.name === "PoolWithdrawn"
            ? "withdrawal"
            : event.name === "PoolFunded"
              ? "funding"
              : "refund";
    const decimals = DECIMALS[currency];
    // PoolFunded names what left the funder (gross), the fee and what reached the pool (net).
    const amount = BigInt(kind === "funding" ? (args.gross ?? "0") : (args.amount ?? "0"));
    const fee = kind === "funding" && args.fee !== undefined ? toDecimalString(BigInt(args.fee), decimals) : null;
    return {
      id: `${event.txHash}:${event.logIndex}`,
      kind,
      direction: HISTORY_DIRECTION[kind],
      currency,
      amount: toDecimalString(amount, decimals),
      fee,
      repository,
      issueNumber: event.issueNumber,
      issueTitle: event.issueNumber === null ? null : issueTitle,
      issueUrl: event.issueNumber === null ? null : issueUrl,
      transactionHash: event.txHash,
      explorerUrl: explorerTxUrl(ctx.chain.config.network, event.txHash),
      createdAt: (event.blockTime ?? event.createdAt).toISOString(),
    };
  });
}
