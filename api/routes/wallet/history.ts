import { declareRoute, json, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token, Wei } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { Address } from "viem";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { walletBalances } from "../../services/money/balances.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { walletLimits, walletTransactions } from "../../services/wallets/transactions.ts";
import { IdParam } from "../params.ts";

const Limit = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });

/**
 * The original product's wallet calls (docs/api.md, "Clients of the original product"); every answer private, no-store:
 * GET /api/wallet/multi-currency-balances/{id}   the user's own balances, a bare array [{ currency, network, balance, address }]
 * GET /api/wallet/transactions?limit=10          { transactions: [...] } from the platform's records and the indexer
 * GET /api/wallet/limits                         { usedAmount, remainingLimit, dailyLimit, resetTime } in XDC, epoch ms
 */
export function walletHistoryRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/multi-currency-balances/:id", validate("param", IdParam), async (c) => {
      const user = requireUser(c);
      // Someone else's balances are not ours to show: 404, as for usdc-balance.
      if (c.req.valid("param").id !== user.id) throw notFound();
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) return c.json([]);
      const balances = await walletBalances(ctx.chain, wallet.address as Address).catch(() => {
        throw new DomainError({ code: ErrorCode.WALLET_UNAVAILABLE, error: "Wallet Unavailable", message: "Failed to fetch wallet balances" });
      });
      const address = toXdcAddress(wallet.address);
      const network = ctx.chain.config.network.name;
      return c.json([
        { currency: "XDC" as const, network, balance: toDecimalString(balances.xdc, DECIMALS.XDC), address },
        { currency: "ROXN" as const, network, balance: toDecimalString(balances.roxn, DECIMALS.ROXN), address },
        { currency: "USDC" as const, network, balance: toDecimalString(balances.usdc, DECIMALS.USDC), address },
      ]);
    })
    .get("/transactions", validate("query", Limit), async (c) => {
      const user = requireUser(c);
      return c.json({ transactions: await walletTransactions(ctx, user, c.req.valid("query").limit) });
    })
    .get("/limits", async (c) => {
      const user = requireUser(c);
      return c.json(await walletLimits(ctx, user));
    });
}

export const walletHistoryApi = [
  declareRoute({
    method: "get", path: "/api/wallet/multi-currency-balances/{id}", operationId: "listWalletBalances", tags: ["wallet"], security: USER,
    errors: ["chain_unavailable", "not_found", "validation_failed", "wallet_unavailable"],
    summary: "The user's own balances per currency, a bare array (another user's id: 404; no wallet: empty)",
    request: { params: IdParam },
    responses: {
      200: json("The balances", z.array(z.object({
        currency: Token, network: z.string(), address: z.string().meta({ description: "xdc… form" }),
        balance: Amount.meta({ description: "Whole tokens (USDC with 6 decimals)" }),
      }))),
    },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/transactions", operationId: "listWalletTransactions", tags: ["wallet"], security: USER,
    errors: ["validation_failed"],
    summary: "The wallet's latest transactions: its sends and fundings, rewards and withdrawals it received",
    request: { query: Limit },
    responses: {
      200: json("Newest first", z.object({
        transactions: z.array(z.object({
          hash: z.string(), isIncoming: z.boolean(), tokenSymbol: Token,
          tokenAmount: Amount.meta({ description: "Whole tokens (USDC with 6 decimals)" }),
          value: Wei.meta({ description: "XDC in wei; \"0\" for a token" }),
          from: z.string(), to: z.string(), status: z.enum(["confirmed", "pending"]),
          blockNumber: z.number().int().nullable(), confirmations: z.number().int(), timestamp: Timestamp,
          kind: z.enum(["send", "fund", "reward", "withdrawal", "tip"]),
        })),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/limits", operationId: "getWalletLimits", tags: ["wallet"], security: USER,
    summary: "The wallet's XDC outflow in the rolling 24 h window against the platform's daily limit (informational)",
    responses: {
      200: json("In XDC; resetTime in epoch milliseconds", z.object({
        usedAmount: z.number(), remainingLimit: z.number(), dailyLimit: z.number(), resetTime: z.number().int().nullable(),
      })),
    },
  }),
];
