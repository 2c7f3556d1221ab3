import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { declareRoute, IdempotencyHeaders, json, OPTIONAL_USER, orNull, SESSION, SESSION_WRITE } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { CURRENCIES } from "../../../db/schema/index.ts";
import { positiveId } from "../params.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { boostIssue, boostsOfUser, bountyCurrencyOf, cancelOwnBoost, fundersOfIssues, knownRepoId } from "../../services/funding/boosts.ts";
import { fundableIssue } from "../../services/funding/issue-lookup.ts";
import { fundersContractOf } from "../../services/funding/funders-contract.ts";
import { MIN_BOOST } from "../../services/funding/boost-rules.ts";
import { MAX_FUNDING_FEE_BPS } from "../../services/money/rules.ts";
import { allowanceOf, DAILY_FUNDING_LIMIT, limitFigureJson } from "../../services/money/limits.ts";
import { LimitFigure } from "../../openapi/shapes.ts";

/**
 * Boosts (issue 29): anyone signed in with a wallet funds an open issue of any public repository.
 * GET    /api/funding/terms                                      fee (read from the contract), minimums, daily limit (signed in: what is left of it)
 * GET    /api/funding/issues/{owner}/{name}/{issueNumber}        the issue's bounty currency, boosted total and funders
 * POST   /api/funding/issues/{owner}/{name}/{issueNumber}/boosts { currency, amount, anonymous?, expiresAt? } + Idempotency-Key
 * DELETE /api/funding/boosts/{id}                                the funder takes their own boost back (nobody has claimed)
 * GET    /api/funding/my-boosts                                  the signed-in user's boosts, with what happened to each
 */
export const BOOST_RATE_LIMIT = { name: "boost", perIp: 60, perUser: 30, windowMs: 15 * 60_000 };

const IssuePath = z.object({
  owner: z.string().regex(/^[A-Za-z0-9-]{1,39}$/),
  name: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  issueNumber: positiveId,
});
const BoostBody = z.object({
  currency: z.enum(CURRENCIES),
  amount: z.union([z.string().max(80), z.number()]),
  anonymous: z.boolean().optional(),
  expiresAt: z.string().datetime({ offset: true }).nullish(),
});
const BoostIdParam = z.object({ id: positiveId });

export const BoostShape = z
  .object({
    id: z.number().int(),
    funder: z.string().nullable().meta({ description: "GitHub login; null when the funder chose to be anonymous" }),
    anonymous: z.boolean(),
    currency: z.enum(CURRENCIES),
    amount: z.string().meta({ description: "The funder's share, decimal (the fee already taken)" }),
    fee: z.string(),
    status: z.enum(["pending", "active", "refunding", "refunded", "paid", "failed"]),
    refundReason: z.enum(["expired", "cancelled", "not_planned"]).nullable(),
    fundedAt: Timestamp,
    expiresAt: orNull(Timestamp),
  })
  .openapi("Boost");

const FundingShape = z.object({
  currency: z.enum(CURRENCIES).nullable(),
  boosted: z.string().meta({ description: "Sum of the active shares, decimal" }),
  funders: z.array(BoostShape),
});

export function boostRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/terms", async (c) => {
      // The fee is the contract's; when the chain cannot be read the page says funding is unavailable.
      const user = c.get("user");
      const [feeBps, allowance] = await Promise.all([
        fundersContractOf(ctx.chain).feeBps().catch(() => undefined),
        // What the write path allows the caller's next XDC boost (money/limits.ts), for the boost dialog.
        user ? allowanceOf(ctx.database.db, { kind: "boost_xdc", userId: user.id }, ctx.clock.now()) : undefined,
      ]);
      if (user) c.header("Cache-Control", "no-store");
      return c.json({
        available: feeBps !== undefined,
        feeBps: feeBps ?? MAX_FUNDING_FEE_BPS,
        feePercent: ((feeBps ?? MAX_FUNDING_FEE_BPS) / 100).toString(),
        minimums: { XDC: toDecimalString(MIN_BOOST.XDC, 18), ROXN: toDecimalString(MIN_BOOST.ROXN, 18), USDC: toDecimalString(MIN_BOOST.USDC, 6) },
        dailyLimitXdc: toDecimalString(DAILY_FUNDING_LIMIT, 18),
        funderLimit: allowance ? limitFigureJson(allowance.binding) : null,
      });
    })
    .get("/my-boosts", async (c) => {
      const { user } = requireSession(c);
      const explorer = (hash: string | null) => (hash ? explorerTxUrl(ctx.chain.config.network, hash) : null);
      return c.json({
        boosts: (await boostsOfUser(ctx.database.db, user)).map(({ repoId, issueNumber, repository, transactionHash, refundTransactionHash, ...b }) => ({
          ...b,
          repoId,
          issueNumber,
          repository,
          transactionHash,
          explorerUrl: explorer(transactionHash),
          refundTransactionHash,
          refundExplorerUrl: explorer(refundTransactionHash),
        })),
      });
    })
    .delete("/boosts/:id", validate("param", BoostIdParam), async (c) => {
      const { user } = requireSession(c);
      return c.json({ success: true as const, boost: await cancelOwnBoost(ctx, { user, boostId: c.req.valid("param").id }) });
    })
    .get("/issues/:owner/:name/:issueNumber", validate("param", IssuePath), async (c) => {
      const p = c.req.valid("param");
      const repoId = await knownRepoId(ctx.database.db, p.owner, p.name);
      if (!repoId) return c.json({ currency: null, boosted: "0", funders: [] });
      const funding = (await fundersOfIssues(ctx.database.db, repoId, [p.issueNumber])).get(p.issueNumber);
      const current = await bountyCurrencyOf(ctx.database.db, repoId, p.issueNumber);
      const currency = current?.currency ?? funding?.currency ?? null;
      return c.json({ currency, boosted: toDecimalString(funding?.boosted ?? 0n, DECIMALS[currency ?? "XDC"]), funders: funding?.funders ?? [] });
    })
    .post("/issues/:owner/:name/:issueNumber/boosts", rateLimit(ctx, BOOST_RATE_LIMIT), validate("param", IssuePath), validate("json", BoostBody), async (c) => {
      const { user } = requireSession(c);
      const p = c.req.valid("param");
      const body = c.req.valid("json");
      const idempotencyKey = await idempotencyKeyFor(ctx, c, user.id);
      const issue = await fundableIssue(ctx, { owner: p.owner, name: p.name, issueNumber: p.issueNumber, user });
      const result = await boostIssue(ctx, {
        user,
        issue,
        currency: body.currency,
        amount: body.amount,
        anonymous: body.anonymous,
        expiresAt: body.expiresAt ? new Date(body.expiresAt) : null,
        idempotencyKey,
      });
      return c.json({ success: true as const, ...result });
    });
}

export const boostsApi = [
  declareRoute({
    method: "get", path: "/api/funding/terms", operationId: "getFundingTerms", tags: ["funding"], security: OPTIONAL_USER,
    summary: "The fee (read from the contract), the minimum boost per currency and the daily funding limit per funder",
    responses: {
      200: json("The terms", z.object({
        available: z.boolean().meta({ description: "false while the contract cannot be read (the fee shown is then the default)" }),
        feeBps: z.number().int(), feePercent: z.string(),
        minimums: z.object({ XDC: z.string(), ROXN: z.string(), USDC: z.string() }),
        dailyLimitXdc: z.string(),
        funderLimit: orNull(LimitFigure).meta({ description: "Signed in: the caller's own daily limit across pools and boosts, which an XDC boost is checked against; null signed out" }),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/funding/my-boosts", operationId: "getMyBoosts", tags: ["funding"], security: SESSION,
    summary: "The signed-in user's boosts, with what happened to each (refunded and why, paid)",
    responses: {
      200: json("Boosts", z.object({
        boosts: z.array(BoostShape.extend({
          repoId: z.number().int(), issueNumber: z.number().int(),
          repository: z.string().nullable().meta({ description: "owner/name when the repository is registered" }),
          transactionHash: z.string().nullable().meta({ description: "The transaction that funded it (amount + fee left the wallet)" }),
          explorerUrl: z.string().nullable(),
          refundTransactionHash: z.string().nullable().meta({ description: "The transaction that brought the share back, once one did" }),
          refundExplorerUrl: z.string().nullable(),
        })),
      })),
    },
  }),
  declareRoute({
    method: "delete", path: "/api/funding/boosts/{id}", operationId: "cancelBoost", tags: ["funding"], security: SESSION_WRITE,
    errors: ["already_paid", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable", "claim_not_needed",
      "claim_not_verified", "github_unavailable", "idempotency_conflict", "invalid_repository", "no_open_bounty", "not_cancellable", "not_due",
      "not_found", "not_ready", "pool_bounty", "someone_working", "validation_failed", "wallet_required"],
    summary: "Takes the user's own boost back while nobody has claimed the issue (404 for someone else's)",
    request: { params: BoostIdParam },
    responses: { 200: json("Refund on its way", z.object({ success: z.literal(true), boost: BoostShape })) },
  }),
  declareRoute({
    method: "get", path: "/api/funding/issues/{owner}/{name}/{issueNumber}", operationId: "getIssueFunders", tags: ["funding"], security: OPTIONAL_USER,
    errors: ["validation_failed"],
    summary: "An issue's boosted total and funders (anonymous funders without their login)",
    request: { params: IssuePath },
    responses: { 200: json("Funders", FundingShape) },
  }),
  declareRoute({
    method: "post", path: "/api/funding/issues/{owner}/{name}/{issueNumber}/boosts", operationId: "boostIssue", tags: ["funding"], security: SESSION_WRITE,
    errors: ["already_paid", "below_minimum", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_unavailable", "idempotency_conflict", "idempotency_key_required", "insufficient_allowance",
      "insufficient_balance", "invalid_amount", "invalid_expiry", "invalid_repository", "issue_closed", "limit_exceeded", "no_open_bounty",
      "not_an_issue", "not_due", "not_found", "not_ready", "pool_bounty", "rate_limited", "validation_failed", "wallet_required", "wrong_currency"],
    summary: "Adds to an open issue's bounty from the user's wallet (any public repository; the first boost opens a community bounty)",
    request: { params: IssuePath, headers: IdempotencyHeaders, body: { content: { "application/json": { schema: BoostBody } }, required: true } },
    responses: {
      200: json("Boost submitted", z.object({ success: z.literal(true), boost: BoostShape, txHash: z.string().nullable(), communityBountyId: z.number().int().nullable() })),
    },
  }),
];
