import { eq, isNotNull } from "drizzle-orm";
import { encodeFunctionData, getAddress, type Address } from "viem";
import type { AppContext } from "../../context.ts";
import { repositories, users, wallets, type Repository } from "../../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { installationClient } from "../../github/app-auth.ts";
import { GitHubApiError } from "../../github/client.ts";
import { encodeFullName } from "../../github/repositories.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";

export interface ManagerReview {
  kept: Address[];
  removed: { address: Address; login: string | null; reason: string }[];
}

/**
 * Asks GitHub (as the app) whether each pool manager the contract lists for
 * the repository still administers it, and removes on-chain (an operator
 * transaction through the outbox) those who do not, or whose address is no
 * platform wallet at all: a maintainer who lost admin rights, or exported
 * their key, keeps no power over the escrow (issue 19, M2).
 */
export async function reviewPoolManagers(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">, repository: Repository): Promise<ManagerReview> {
  const review: ManagerReview = { kept: [], removed: [] };
  if (!repository.installationId) return review;
  const managers = await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "poolManagers",
    args: [BigInt(repository.githubRepoId)],
  });
  if (managers.length === 0) return review;
  const client = await installationClient(ctx, repository.installationId);
  for (const address of managers) {
    const [owner] = await ctx.database.db
      .select({ login: users.username })
      .from(wallets)
      .innerJoin(users, eq(users.id, wallets.userId))
      .where(eq(wallets.address, getAddress(address)))
      .limit(1);
    let reason: string | null = null;
    if (!owner) {
      reason = "not a platform wallet";
    } else {
      try {
        const { permission } = await client.get<{ permission: string }>(
          `/repos/${encodeFullName(repository.fullName)}/collaborators/${encodeURIComponent(owner.login)}/permission`,
        );
        if (permission !== "admin") reason = `GitHub permission is now ${permission}`;
      } catch (err) {
        if (!(err instanceof GitHubApiError && err.status === 404)) throw err;
        reason = "no longer a collaborator";
      }
    }
    if (!reason) {
      review.kept.push(address);
      continue;
    }
    await ctx.outbox.submitOnce({
      userId: null,
      // Per removal: appointed again later, the manager can be removed again.
      idempotencyKey: `remove-manager:${repository.githubRepoId}:${address.toLowerCase()}:${Math.floor(Date.now() / 60_000)}`,
      request: { repoId: repository.githubRepoId, address, reason },
      kind: "remove_pool_manager",
      githubRepoId: repository.githubRepoId,
      intent: { repoId: repository.githubRepoId, manager: address, login: owner?.login ?? null, reason },
      signer: { kind: "operator" },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "removePoolManager", args: [BigInt(repository.githubRepoId), address] }),
    });
    ctx.log.info("pool manager removed on-chain: no admin rights on GitHub any more", { repoId: repository.githubRepoId, manager: address, login: owner?.login, reason });
    review.removed.push({ address, login: owner?.login ?? null, reason });
  }
  if (review.removed.length) ctx.changes.publish([`repo:${repository.githubRepoId}`]);
  return review;
}

/** member (a collaborator's permission changed) and organization (member_removed): review that repository's, or that organisation's, managers. */
export async function handleMembershipChange(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">, event: string, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const db = ctx.database.db;
  if (event === "member") {
    const repo = payload.repository as { id?: number } | undefined;
    if (!repo?.id) return "ignored";
    const [repository] = await db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
    if (!repository) return "ignored";
    await reviewPoolManagers(ctx, repository);
    return "done";
  }
  const org = (payload.organization as { login?: string } | undefined)?.login;
  if (!org || (payload.action !== "member_removed" && payload.action !== "member_added")) return "ignored";
  for (const repository of await db.select().from(repositories).where(eq(repositories.owner, org))) await reviewPoolManagers(ctx, repository);
  return "done";
}

/** The periodic check: every registered repository with the app, in turn. */
export async function reviewAllPoolManagers(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "changes">): Promise<void> {
  for (const repository of await ctx.database.db.select().from(repositories).where(isNotNull(repositories.installationId))) {
    try {
      await reviewPoolManagers(ctx, repository);
    } catch (err) {
      ctx.log.warn("pool manager review failed", { repoId: repository.githubRepoId, err: (err as Error).message });
    }
  }
}
