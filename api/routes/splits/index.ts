import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { ANONYMOUS, declareRoute, IdempotencyHeaders, json, SESSION_WRITE } from "../../openapi/declare.ts";
import { Amount, Timestamp, Token, TransactionResult, TxHash } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { issueSplit, repositorySplits } from "../../services/splits/open.ts";
import { setSplitSharesAsManager } from "../../services/splits/set-shares.ts";
import { returnHeldShare } from "../../services/splits/return-share.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { MAX_SPLIT_PEOPLE } from "../../services/splits/split-command.ts";

/**
 * Shared rewards (api/services/splits): how a co-authored pull request's bounty is shared.
 * GET /api/splits/{repoId}                  the repository's splits (window open, being paid, paid) -> { splits }
 * GET /api/splits/{repoId}/{issueNumber}    one issue's split                                        -> SplitView
 * PUT /api/splits/{repoId}/{issueNumber}    { shares: [{ login, percent }] } the pool manager, during the window -> SplitView
 * POST /api/splits/{repoId}/{issueNumber}/shares/{login}/return   the pool manager returns an unclaimed held share
 *                                           to the repository's pool, 30 days after it was held -> TransactionResult
 */
const RepoParam = z.object({ repoId: z.coerce.number().int().positive() });
const IssueParam = RepoParam.extend({ issueNumber: z.coerce.number().int().positive() });
const ShareParam = IssueParam.extend({ login: z.string().regex(/^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/) });
const SharesBody = z.object({
  shares: z
    .array(z.object({ login: z.string().min(1).max(40), percent: z.string().max(6) }))
    .min(1)
    .max(MAX_SPLIT_PEOPLE),
});

export const SPLIT_WRITE_RATE_LIMIT = { name: "split-write", perIp: 60, perUser: 30, windowMs: 15 * 60_000 };

export function splitRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/:repoId", validate("param", RepoParam), async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ splits: await repositorySplits(ctx, c.req.valid("param").repoId) });
    })
    .get("/:repoId/:issueNumber", validate("param", IssueParam), async (c) => {
      const { repoId, issueNumber } = c.req.valid("param");
      c.header("Cache-Control", "no-store");
      return c.json(await issueSplit(ctx, repoId, issueNumber));
    })
    .put("/:repoId/:issueNumber", rateLimit(ctx, SPLIT_WRITE_RATE_LIMIT), validate("param", IssueParam), validate("json", SharesBody), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber } = c.req.valid("param");
      return c.json(await setSplitSharesAsManager(ctx, { user, repoId, issueNumber, shares: c.req.valid("json").shares }));
    })
    .post("/:repoId/:issueNumber/shares/:login/return", rateLimit(ctx, SPLIT_WRITE_RATE_LIMIT), validate("param", ShareParam), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueNumber, login } = c.req.valid("param");
      return c.json(await returnHeldShare(ctx, { user, repoId, issueNumber, login, idempotencyKey: await idempotencyKeyFor(ctx, c, user.id) }));
    });
}

export const SplitView = z
  .object({
    repoId: z.number().int(),
    issueNumber: z.number().int(),
    pullNumber: z.number().int(),
    author: z.string(),
    currency: Token,
    amount: Amount,
    status: z.enum(["window", "releasing", "released", "superseded"]),
    releaseAt: Timestamp.meta({ description: "When the window closes and the shares are paid" }),
    custom: z.boolean().meta({ description: "Set by the pool manager (false: equal shares, the default)" }),
    shares: z.array(
      z.object({
        login: z.string(),
        githubUserId: z.number().int(),
        percent: z.string().meta({ description: "e.g. \"50\", \"33.33\"" }),
        amount: Amount.meta({ description: "Exact; the rounding remainder (wei) goes to the pull request's author" }),
        isAuthor: z.boolean(),
        status: z.enum(["pending", "held", "paying", "queued", "paid", "returned"]).meta({ description: "held: no wallet yet (in the contract's escrow for their GitHub account once the others were paid; paid to their wallet when they register). queued: the contract delays the payout (over a cap, young money, a new recipient above the threshold). returned: held, never claimed, returned to the repository's pool after 30 days" }),
        returnableAt: z.union([Timestamp, z.null()]).meta({ description: "A held share: from when the pool manager may return it, unclaimed, to the repository's pool (30 days after it was held); null otherwise" }),
        returnable: z.boolean().meta({ description: "returnableAt has come by the chain's clock (the contract's): the pool manager may return the share now" }),
        transactionHash: z.union([TxHash, z.null()]),
        explorerUrl: z.string().nullable(),
      }),
    ),
    unresolved: z.array(z.object({ name: z.string(), email: z.string() })).meta({ description: "Co-author trailers that named no GitHub person: not paid unless the pool manager names them" }),
  })
  .openapi("Split");

export const splitsApi = [
  declareRoute({
    method: "get", path: "/api/splits/{repoId}", operationId: "listRepositorySplits", tags: ["blockchain"], security: ANONYMOUS,
    errors: ["chain_unavailable", "not_found", "validation_failed"],
    summary: "A repository's shared rewards: bounties of co-authored pull requests, in their release window, being paid, or paid",
    request: { params: RepoParam },
    responses: { 200: json("The splits", z.object({ splits: z.array(SplitView) })) },
  }),
  declareRoute({
    method: "get", path: "/api/splits/{repoId}/{issueNumber}", operationId: "getIssueSplit", tags: ["blockchain"], security: ANONYMOUS,
    errors: ["chain_unavailable", "not_found", "validation_failed"],
    summary: "How an issue's bounty is shared among a merged pull request's people (404 when it is not)",
    request: { params: IssueParam },
    responses: { 200: json("The split", SplitView) },
  }),
  declareRoute({
    method: "put", path: "/api/splits/{repoId}/{issueNumber}", operationId: "setIssueSplit", tags: ["blockchain"], security: SESSION_WRITE,
    errors: ["admin_required", "chain_unavailable", "github_sign_in_required", "github_unavailable", "invalid_repository", "invalid_split",
      "not_found", "pool_busy", "rate_limited", "repository_mismatch", "role_required", "split_closed", "validation_failed", "wallet_required"],
    summary: "The pool manager sets the shares during the release window: any GitHub people, percentages summing to 100 (409 once the window is over)",
    request: { params: IssueParam, body: { content: { "application/json": { schema: SharesBody } }, required: true } },
    responses: { 200: json("The split as set", SplitView) },
  }),
  declareRoute({
    method: "post", path: "/api/splits/{repoId}/{issueNumber}/shares/{login}/return", operationId: "returnHeldShare", tags: ["blockchain"], security: SESSION_WRITE,
    errors: ["admin_required", "already_paid", "bounty_settling", "chain_unavailable", "github_sign_in_required", "github_unavailable",
      "idempotency_conflict", "idempotency_key_required", "invalid_repository", "not_due", "not_found", "nothing_held", "pool_busy", "rate_limited",
      "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"],
    summary: "The pool manager returns a share held for a person who never registered to the repository's pool, 30 days after it was held (the contract's refundTip; it can go nowhere else). 409 before then, while it is being paid to its person, or when nothing is held",
    request: { params: ShareParam, headers: IdempotencyHeaders },
    responses: { 200: json("Submitted or confirmed (a replay answers the first result)", TransactionResult) },
  }),
];
