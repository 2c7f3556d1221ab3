import { declareRoute, json, OPTIONAL_USER, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Wei } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { Address } from "viem";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { toXdcAddress, parseAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { walletBalances } from "../../services/money/balances.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { IdParam } from "../params.ts";

const ConfirmWalletBody = z.object({ address: z.string().max(64) });

const walletInfoFailed = (cause: unknown) => new DomainError({ code: ErrorCode.WALLET_UNAVAILABLE, error: "Wallet Unavailable", message: "Failed to fetch wallet info", cause });

/**
 * GET  /api/wallet/info                 address, balance (XDC), tokenBalance (ROXN) as integer strings in wei (the spec's
 *                                       "strings, 18 decimal places", as formatEther reads them); beside them xdcBalance,
 *                                       roxnBalance, usdcBalance as decimal strings; empty without a user
 * POST /api/wallet                      confirms the user's wallet address
 * GET  /api/wallet/usdc-balance/{id}    the user's own USDC balance
 */
export function walletRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(async (c, next) => {
      await next();
      c.header("Cache-Control", "private, no-store");
    })
    .get("/info", async (c) => {
      const user = c.get("user");
      const wallet = user ? await walletOfUser(ctx.database.db, user.id) : undefined;
      if (!wallet) return c.json({ address: "", balance: "0", tokenBalance: "0", xdcBalance: "0", roxnBalance: "0", usdcBalance: "0" });
      const balances = await walletBalances(ctx.chain, wallet.address as Address).catch((err) => {
        throw walletInfoFailed(err);
      });
      return c.json({
        address: toXdcAddress(wallet.address),
        balance: balances.xdc.toString(),
        tokenBalance: balances.roxn.toString(),
        xdcBalance: toDecimalString(balances.xdc, DECIMALS.XDC),
        roxnBalance: toDecimalString(balances.roxn, DECIMALS.ROXN),
        usdcBalance: toDecimalString(balances.usdc, DECIMALS.USDC),
      });
    })
    .post("/", validate("json", ConfirmWalletBody), async (c) => {
      // Wallets are custodial and created at registration: this confirms which one is the user's.
      const { user } = requireSession(c);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) {
        throw new DomainError({ code: ErrorCode.REGISTRATION_INCOMPLETE, error: "No wallet", message: "Complete your registration to create your XDC wallet." });
      }
      const given = parseAddress(c.req.valid("json").address);
      if (!given) throw new DomainError({ code: ErrorCode.INVALID_ADDRESS, error: "Invalid address", message: "Enter a valid XDC address (xdc… or 0x…)." });
      if (given !== wallet.address) {
        throw new DomainError({ code: ErrorCode.WALLET_EXISTS, error: "Wallet already set", message: "Your account already has a different wallet address." });
      }
      return c.json({ success: true, address: toXdcAddress(wallet.address) });
    })
    .get("/usdc-balance/:id", validate("param", IdParam), async (c) => {
      const user = requireUser(c);
      // Someone else's balance is not ours to show: 404, as for any other user's resource.
      if (c.req.valid("param").id !== user.id) throw notFound();
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) return c.json({ balance: "0" });
      const balances = await walletBalances(ctx.chain, wallet.address as Address).catch((err) => {
        throw new DomainError({ code: ErrorCode.WALLET_UNAVAILABLE, error: "Wallet Unavailable", message: "Failed to fetch USDC balance", cause: err });
      });
      return c.json({ balance: toDecimalString(balances.usdc, DECIMALS.USDC) });
    });
}

/** GET /api/token/balance: the user's ROXN balance in wei (`balance`, as the spec's clients read it) and as a decimal (`formatted`). */
export function tokenRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().get("/balance", async (c) => {
    c.header("Cache-Control", "private, no-store");
    const user = requireUser(c);
    const wallet = await walletOfUser(ctx.database.db, user.id);
    if (!wallet) return c.json({ balance: "0", formatted: "0" });
    const balances = await walletBalances(ctx.chain, wallet.address as Address).catch((err) => {
      throw walletInfoFailed(err);
    });
    return c.json({ balance: balances.roxn.toString(), formatted: toDecimalString(balances.roxn, DECIMALS.ROXN) });
  });
}

/** Empty strings and "0" without a wallet: the spec's client reads these. */
const WalletInfo = z.object({
  address: z.string().meta({ description: "xdc… form; empty without a user or wallet" }),
  balance: Wei.meta({ description: "XDC in wei" }),
  tokenBalance: Wei.meta({ description: "ROXN in wei" }),
  xdcBalance: Amount,
  roxnBalance: Amount,
  usdcBalance: Amount,
});

export const walletApi = [
  declareRoute({
    method: "get", path: "/api/wallet/info", operationId: "getWalletInfo", tags: ["wallet"], security: OPTIONAL_USER,
    errors: ["chain_unavailable", "wallet_unavailable"],
    summary: "The wallet's address and balances",
    responses: { 200: json("Address and balances", WalletInfo) },
  }),
  declareRoute({
    method: "post", path: "/api/wallet", operationId: "confirmWallet", tags: ["wallet"], security: SESSION_WRITE,
    errors: ["invalid_address", "registration_incomplete", "validation_failed", "wallet_exists"],
    summary: "Confirms the user's (custodial) wallet address",
    request: { body: { content: { "application/json": { schema: ConfirmWalletBody } }, required: true } },
    responses: { 200: json("Confirmed", z.object({ success: z.literal(true), address: z.string() })) },
  }),
  declareRoute({
    method: "get", path: "/api/wallet/usdc-balance/{id}", operationId: "getUsdcBalance", tags: ["wallet"], security: USER,
    errors: ["chain_unavailable", "not_found", "validation_failed", "wallet_unavailable"],
    summary: "The user's own USDC balance (another user's id: 404)",
    request: { params: IdParam },
    responses: { 200: json("The balance", z.object({ balance: Amount })) },
  }),
  declareRoute({
    method: "get", path: "/api/token/balance", operationId: "getRoxnBalance", tags: ["wallet"], security: USER,
    errors: ["chain_unavailable", "wallet_unavailable"],
    summary: "The user's ROXN balance",
    responses: { 200: json("In wei and as a decimal", z.object({ balance: Wei, formatted: Amount })) },
  }),
];
