import { and, desc, eq, inArray, lt } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { Env } from "../../env.ts";
import { chainTransactions, onrampTransactions, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { randomToken } from "../../crypto/tokens.ts";
import { walletBalances } from "../money/balances.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { fetchOrderStatus, hostedPageUrl, ONRAMP_NETWORK, type OnrampKind } from "./provider.ts";
import { receiveOnrampWebhook, SALE_ORDER_MAX_AGE_MS } from "./webhook.ts";
import type { OnrampMetadata } from "./metadata.ts";

/**
 * Buying and selling XDC for INR (spec sections 2, 3, 4 and 7). Opening the
 * provider's page records an `initiated` order under a fresh, unguessable
 * merchant reference; the provider's signed webhooks move it on
 * (webhook.ts). The provider learns the reference from the page URL and
 * returns it in every webhook: that, not anything the browser says, ties an
 * order to a user.
 */
export const RETURN_PAGES = ["/wallet", "/vscode/wallet"] as const;
export type ReturnPage = (typeof RETURN_PAGES)[number];
/** The query parameter that marks a return from a sale (the provider keeps it and adds status and orderId). */
export const RETURN_KIND_PARAM = "onramp";

export type { OnrampMetadata };

export async function startOnrampOrder(
  ctx: Pick<AppContext, "env" | "database" | "chain">,
  input: { user: User; kind: OnrampKind; returnTo?: ReturnPage },
): Promise<{ url: string; id: string }> {
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
  if (input.kind === "sell") {
    const balances = await walletBalances(ctx.chain, wallet.address as Address, { fresh: true }).catch(() => {
      throw new DomainError({ code: ErrorCode.CHAIN_UNAVAILABLE, error: "Network unavailable", message: "Could not read your XDC balance. Please try again." });
    });
    if (balances.xdc === 0n) {
      throw new DomainError({ code: ErrorCode.INSUFFICIENT_BALANCE, error: "Insufficient XDC Balance", message: "You have no XDC to withdraw." });
    }
  }
  const type = input.kind === "buy" ? "onramp" : "offramp";
  const id = crypto.randomUUID();
  const merchantReference = `ipr_${randomToken(20)}`;
  const metadata: OnrampMetadata = { transactionType: type };
  await ctx.database.db.insert(onrampTransactions).values({
    id,
    userId: input.user.id,
    type,
    merchantReference,
    walletAddress: wallet.address,
    network: ONRAMP_NETWORK,
    metadata: JSON.stringify(metadata),
  });
  const url = hostedPageUrl(ctx.env, input.kind, {
    walletAddress: toXdcAddress(wallet.address),
    // A sale comes back marked as one, so the notice says "Sale", not "Purchase" (issue 16).
    redirectUrl: `${ctx.env.PUBLIC_URL}${input.returnTo ?? "/wallet"}${input.kind === "sell" ? `?${RETURN_KIND_PARAM}=sell` : ""}`,
    merchantReference,
  });
  return { url, id };
}

/** An on-ramp transaction as the API returns it (spec section 3, plus what the wallet page shows). */
export interface OnrampTransactionView {
  id: string;
  /** XDC bought or sold, once the provider has said; null before. */
  amount: string | null;
  orderId: string | null;
  status: string;
  createdAt: string;
  type: "onramp" | "offramp";
  coin: string;
  fiatAmount: string | null;
  fiatCurrency: string;
  transactionHash: string | null;
  explorerUrl: string | null;
  metadata: { transactionType: "onramp" | "offramp" };
}

/**
 * An order no webhook has moved within the provider's order lifetime (ONRAMP_ORDER_LIFETIME_MINUTES, an hour by
 * default) was abandoned on the provider's page: it is shown as Expired, not Initiated for a day (issues 16 and 38:
 * abandoned orders piled up as Initiated). The provider's later word still moves it forward (STATUS_RANK); a sale is
 * never sent after 24 hours whatever it says (SALE_ORDER_MAX_AGE_MS, webhook.ts).
 */
export const orderLifetimeMs = (env: Pick<Env, "ONRAMP_ORDER_LIFETIME_MINUTES">) => Math.min(env.ONRAMP_ORDER_LIFETIME_MINUTES * 60_000, SALE_ORDER_MAX_AGE_MS);

/**
 * Expires the user's orders still `initiated` after the provider's order lifetime (orderLifetimeMs).
 * Where the provider's order-status call is configured, each is first
 * reconciled with it: its signed answer is applied exactly as a webhook (the
 * provider may have taken the order up and its webhook been lost); an order
 * it never saw, or still only "created", expires. A provider that cannot be
 * asked right now leaves the order for the next read. The update is a
 * compare-and-set, so a webhook arriving meanwhile wins.
 */
export async function expireStaleOrders(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox">, userId: number, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const stale = await db
    .select({ id: onrampTransactions.id, merchantReference: onrampTransactions.merchantReference })
    .from(onrampTransactions)
    .where(and(eq(onrampTransactions.userId, userId), eq(onrampTransactions.status, "initiated"), lt(onrampTransactions.createdAt, new Date(now - orderLifetimeMs(ctx.env)))));
  let expired = 0;
  for (const order of stale) {
    if (ctx.env.ONRAMP_STATUS_URL) {
      try {
        const answer = await fetchOrderStatus(ctx.env, order.merchantReference);
        if (answer.found) await receiveOnrampWebhook(ctx, { rawBody: answer.rawBody ?? "", signature: answer.signature, now });
      } catch (err) {
        ctx.log.warn("on-ramp order status unavailable: the order is left for the next read", { orderId: order.id, err: (err as Error).message });
        continue;
      }
    }
    const [row] = await db
      .update(onrampTransactions)
      .set({ status: "expired", updatedAt: new Date(now) })
      .where(and(eq(onrampTransactions.id, order.id), eq(onrampTransactions.status, "initiated")))
      .returning({ id: onrampTransactions.id });
    if (row) expired++;
  }
  return expired;
}

export async function listOnrampTransactions(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox">, userId: number, limit: number, now = Date.now()): Promise<OnrampTransactionView[]> {
  const db = ctx.database.db;
  await expireStaleOrders(ctx, userId, now);
  const rows = await db
    .select()
    .from(onrampTransactions)
    .where(eq(onrampTransactions.userId, userId))
    .orderBy(desc(onrampTransactions.createdAt))
    .limit(limit);
  const metadata = new Map(rows.map((r) => [r.id, JSON.parse(r.metadata) as OnrampMetadata]));
  // A sale's transaction is the platform's own send; its hash is on the outbox row.
  const sendIds = [...metadata.values()].map((m) => m.sendTransactionId).filter((id): id is string => Boolean(id));
  const sends = sendIds.length
    ? await db.select({ id: chainTransactions.id, txHash: chainTransactions.txHash }).from(chainTransactions).where(inArray(chainTransactions.id, sendIds))
    : [];
  const sendHash = new Map(sends.map((s) => [s.id, s.txHash]));
  return rows.map((row) => {
    const meta = metadata.get(row.id)!;
    const hash = row.txHash ?? (meta.sendTransactionId ? (sendHash.get(meta.sendTransactionId) ?? null) : null);
    return {
      id: row.id,
      amount: row.cryptoAmount,
      orderId: row.orderId,
      status: row.status,
      createdAt: row.createdAt.toISOString(),
      type: row.type,
      coin: row.coin,
      fiatAmount: row.fiatAmount,
      fiatCurrency: row.fiatCurrency,
      transactionHash: hash,
      explorerUrl: hash ? explorerTxUrl(ctx.chain.config.network, hash) : null,
      metadata: { transactionType: row.type },
    };
  });
}
