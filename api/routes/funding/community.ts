import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { declareRoute, json, ANONYMOUS, SESSION_WRITE, orNull } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { COMMUNITY_STATUSES, CURRENCIES } from "../../../db/schema/index.ts";
import {
  claimCommunityBounty,
  communityBountyById,
  communityLeaderboard,
  createCommunityBounty,
  listCommunityBounties,
  payCommunityBounty,
} from "../../services/funding/community.ts";

/**
 * The original product's community-bounty calls (spec/original-client-contract.md section 12), in its shapes,
 * on this platform's escrow (services/funding/community.ts). Unlike the original: every status filter works,
 * the leaderboard is reachable, a duplicate is 409 and claims are verified with GitHub and paid.
 * GET  /api/community-bounties                 limit (≤100, 20), offset, status, currency, repo, creator -> {bounties,total,limit,offset}
 * GET  /api/community-bounties/leaderboard     limit (≤50, 10)                                           -> {leaderboard}
 * GET  /api/community-bounties/{id}                                                                       -> {bounty}
 * POST /api/community-bounties                 githubRepoOwner, githubRepoName, githubIssueNumber, title, amount, currency, ...  -> 201 {bounty, message}
 * POST /api/community-bounties/{id}/pay        the creator escrows the amount from their wallet         -> {txHash, blockchainBountyId, status, bounty, message}
 * POST /api/community-bounties/{id}/claim      {prNumber, prUrl}: the merged PR's author                  -> {status, bounty, message}
 */
export const COMMUNITY_CREATE_RATE_LIMIT = { name: "community-create", perIp: 10, perUser: 10, windowMs: 3600_000 };
export const COMMUNITY_PAY_RATE_LIMIT = { name: "community-pay", perIp: 20, perUser: 20, windowMs: 15 * 60_000 };
export const COMMUNITY_CLAIM_RATE_LIMIT = { name: "community-claim", perIp: 30, perUser: 30, windowMs: 15 * 60_000 };

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
  status: z.enum(COMMUNITY_STATUSES).optional(),
  currency: z.enum(CURRENCIES).optional(),
  repo: z.string().max(200).optional(),
  creator: z.string().max(39).optional(),
});
const LeaderboardQuery = z.object({ limit: z.coerce.number().int().min(1).max(50).default(10) });
const IdParam = z.object({ id: z.string().max(20) });
const CreateBody = z.object({
  githubRepoOwner: z.string().regex(/^[A-Za-z0-9-]{1,39}$/),
  githubRepoName: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/),
  githubIssueNumber: z.number().int().positive(),
  githubIssueId: z.string().max(300).optional(),
  githubIssueUrl: z.string().url().max(1000),
  title: z.string().min(1).max(500),
  description: z.string().max(5000).optional(),
  amount: z.string().regex(/^\d+(\.\d{1,8})?$/, "digits with up to 8 decimals"),
  currency: z.enum(CURRENCIES).default("USDC"),
});
const ClaimBody = z.object({ prNumber: z.number().int().positive(), prUrl: z.string().max(1000) });

function bountyId(raw: string): number {
  const id = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Invalid bounty ID", message: "Invalid bounty ID" });
  return id;
}

export function communityRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/", validate("query", ListQuery), async (c) => c.json(await listCommunityBounties(ctx, c.req.valid("query"))))
    // "/leaderboard" is matched as the same parameter as "/:id/pay": Hono's fastest router (RegExpRouter) refuses a
    // static segment beside a parameter with a deeper route (the same as /api/repos/details).
    .get("/:id", validate("param", IdParam), async (c) => {
      const id = c.req.valid("param").id;
      if (id !== "leaderboard") return c.json({ bounty: await communityBountyById(ctx, bountyId(id), { publicAnswer: true }) });
      const query = LeaderboardQuery.safeParse(c.req.query());
      if (!query.success) throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Invalid input", message: `limit: ${query.error.issues[0]?.message ?? "invalid"}` });
      return c.json({ leaderboard: await communityLeaderboard(ctx, query.data.limit) });
    })
    .post("/", rateLimit(ctx, COMMUNITY_CREATE_RATE_LIMIT), validate("json", CreateBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      const bounty = await createCommunityBounty(ctx, {
        user,
        owner: body.githubRepoOwner,
        name: body.githubRepoName,
        issueNumber: body.githubIssueNumber,
        title: body.title,
        description: body.description,
        amount: body.amount,
        currency: body.currency,
      });
      return c.json({ bounty, message: "Bounty created: pay it to fund it." }, 201);
    })
    .post("/:id/pay", rateLimit(ctx, COMMUNITY_PAY_RATE_LIMIT), validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      const id = bountyId(c.req.valid("param").id);
      return c.json(await payCommunityBounty(ctx, { user, id, idempotencyKey: await idempotencyKeyFor(ctx, c, user.id) }));
    })
    .post("/:id/claim", rateLimit(ctx, COMMUNITY_CLAIM_RATE_LIMIT), validate("param", IdParam), validate("json", ClaimBody), async (c) => {
      const { user } = requireSession(c);
      const body = c.req.valid("json");
      // prUrl is accepted (the original client sends it) and never stored: the address GitHub reports is.
      return c.json(await claimCommunityBounty(ctx, { user, id: bountyId(c.req.valid("param").id), prNumber: body.prNumber }));
    });
}

const Money8 = z.string().regex(/^\d+\.\d{8}$/);
export const CommunityBountyShape = z
  .object({
    id: z.number().int(), githubRepoOwner: z.string(), githubRepoName: z.string(), githubIssueNumber: z.number().int(), githubIssueId: z.string(), githubIssueUrl: z.string(),
    creatorUserId: z.number().int().nullable(), createdByGithubUsername: z.string(), title: z.string(), description: z.string().nullable(),
    amount: Money8, currency: z.enum(CURRENCIES), baseBountyAmount: Money8, clientFeeAmount: Money8, contributorFeeAmount: Money8, totalPlatformFee: Money8, totalPaidByClient: Money8,
    status: z.enum(COMMUNITY_STATUSES), paymentStatus: z.enum(["pending", "completed", "failed"]), paymentMethod: z.enum(["crypto", "fiat"]).nullable(),
    blockchainBountyId: z.number().int().nullable(), escrowTxHash: z.string().nullable(), escrowDepositedAt: orNull(Timestamp),
    claimedByUserId: z.number().int().nullable(), claimedByGithubUsername: z.string().nullable(), claimedPrNumber: z.number().int().nullable(), claimedPrUrl: z.string().nullable(), claimedAt: orNull(Timestamp),
    payoutTxHash: z.string().nullable(), payoutRecipientAddress: z.string().nullable(), payoutExecutedAt: orNull(Timestamp),
    refundTxHash: z.string().nullable(), refundedAt: orNull(Timestamp), expiresAt: orNull(Timestamp), createdAt: Timestamp, updatedAt: Timestamp,
  })
  .openapi("CommunityBounty");

export const communityApi = [
  declareRoute({
    method: "get", path: "/api/community-bounties", operationId: "listCommunityBounties", tags: ["funding"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "Community bounties (the original client's list), newest first",
    request: { query: ListQuery },
    responses: { 200: json("Bounties", z.object({ bounties: z.array(CommunityBountyShape), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })) },
  }),
  declareRoute({
    method: "get", path: "/api/community-bounties/leaderboard", operationId: "communityBountyLeaderboard", tags: ["funding"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "Claimers of completed community bounties, by count",
    request: { query: LeaderboardQuery },
    responses: { 200: json("Leaderboard", z.object({ leaderboard: z.array(z.object({ githubUsername: z.string(), bountiesCompleted: z.number().int(), currencies: z.object({ XDC: z.string(), ROXN: z.string(), USDC: z.string() }) })) })) },
  }),
  declareRoute({
    method: "get", path: "/api/community-bounties/{id}", operationId: "getCommunityBounty", tags: ["funding"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "One community bounty (400 Invalid bounty ID, 404 Bounty not found)",
    request: { params: IdParam },
    responses: { 200: json("The bounty", z.object({ bounty: CommunityBountyShape })) },
  }),
  declareRoute({
    method: "post", path: "/api/community-bounties", operationId: "createCommunityBounty", tags: ["funding"], security: SESSION_WRITE,
    errors: ["already_paid", "bounty_committed", "bounty_exists", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_unavailable", "invalid_amount", "invalid_repository", "issue_closed", "no_open_bounty",
      "not_an_issue", "not_due", "not_found", "not_ready", "pool_bounty", "rate_limited", "validation_failed", "wallet_required"],
    summary: "A community bounty on an open issue of any public repository, awaiting its creator's payment",
    request: { body: { content: { "application/json": { schema: CreateBody } }, required: true } },
    responses: { 201: json("Created", z.object({ bounty: CommunityBountyShape, message: z.string() })) },
  }),
  declareRoute({
    method: "post", path: "/api/community-bounties/{id}/pay", operationId: "payCommunityBounty", tags: ["funding"], security: SESSION_WRITE,
    errors: ["already_paid", "below_minimum", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_unavailable", "idempotency_conflict", "idempotency_key_required", "insufficient_allowance",
      "insufficient_balance", "invalid_amount", "invalid_expiry", "invalid_repository", "issue_closed", "limit_exceeded", "no_open_bounty",
      "not_an_issue", "not_awaiting_payment", "not_due", "not_found", "not_owner", "not_ready", "pool_bounty", "rate_limited", "validation_failed",
      "wallet_required", "wrong_currency"],
    summary: "The creator escrows the bounty's amount from their wallet (a boost; 0.5 % fee)",
    request: { params: IdParam },
    responses: { 200: json("Funded", z.object({ txHash: z.string(), blockchainBountyId: z.null(), status: z.literal("funded"), bounty: CommunityBountyShape, message: z.string() })) },
  }),
  declareRoute({
    method: "post", path: "/api/community-bounties/{id}/claim", operationId: "claimCommunityBounty", tags: ["funding"], security: SESSION_WRITE,
    errors: ["already_claimed", "already_paid", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_unavailable", "idempotency_conflict", "invalid_repository", "no_open_bounty", "not_due",
      "not_found", "not_ready", "pool_bounty", "pool_busy", "rate_limited", "validation_failed", "wallet_required"],
    summary: "The author of a merged pull request that closes the issue claims the bounty (verified with GitHub), and is paid",
    request: { params: IdParam, body: { content: { "application/json": { schema: ClaimBody } }, required: true } },
    responses: { 200: json("Claimed", z.object({ status: z.literal("claimed"), bounty: CommunityBountyShape, message: z.string() })) },
  }),
];
