/**
 * A wallet's chain history and its daily figures, as the original product's
 * wallet page reads them (GET /api/wallet/transactions, /api/wallet/limits;
 * docs/api.md, "Clients of the original product"). Built from the platform's
 * own records, never a block scan: what the wallet sent or funded (the
 * transaction outbox, every transaction the platform signs for it) and what
 * it received from the rewards contract (the indexer's events: bounties paid
 * to it, pool withdrawals to it). Money that reaches the wallet from outside
 * the platform (a plain transfer from an exchange) is not among them.
 */
import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { chainEvents, chainTransactions, type Currency, type User } from "../../../db/schema/index.ts";
import type { Clock } from "../../clock.ts";
import { toDecimalString, toXdcString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { limitFigure } from "../money/limits.ts";
import { walletOfUser } from "./custodial.ts";
import { receivedTipTransfers, tipDelivery } from "../tips/tips.ts";
import { notASplit, paysHeldShare } from "./bounty-history.ts";

/** What leaves the wallet: its sends, tips and pool fundings (approvals move nothing; withdrawals come back as events). */
const OUTGOING_KINDS = ["send_xdc", "send_token", "tip_xdc", "tip_token", "fund_xdc", "fund_roxn", "fund_usdc"] as const;

export interface WalletTransaction {
  hash: string;
  isIncoming: boolean;
  tokenSymbol: Currency;
  /** Whole tokens (USDC with 6 decimals). */
  tokenAmount: string;
  /** XDC moved, in wei; "0" for a token transfer. */
  value: string;
  from: string;
  to: string;
  status: "confirmed" | "pending";
  blockNumber: number | null;
  confirmations: number;
  timestamp: string;
  /** What it was: send, fund, reward, withdrawal, tip (given or received: `isIncoming` says which). */
  kind: "send" | "fund" | "reward" | "withdrawal" | "tip";
}

interface Deps {
  database: { db: Database };
  chain: { config: { chain: { id: number }; contracts: { rewards: string } } };
}

/** The wallet's latest transactions, newest first (failed and unsent ones left out: they moved nothing). */
export async function walletTransactions(deps: Deps, user: Pick<User, "id" | "githubId">, limit: number): Promise<WalletTransaction[]> {
  const db = deps.database.db;
  const wallet = await walletOfUser(db, user.id);
  if (!wallet) return [];
  const address = wallet.address.toLowerCase();
  const [sent, received, tipsIn] = await Promise.all([
    db
      .select()
      .from(chainTransactions)
      .where(
        and(
          eq(chainTransactions.walletId, wallet.id),
          inArray(chainTransactions.kind, [...OUTGOING_KINDS]),
          inArray(chainTransactions.status, ["sent", "confirmed"]),
        ),
      )
      .orderBy(desc(chainTransactions.createdAt))
      .limit(limit),
    db
      .select()
      .from(chainEvents)
      .where(
        and(
          eq(chainEvents.chainId, deps.chain.config.chain.id),
          or(
            and(eq(chainEvents.name, "BountyPaid"), sql`lower(json_extract(${chainEvents.args}, '$.contributor')) = ${address}`, notASplit),
            and(eq(chainEvents.name, "BountySharePaid"), sql`lower(json_extract(${chainEvents.args}, '$.recipient')) = ${address}`),
            and(eq(chainEvents.name, "PoolWithdrawn"), sql`lower(json_extract(${chainEvents.args}, '$.to')) = ${address}`),
            // A split payout's share held for them until they registered, paid then with payTip.
            and(eq(chainEvents.name, "TipPaid"), sql`lower(json_extract(${chainEvents.args}, '$.recipient')) = ${address}`, paysHeldShare),
          ),
        ),
      )
      .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
      .limit(limit),
    // Tips are transfers between two wallets of the platform: the tip's own record names the recipient.
    receivedTipTransfers(deps, user.githubId, limit),
  ]);
  const mine = toXdcAddress(wallet.address);
  const rewards = toXdcAddress(deps.chain.config.contracts.rewards);
  const out: WalletTransaction[] = sent
    .filter((tx) => tx.txHash)
    .map((tx) => {
      const intent = JSON.parse(tx.intent) as { currency: Currency; amount: string; to?: string };
      const amount = BigInt(intent.amount);
      const isSend = tx.kind.startsWith("send_") || tx.kind.startsWith("tip_");
      return {
        hash: tx.txHash!,
        isIncoming: false,
        tokenSymbol: intent.currency,
        tokenAmount: toDecimalString(amount, DECIMALS[intent.currency]),
        value: intent.currency === "XDC" ? amount.toString() : "0",
        from: mine,
        to: isSend && intent.to ? toXdcAddress(intent.to) : rewards,
        status: tx.status === "confirmed" ? "confirmed" : "pending",
        blockNumber: tx.blockNumber,
        confirmations: tx.confirmations,
        timestamp: (tx.sentAt ?? tx.createdAt).toISOString(),
        kind: tx.kind.startsWith("tip_") ? "tip" : isSend ? "send" : "fund",
      };
    });
  const into: WalletTransaction[] = received.map((event) => {
    const args = JSON.parse(event.args) as { currency: number | string; amount: string };
    const currency = CURRENCY_BY_INDEX[Number(args.currency)] ?? "XDC";
    const amount = BigInt(args.amount);
    return {
      hash: event.txHash,
      isIncoming: true,
      tokenSymbol: currency,
      tokenAmount: toDecimalString(amount, DECIMALS[currency]),
      value: currency === "XDC" ? amount.toString() : "0",
      from: rewards,
      to: mine,
      // The indexer records events of confirmed blocks only.
      status: "confirmed",
      blockNumber: event.blockNumber,
      confirmations: 0,
      timestamp: (event.blockTime ?? event.createdAt).toISOString(),
      kind: event.name === "PoolWithdrawn" ? "withdrawal" : "reward",
    };
  });
  // An escrowed tip's payTip may have been queued by the contract (its caps): pending until the queue runs, then
  // the transaction that ran it is the one that paid.
  const deliveries = await Promise.all(
    tipsIn.map(({ tip, tx }) => (tip.escrowed && tx.status === "confirmed" ? tipDelivery({ database: deps.database }, tip, tx.txHash!) : undefined)),
  );
  const tipped: WalletTransaction[] = tipsIn.map(({ tip, tx }, i) => ({
    hash: deliveries[i]?.paidTxHash ?? tx.txHash!,
    isIncoming: true,
    tokenSymbol: tip.currency,
    // What arrived: the tip less the contract's fee.
    tokenAmount: toDecimalString(tip.amount - tip.fee, DECIMALS[tip.currency]),
    value: tip.currency === "XDC" ? (tip.amount - tip.fee).toString() : "0",
    from: toXdcAddress(tx.fromAddress),
    to: mine,
    // Queued, or dropped by the guardian and back in the escrow (paid again: releaseHeldTips): not arrived yet.
    status: tx.status === "confirmed" && deliveries[i]?.state !== "queued" && deliveries[i]?.state !== "dropped" ? "confirmed" : "pending",
    blockNumber: tx.blockNumber,
    confirmations: tx.confirmations,
    timestamp: (tx.sentAt ?? tx.createdAt).toISOString(),
    kind: "tip",
  }));
  return [...out, ...into, ...tipped].sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, limit);
}

export interface WalletLimits {
  usedAmount: number;
  remainingLimit: number;
  dailyLimit: number;
  resetTime: number | null;
}

/**
 * GET /api/wallet/limits, in the original client's shape (numbers of XDC, `resetTime` epoch ms or null): the
 * wallet owner's funder figure of the daily funding limit (money/limits.ts), the same one the funding and boost
 * paths enforce. A user has one wallet, so per wallet and per funder are the same money; `remainingLimit` is the
 * most their next XDC boost may be, and the most an XDC funding may be unless the repository's own figure is
 * smaller (funding-status says which binds). Sends are not limited and do not count.
 */
export async function walletLimits(deps: { database: { db: Database }; clock: Clock }, user: Pick<User, "id">, now = deps.clock.now()): Promise<WalletLimits> {
  const figure = await limitFigure(deps.database.db, { name: "funder", userId: user.id }, now);
  return {
    usedAmount: Number(toXdcString(figure.used)),
    remainingLimit: Number(toXdcString(figure.remaining)),
    dailyLimit: Number(toXdcString(figure.limit)),
    resetTime: figure.resetsAt?.getTime() ?? null,
  };
}
