/** Cash-outs as their owner sees them: one order's view (status, amounts, the provider's reference), and their list. */
import { and, desc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { cashouts, chainTransactions, type CashoutStatus } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";

export interface CashoutView {
  id: string;
  currency: "XDC" | "USDC";
  amount: string;
  fiatAmount: string;
  rate: string;
  providerFee: string;
  platformFee: string;
  gasFee: string;
  upiId: string;
  status: CashoutStatus;
  trigger: "manual" | "auto";
  orderId: string | null;
  depositAddress: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  refundTransactionHash: string | null;
  refundExplorerUrl: string | null;
  payoutReference: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export async function cashoutView(ctx: Pick<AppContext, "database" | "chain">, row: typeof cashouts.$inferSelect): Promise<CashoutView> {
  const [send] = row.sendTransactionId
    ? await ctx.database.db.select({ txHash: chainTransactions.txHash }).from(chainTransactions).where(eq(chainTransactions.id, row.sendTransactionId))
    : [];
  const hash = send?.txHash ?? null;
  const network = ctx.chain.config.network;
  return {
    id: row.id,
    currency: row.currency,
    amount: toDecimalString(row.amount, DECIMALS[row.currency]),
    fiatAmount: row.fiatAmount,
    rate: row.rate,
    providerFee: row.providerFeeInr,
    platformFee: row.platformFeeInr,
    gasFee: toDecimalString(row.gasFee, DECIMALS.XDC),
    upiId: row.upiId,
    status: row.status,
    trigger: row.trigger,
    orderId: row.providerOrderId,
    depositAddress: row.depositAddress ? toXdcAddress(row.depositAddress) : null,
    transactionHash: hash,
    explorerUrl: hash ? explorerTxUrl(network, hash) : null,
    refundTransactionHash: row.refundTxHash,
    refundExplorerUrl: row.refundTxHash ? explorerTxUrl(network, row.refundTxHash) : null,
    payoutReference: row.payoutReference,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** GET /api/wallet/cashouts */
export async function listCashouts(ctx: Pick<AppContext, "database" | "chain">, userId: number, limit: number): Promise<CashoutView[]> {
  const rows = await ctx.database.db.select().from(cashouts).where(eq(cashouts.userId, userId)).orderBy(desc(cashouts.createdAt)).limit(limit);
  return Promise.all(rows.map((row) => cashoutView(ctx, row)));
}

/** GET /api/wallet/cashouts/{id}: another user's cash-out is not found. */
export async function getCashout(ctx: Pick<AppContext, "database" | "chain">, userId: number, id: string): Promise<CashoutView> {
  const [row] = await ctx.database.db.select().from(cashouts).where(and(eq(cashouts.id, id), eq(cashouts.userId, userId)));
  if (!row) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such cash-out." });
  return cashoutView(ctx, row);
}
