import { declareRoute, IdempotencyHeaders, json, OPTIONAL_USER, orNull, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, LimitFigure, Token, TransactionResult, Wei } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { Address } from "viem";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { roxnAllowance, tokenAllowance } from "../../services/money/balances.ts";
import { approveRoxn, approveToken, fundingStatus, fundRepositoryRoxn, fundRepositoryUsdc, fundRepositoryXdc } from "../../services/money/funding.ts";
import { visibleRepository } from "../../services/money/access.ts";
import { withdrawFromPool } from "../../services/money/withdraw.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { RepoParam } from "../params.ts";

const amountField = z.union([z.string().max(80), z.number()]);
const repositoryFullName = z.string().max(200).nullish();
const FundXdcBody = z.object({ amountXdc: amountField, repositoryFullName });
const WithdrawBody = z.object({ currency: z.string().max(10), amount: amountField, repositoryFullName });
const FundRoxnBody = z.object({ roxnAmount: amountField, repositoryFullName });
const FundUsdcBody = z.object({ usdcAmount: amountField, repositoryFullName });
const ApproveBody = z.object({ amount: amountField });

/**
 * POST /api/blockchain/repository/{repoId}/fund            amountXdc, repositoryFullName
 * GET  /api/blockchain/repository/{repoId}/funding-status  the rolling daily limit
 * POST /api/blockchain/fund-roxn/{repoId}                  roxnAmount, repositoryFullName
 * POST /api/blockchain/approve-roxn                        amount
 * GET  /api/blockchain/roxn-allowance                      allowance: wei as an integer string (spec); formatted: decimal
 * POST /api/blockchain/repository/{repoId}/withdraw         currency, amount: unallocated pool money back to the manager's wallet
 * POST /api/blockchain/fund-usdc/{repoId}                  usdcAmount, repositoryFullName   (beyond the spec's calls: USDC pools)
 * POST /api/blockchain/approve-usdc                        amount
 * GET  /api/blockchain/usdc-allowance                      allowance: 10^-6 units as an integer string; formatted: decimal
 */
export function fundingRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .post(
      "/repository/:repoId/fund",
      validate("param", RepoParam),
      validate("json", FundXdcBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        return c.json(
          await fundRepositoryXdc(ctx, {
            user,
            repoId: c.req.valid("param").repoId,
            amountXdc: body.amountXdc,
            repositoryFullName: body.repositoryFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .post(
      "/repository/:repoId/withdraw",
      validate("param", RepoParam),
      validate("json", WithdrawBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        return c.json(
          await withdrawFromPool(ctx, {
            user,
            repoId: c.req.valid("param").repoId,
            currency: body.currency,
            amount: body.amount,
            repositoryFullName: body.repositoryFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .get("/repository/:repoId/funding-status", validate("param", RepoParam), async (c) => {
      const { repoId } = c.req.valid("param");
      await visibleRepository(ctx, repoId, c.get("user"));
      c.header("Cache-Control", "no-store");
      return c.json(await fundingStatus(ctx, repoId, c.get("user")?.id));
    })
    .post(
      "/fund-roxn/:repoId",
      validate("param", RepoParam),
      validate("json", FundRoxnBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        return c.json(
          await fundRepositoryRoxn(ctx, {
            user,
            repoId: c.req.valid("param").repoId,
            roxnAmount: body.roxnAmount,
            repositoryFullName: body.repositoryFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .post("/approve-roxn", validate("json", ApproveBody), async (c) => {
      const { user } = requireSession(c);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
      return c.json(await approveRoxn(ctx, { user, wallet, amount: c.req.valid("json").amount, idempotencyKey: await idempotencyKeyFor(ctx, c, user.id) }));
    })
    .post(
      "/fund-usdc/:repoId",
      validate("param", RepoParam),
      validate("json", FundUsdcBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        return c.json(
          await fundRepositoryUsdc(ctx, {
            user,
            repoId: c.req.valid("param").repoId,
            usdcAmount: body.usdcAmount,
            repositoryFullName: body.repositoryFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .post("/approve-usdc", validate("json", ApproveBody), async (c) => {
      const { user } = requireSession(c);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
      return c.json(await approveToken(ctx, "USDC", { user, wallet, amount: c.req.valid("json").amount, idempotencyKey: await idempotencyKeyFor(ctx, c, user.id) }));
    })
    .get("/usdc-allowance", async (c) => {
      c.header("Cache-Control", "private, no-store");
      const user = requireUser(c);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) return c.json({ allowance: "0", formatted: "0" });
      const allowance = await tokenAllowance(ctx.chain, "USDC", wallet.address as Address);
      return c.json({ allowance: allowance.toString(), formatted: toDecimalString(allowance, DECIMALS.USDC) });
    })
    .get("/roxn-allowance", async (c) => {
      c.header("Cache-Control", "private, no-store");
      const user = requireUser(c);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet) return c.json({ allowance: "0", formatted: "0" });
      const allowance = await roxnAllowance(ctx.chain, wallet.address as Address);
      return c.json({ allowance: allowance.toString(), formatted: toDecimalString(allowance, DECIMALS.ROXN) });
    });
}

const body = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const moneyWrite = <const Id extends string, const P extends string, S extends z.ZodObject, R extends z.ZodType = typeof TransactionResult>(
  operationId: Id, summary: string, path: P, schema: S, errors: readonly ErrorCode[], result?: R, params = true,
) =>
  declareRoute({
    method: "post", path, operationId, tags: ["blockchain"], security: SESSION_WRITE, summary, errors,
    request: { ...(params ? { params: RepoParam } : {}), headers: IdempotencyHeaders, body: body(schema) },
    responses: { 200: json("Submitted or confirmed (a replay answers the first result)", (result ?? TransactionResult) as R) },
  });
const Allowance = json("In the token's smallest unit and as a decimal", z.object({ allowance: Wei, formatted: Amount }));

export const fundingApi = [
  moneyWrite("fundRepositoryXdc", "Funds the repository's pool with XDC (daily limit)", "/api/blockchain/repository/{repoId}/fund", FundXdcBody,
    ["admin_required", "already_paid", "below_minimum", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable",
      "idempotency_conflict", "idempotency_key_required", "insufficient_balance", "insufficient_gas", "invalid_amount", "invalid_repository",
      "limit_exceeded", "manager_pending", "not_found", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued",
      "validation_failed", "wallet_required"]),
  moneyWrite("withdrawFromPool", "Unallocated pool money back to the manager's wallet", "/api/blockchain/repository/{repoId}/withdraw", WithdrawBody,
    ["admin_required", "already_paid", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable", "idempotency_conflict",
      "idempotency_key_required", "insufficient_gas", "invalid_amount", "invalid_currency", "invalid_repository", "manager_pending", "not_found",
      "pool_busy", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"],
    TransactionResult.extend({ currency: Token, amount: Amount })),
  declareRoute({
    method: "get", path: "/api/blockchain/repository/{repoId}/funding-status", operationId: "getFundingStatus", tags: ["blockchain"], security: OPTIONAL_USER,
    errors: ["github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "The rolling 24 h XDC funding limits: the repository's and, signed in, the caller's own as a funder",
    request: { params: RepoParam },
    responses: {
      200: json("The limit: numbers of XDC (the spec's clients call toFixed) and exact decimals beside them", z.object({
        dailyLimit: z.number(), currentTotal: z.number().meta({ description: "The repository's used figure" }),
        remainingLimit: z.number().meta({ description: "What the caller's next XDC funding of this repository may be: the binding figure's remaining" }),
        dailyLimitXdc: Amount, currentTotalXdc: Amount, remainingLimitXdc: Amount,
        windowEndTime: z.string().nullable().meta({ description: "When the binding figure grows again" }),
        limits: z.object({
          repository: LimitFigure,
          funder: orNull(LimitFigure).meta({ description: "The caller's own limit across every pool and boost; null signed out" }),
          binding: z.enum(["repository", "funder"]).meta({ description: "Which figure remainingLimit is" }),
        }),
      })),
    },
  }),
  moneyWrite("fundRepositoryRoxn", "Funds the repository's pool with ROXN", "/api/blockchain/fund-roxn/{repoId}", FundRoxnBody,
    ["admin_required", "already_paid", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable", "idempotency_conflict",
      "idempotency_key_required", "insufficient_allowance", "insufficient_balance", "invalid_amount", "invalid_repository", "manager_pending",
      "not_found", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"]),
  moneyWrite("approveRoxn", "Approves the rewards contract to spend ROXN", "/api/blockchain/approve-roxn", ApproveBody,
    ["already_paid", "chain_unavailable", "idempotency_conflict", "idempotency_key_required", "invalid_amount", "transaction_failed",
      "transaction_queued", "validation_failed", "wallet_required"],
    TransactionResult.extend({ allowance: Wei }), false),
  moneyWrite("fundRepositoryUsdc", "Funds the repository's pool with USDC", "/api/blockchain/fund-usdc/{repoId}", FundUsdcBody,
    ["admin_required", "already_paid", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable", "idempotency_conflict",
      "idempotency_key_required", "insufficient_allowance", "insufficient_balance", "invalid_amount", "invalid_repository", "manager_pending",
      "not_found", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"]),
  moneyWrite("approveUsdc", "Approves the rewards contract to spend USDC", "/api/blockchain/approve-usdc", ApproveBody,
    ["already_paid", "chain_unavailable", "idempotency_conflict", "idempotency_key_required", "invalid_amount", "transaction_failed",
      "transaction_queued", "validation_failed", "wallet_required"],
    TransactionResult.extend({ allowance: Wei }), false),
  declareRoute({
    method: "get", path: "/api/blockchain/usdc-allowance", operationId: "getUsdcAllowance", tags: ["blockchain"], security: USER,
    errors: ["chain_unavailable"],
    summary: "The rewards contract's USDC allowance", responses: { 200: Allowance },
  }),
  declareRoute({
    method: "get", path: "/api/blockchain/roxn-allowance", operationId: "getRoxnAllowance", tags: ["blockchain"], security: USER,
    errors: ["chain_unavailable"],
    summary: "The rewards contract's ROXN allowance", responses: { 200: Allowance },
  }),
];
