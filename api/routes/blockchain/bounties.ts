import { Hono } from "hono";
import { z } from "zod";
import type { Address } from "viem";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { idempotencyKeyFor } from "../../middleware/idempotency.ts";
import { badRequest, forbidden } from "../../errors.ts";
import { and, eq, like } from "drizzle-orm";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { bounties, CURRENCIES, githubCache } from "../../../db/schema/index.ts";
import {
  allocateBounty,
  cancelBounty,
  distributeBounty,
  issueBounty,
  issueContributors,
  poolInfo,
  registerContribution,
} from "../../services/money/bounties.ts";
import { awaitingForManager } from "../../services/money/awaiting.ts";
import { ensurePoolManager, requireManagedRepository, visibleRepository } from "../../services/money/access.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { positiveId, RepoIssueParam, RepoParam } from "../params.ts";

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
      validate(
        "json",
        z.object({
          bountyAmount: z.union([z.string().max(80), z.number()]),
          isRoxn: z.boolean().optional(),
          currency: z.enum(CURRENCIES).optional(),
          githubRepoFullName: z.string().max(200).nullish(),
          issueTitle: z.string().max(500).optional(),
          issueUrl: z.string().max(1000).optional(),
        }),
      ),
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
      validate(
        "json",
        z
          .object({ contributorAddress: z.string().max(64).nullish(), contributorLogin: z.string().max(39).nullish(), githubRepoFullName: z.string().max(200).nullish() })
          .refine((b) => Boolean(b.contributorAddress) !== Boolean(b.contributorLogin), { message: "Enter the contributor's XDC address (xdc… or 0x…) or GitHub login." }),
      ),
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
      validate("json", z.object({ githubRepoFullName: z.string().max(200).nullish() })),
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
      validate(
        "json",
        z.object({ role: z.string().max(20).optional(), walletAddress: z.string().max(64).optional(), issueId: positiveId, repoId: positiveId.optional() }),
      ),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        if (body.walletAddress) {
          const own = await walletOfUser(ctx.database.db, user.id);
          if (!own || parseAddress(body.walletAddress) !== own.address) throw forbidden("That wallet is not yours.");
        }
        // The spec's body is role, walletAddress and issueId; without repoId the issue says which repository it is.
        const target = body.repoId ? { repoId: body.repoId, issueNumber: body.issueId } : await issueByReference(ctx, body.issueId);
        return c.json(await registerContribution(ctx, { user, ...target }));
      },
    )
    .post(
      "/repository/:repoId/manager",
      validate("param", RepoParam),
      validate("json", z.object({ walletAddress: z.string().max(64), username: z.string().max(100).optional(), githubId: positiveId.optional() })),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        if ((body.githubId !== undefined && body.githubId !== user.githubId) || (body.username !== undefined && body.username !== user.username)) {
          throw forbidden("You can only make yourself a pool manager.");
        }
        const { repoId } = c.req.valid("param");
        const { wallet, repository } = await requireManagedRepository(ctx, user, { repoId, orRegisteredName: true, action: "manage" });
        if (parseAddress(body.walletAddress) !== wallet.address) throw forbidden("That wallet is not yours.");
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
async function issueByReference(ctx: AppContext, issueId: number): Promise<{ repoId: number; issueNumber: number }> {
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
  throw badRequest(
    withBounty.length > 1 ? "Several repositories have an issue with this number: send repoId as well." : "No such issue is known: send repoId as well.",
  );
}
