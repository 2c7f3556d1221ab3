import { declareRoute, IdempotencyHeaders, json, OPTIONAL_USER, SESSION, SESSION_WRITE } from "../../openapi/declare.ts";
import { Amount, BountyObject, Timestamp, Token, TransactionResult } from "../../openapi/shapes.ts";
import { AWAITING_REASONS } from "../../../db/schema/bounties.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { Address } from "viem";
import type { AppBindings, AppContext, DatabaseDeps } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { ErrorCode, forbidden, refused } from "../../errors.ts";
import { and, eq, like } from "drizzle-orm";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { bounties, CURRENCIES, githubCache } from "../../../db/schema/index.ts";
import { allocateBounty } from "../../services/money/bounty-allocate.ts";
import { cancelBounty } from "../../services/money/bounty-cancel.ts";
import { distributeBounty } from "../../services/money/bounty-release.ts";
import { issueBounty, issueContributors, poolInfo } from "../../services/money/bounty-read.ts";
import { registerContribution } from "../../services/money/bounty-register.ts";
import { awaitingForManager } from "../../services/money/awaiting.ts";
import { ensurePoolManager, requireManagedRepository, visibleRepository } from "../../services/money/access.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { positiveId, RepoIssueParam, RepoParam } from "../params.ts";
import { MAX_APPLICATION_NOTE } from "../../../lib/attempt-rules.ts";
import { AttemptStanding } from "../attempts/schemas.ts";

const AllocateBody = z.object({
  bountyAmount: z.union([z.string().max(80), z.number()]),
  isRoxn: z.boolean().optional(),
  currency: z.enum(CURRENCIES).optional(),
  githubRepoFullName: z.string().max(200).nullish(),
  issueTitle: z.string().max(500).optional(),
  issueUrl: z.string().max(1000).optional(),
});
const DistributeBody = z
  .object({ contributorAddress: z.string().max(64).nullish(), contributorLogin: z.string().max(39).nullish(), githubRepoFullName: z.string().max(200).nullish() })
  .refine((b) => Boolean(b.contributorAddress) !== Boolean(b.contributorLogin), { message: "Enter the contributor's XDC address (xdc… or 0x…) or GitHub login." });
const CancelBody = z.object({ githubRepoFullName: z.string().max(200).nullish() });
const ContributeBody = z.object({
  role: z.string().max(20).optional(),
  walletAddress: z.string().max(64).optional(),
  issueId: positiveId,
  repoId: positiveId.optional(),
  /** Beyond the spec (issue 39): an application's short note, for a bounty in application mode. */
  note: z.string().max(MAX_APPLICATION_NOTE).optional(),
});
const ManagerBody = z.object({ walletAddress: z.string().max(64), username: z.string().max(100).optional(), githubId: positiveId.optional() });

/**
 * POST /api/blockchain/allocate-bounty/{repoId}/{issueId}   bountyAmount, isRoxn (or currency), githubRepoFullName, issueTitle, issueUrl
 * GET  /api/blockchain/issue-bounty/{repoId}/{issueId}      isRoxn, xdcAmount, roxnAmount; 404 when none
 * GET  /api/blockchain/pool-info/{repoId}                   pools and bounties (each with its state: open, claimed, awaiting, held, paid)
 * GET  /api/blockchain/awaiting-decisions                   (beyond the spec) bounties of the user's repositories awaiting their decision
 * POST /api/blockchain/distribute-bounty/{repoId}/{issueId} contributorAddress, or contributorLogin (any GitHub user: held
 *                                                           for them when they have no wallet yet)
 * POST /api/blockchain/cancel-bounty/{repoId}/{issueId}     (beyond the spec) back to the pool while unclaimed
 * GET  /api/blockchain/issue-claimants/{repoId}/{issueId}   (beyond the spec) who registered for it, with their wallets: the
 *                                                           pool manager's choices when releasing a bounty by hand
 * POST /api/blockchain/register                             Contribute: role, walletAddress, issueId, repoId
 * POST /api/blockchain/repository/{repoId}/manager          walletAddress, username, githubId
 * The {issueId} of these paths is the GitHub issue number.
 */
export function bountyRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/issue-claimants/:repoId/:issueId", validate("param", RepoIssueParam), async (c) => {
      const { user } = requireSession(c);
      const { repoId, issueId } = c.req.valid("param");
      // Their wallet addresses are the pool manager's business (the one who pays): the same check as paying.
      await requireManagedRepository(ctx, user, { repoId, orRegisteredName: true, action: "seeClaimants" });
      c.header("Cache-Control", "private, no-store");
      const claimants = await issueContributors(ctx, repoId, issueId);
      return c.json({
        claimants: claimants.filter((x) => x.address).map((x) => ({ username: x.username, address: toXdcAddress(x.address!) })),
      });
    })
    .post(
      "/allocate-bounty/:repoId/:issueId",
      validate("param", RepoIssueParam),
      validate("json", AllocateBody),
      async (c) => {
        const { user } = requireSession(c);
        const { repoId, issueId } = c.req.valid("param");
        const body = c.req.valid("json");
        return c.json(
          await allocateBounty(ctx, {
            user,
            repoId,
            issueNumber: issueId,
            bountyAmount: body.bountyAmount,
            currency: body.currency ?? (body.isRoxn ? "ROXN" : "XDC"),
            githubRepoFullName: body.githubRepoFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .get("/awaiting-decisions", async (c) => {
      const { user } = requireSession(c);
      c.header("Cache-Control", "private, no-store");
      return c.json(await awaitingForManager(ctx, user.id));
    })
    .get("/issue-bounty/:repoId/:issueId", validate("param", RepoIssueParam), async (c) => {
      const { repoId, issueId } = c.req.valid("param");
      const repository = await visibleRepository(ctx, repoId, c.get("user"));
      c.header("Cache-Control", repository.isPrivate ? "private, no-store" : "public, max-age=60");
      return c.json(await issueBounty(ctx, repoId, issueId));
    })
    .get("/pool-info/:repoId", validate("param", RepoParam), async (c) => {
      const { repoId } = c.req.valid("param");
      await visibleRepository(ctx, repoId, c.get("user"));
      c.header("Cache-Control", "no-store");
      return c.json(await poolInfo(ctx, repoId));
    })
    .post(
      "/distribute-bounty/:repoId/:issueId",
      validate("param", RepoIssueParam),
      validate("json", DistributeBody),
      async (c) => {
        const { user } = requireSession(c);
        const { repoId, issueId } = c.req.valid("param");
        const body = c.req.valid("json");
        return c.json(
          await distributeBounty(ctx, {
            user,
            repoId,
            issueNumber: issueId,
            contributorAddress: body.contributorAddress,
            contributorLogin: body.contributorLogin,
            githubRepoFullName: body.githubRepoFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .post(
      "/cancel-bounty/:repoId/:issueId",
      validate("param", RepoIssueParam),
      validate("json", CancelBody),
      async (c) => {
        const { user } = requireSession(c);
        const { repoId, issueId } = c.req.valid("param");
        return c.json(
          await cancelBounty(ctx, {
            user,
            repoId,
            issueNumber: issueId,
            githubRepoFullName: c.req.valid("json").githubRepoFullName,
            idempotencyKey: await idempotencyKeyFor(ctx, c, user.id),
          }),
        );
      },
    )
    .post(
      "/register",
      validate("json", ContributeBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        if (body.walletAddress) {
          const own = await walletOfUser(ctx.database.db, user.id);
          if (!own || parseAddress(body.walletAddress) !== own.address) throw forbidden("That wallet is not yours.", ErrorCode.NOT_OWNER);
        }
        // The spec's body is role, walletAddress and issueId; without repoId the issue says which repository it is.
        const target = body.repoId ? { repoId: body.repoId, issueNumber: body.issueId } : await issueByReference(ctx, body.issueId);
        return c.json(await registerContribution(ctx, { user, ...target, note: body.note }));
      },
    )
    .post(
      "/repository/:repoId/manager",
      validate("param", RepoParam),
      validate("json", ManagerBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        if ((body.githubId !== undefined && body.githubId !== user.githubId) || (body.username !== undefined && body.username !== user.username)) {
          throw forbidden("You can only make yourself a pool manager.", ErrorCode.NOT_OWNER);
        }
        const { repoId } = c.req.valid("param");
        const { wallet, repository } = await requireManagedRepository(ctx, user, { repoId, orRegisteredName: true, action: "manage" });
        if (parseAddress(body.walletAddress) !== wallet.address) throw forbidden("That wallet is not yours.", ErrorCode.NOT_OWNER);
        await ensurePoolManager(ctx, repository.githubRepoId, wallet.address as Address);
        return c.json({ success: true, message: "You are a pool manager of this repository on-chain." });
      },
    );
}

/**
 * The repository and number of an issue named only by `issueId` (POST /api/blockchain/register from the
 * spec's clients): GitHub's issue id, as the issue lists the platform has read carry it, or else an issue
 * number that has a bounty in exactly one registered repository. Anything ambiguous asks for repoId.
 */
async function issueByReference(ctx: DatabaseDeps, issueId: number): Promise<{ repoId: number; issueNumber: number }> {
  const db = ctx.database.db;
  const lists = await db
    .select({ key: githubCache.key, body: githubCache.body })
    .from(githubCache)
    .where(and(like(githubCache.key, "repo:%:issues"), like(githubCache.body, `%"id":${issueId},%`)));
  for (const list of lists) {
    const issue = (JSON.parse(list.body) as { id: number; number: number }[]).find((i) => i.id === issueId);
    const repoId = Number(list.key.split(":")[1]);
    if (issue && Number.isSafeInteger(repoId)) return { repoId, issueNumber: issue.number };
  }
  const withBounty = await db.selectDistinct({ repoId: bounties.githubRepoId }).from(bounties).where(eq(bounties.issueNumber, issueId));
  if (withBounty.length === 1) return { repoId: withBounty[0]!.repoId, issueNumber: issueId };
  throw refused(
    ErrorCode.AMBIGUOUS_ISSUE,
    withBounty.length > 1 ? "Several repositories have an issue with this number: send repoId as well." : "No such issue is known: send repoId as well.",
  );
}

const jsonBody = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const bountyWrite = <const Id extends string, const P extends string, S extends z.ZodObject>(operationId: Id, summary: string, path: P, schema: S, errors: readonly ErrorCode[]) =>
  declareRoute({
    method: "post", path, operationId, tags: ["blockchain"], security: SESSION_WRITE, summary, errors,
    request: { params: RepoIssueParam, headers: IdempotencyHeaders, body: jsonBody(schema) },
    responses: { 200: json("Submitted or confirmed (a replay answers the first result)", TransactionResult) },
  });

export const bountiesApi = [
  declareRoute({
    method: "get", path: "/api/blockchain/issue-claimants/{repoId}/{issueId}", operationId: "listIssueClaimants", tags: ["blockchain"], security: SESSION,
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "repository_mismatch",
      "role_required", "validation_failed", "wallet_required"],
    summary: "Who registered for an issue, with their wallets (the pool manager's choices when releasing by hand)",
    request: { params: RepoIssueParam },
    responses: { 200: json("The claimants", z.object({ claimants: z.array(z.object({ username: z.string(), address: z.string() })) })) },
  }),
  bountyWrite("allocateBounty", "Sets a bounty on an issue from the pool (final)", "/api/blockchain/allocate-bounty/{repoId}/{issueId}", AllocateBody,
    ["admin_required", "already_paid", "below_minimum", "bounty_exists", "chain_unavailable", "github_sign_in_required", "github_unavailable",
      "idempotency_conflict", "idempotency_key_required", "invalid_amount", "invalid_repository", "issue_closed", "not_an_issue", "not_found",
      "pool_busy", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"]),
  declareRoute({
    method: "get", path: "/api/blockchain/issue-bounty/{repoId}/{issueId}", operationId: "getIssueBounty", tags: ["public"], security: OPTIONAL_USER,
    errors: ["github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    "x-stability": "stable", "x-since-version": "1",
    summary: "An issue's bounty (404 when none)",
    request: { params: RepoIssueParam },
    responses: { 200: json("The bounty", BountyObject) },
  }),
  declareRoute({
    method: "get", path: "/api/blockchain/pool-info/{repoId}", operationId: "getPoolInfo", tags: ["public"], security: OPTIONAL_USER,
    errors: ["github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    "x-stability": "stable", "x-since-version": "1",
    summary: "A repository's unallocated pools and its bounties",
    request: { params: RepoParam },
    responses: {
      200: json("Pools and bounties", z.object({ xdcPoolRewards: Amount, roxnPoolRewards: Amount, usdcPoolRewards: Amount, issues: z.array(BountyObject) })),
    },
  }),
  declareRoute({
    method: "post", path: "/api/blockchain/distribute-bounty/{repoId}/{issueId}", operationId: "distributeBounty", tags: ["blockchain"], security: SESSION_WRITE,
    errors: ["admin_required", "already_paid", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_sign_in_required", "github_unavailable", "idempotency_conflict", "idempotency_key_required",
      "invalid_address", "invalid_recipient", "invalid_repository", "no_open_bounty", "not_due", "not_found", "not_ready", "pool_bounty",
      "pool_busy", "repository_mismatch", "role_required", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"],
    summary: "Pays an open bounty (also one awaiting the decision) to a registered contributor's wallet or a GitHub login, once; held for a login without a wallet",
    request: { params: RepoIssueParam, headers: IdempotencyHeaders, body: jsonBody(DistributeBody) },
    responses: {
      200: json(
        "Submitted or confirmed (a replay answers the first result), or held for a GitHub user without a wallet",
        z.union([TransactionResult, z.object({ status: z.literal("held"), heldFor: z.string(), message: z.string(), transactionHash: z.null(), explorerUrl: z.null() })]),
      ),
    },
  }),
  declareRoute({
    method: "get", path: "/api/blockchain/awaiting-decisions", operationId: "listAwaitingDecisions", tags: ["blockchain"], security: SESSION,
    summary: "Bounties of the user's repositories awaiting their decision (release or cancel)",
    responses: {
      200: json(
        "The bounties",
        z.object({
          bounties: z.array(
            z.object({
              repoId: z.number().int(), repositoryFullName: z.string(), issueNumber: z.number().int(), issueTitle: z.string().nullable(), issueUrl: z.string().nullable(),
              currency: Token, amount: Amount, reason: z.enum(AWAITING_REASONS), since: Timestamp,
            }),
          ),
        }),
      ),
    },
  }),
  bountyWrite("cancelBounty", "Returns an unclaimed bounty to the pool", "/api/blockchain/cancel-bounty/{repoId}/{issueId}", CancelBody,
    ["admin_required", "already_paid", "bounty_committed", "bounty_held", "bounty_settling", "bounty_shared", "chain_unavailable",
      "claim_not_needed", "claim_not_verified", "github_sign_in_required", "github_unavailable", "idempotency_conflict", "idempotency_key_required",
      "invalid_repository", "no_open_bounty", "no_pool_share", "not_due", "not_found", "not_ready", "pool_bounty", "pool_busy", "refund_requested",
      "repository_mismatch", "role_required", "someone_working", "transaction_failed", "transaction_queued", "validation_failed", "wallet_required"]),
  declareRoute({
    method: "post", path: "/api/blockchain/register", operationId: "registerContribution", tags: ["blockchain"], security: SESSION_WRITE,
    errors: ["already_paid", "ambiguous_issue", "application_note_required", "attempt_limit", "github_unavailable", "humans_only", "idempotency_conflict", "invalid_repository", "issue_closed", "newcomer_attempt_limit", "not_an_issue", "not_found", "not_owner", "role_required", "validation_failed", "wallet_required"],
    summary: "Contribute: registers the contributor for an issue",
    request: { body: jsonBody(ContributeBody) },
    responses: {
      200: json(
        "Registered (the spec's answer); `attempt` says where the attempt stands on an exclusive or application bounty (issue 39)",
        z.object({ success: z.literal(true), message: z.string(), walletAddress: z.string(), attempt: AttemptStanding.optional() }),
      ),
    },
  }),
  declareRoute({
    method: "post", path: "/api/blockchain/repository/{repoId}/manager", operationId: "becomePoolManager", tags: ["blockchain"], security: SESSION_WRITE,
    errors: ["admin_required", "already_paid", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable",
      "idempotency_conflict", "invalid_repository", "manager_pending", "not_found", "not_owner", "repository_mismatch", "role_required",
      "validation_failed", "wallet_required"],
    summary: "Makes the user's wallet a pool manager of the repository on-chain",
    request: { params: RepoParam, body: jsonBody(ManagerBody) },
    responses: { 200: json("Done", z.object({ success: z.literal(true), message: z.string() })) },
  }),
];
