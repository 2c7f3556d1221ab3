import { eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import { encodeFunctionData, type Address } from "viem";
import type { AppContext, ChainSendDeps, DatabaseDeps } from "../../context.ts";
import { repositories, type Repository, type User, type Wallet } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, forbidden, notFound } from "../../errors.ts";
import { repositoryAsUser } from "../../github/repositories.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";

export interface ManagedRepository {
  repository: Repository;
  wallet: Wallet;
}

const repositoryById = preparedQuery((db) => db.select().from(repositories).where(eq(repositories.githubRepoId, sql.placeholder("repoId"))).limit(1).prepare());

export async function registeredRepository(ctx: DatabaseDeps, repoId: number): Promise<Repository> {
  const repository = await repositoryById(ctx.database.db).get({ repoId });
  if (!repository) throw notFound("Repository not found.");
  return repository;
}

/**
 * A registered repository as the caller may read it: a public one for
 * anyone; a private one only for a signed-in user who can see it on GitHub
 * (checked now). Everyone else gets the same 404 as for an unknown id, so
 * the answer does not even say it exists.
 */
export async function visibleRepository(ctx: Pick<AppContext, "env" | "database" | "keyring">, repoId: number, user: User | null | undefined): Promise<Repository> {
  const repository = await registeredRepository(ctx, repoId);
  if (!repository.isPrivate) return repository;
  if (!user) throw notFound("Repository not found.");
  const onGitHub = await repositoryAsUser(ctx, user, repository.fullName);
  if (onGitHub.id !== repository.githubRepoId) throw notFound("Repository not found.");
  return repository;
}

/**
 * What a refusal for missing admin rights names: the action the person tried,
 * so someone setting a bounty is not told about funding. 'fund' keeps the
 * spec's sentence ('You need admin permissions to fund this repository.').
 */
export const ADMIN_ACTIONS = {
  fund: "fund this repository",
  setBounty: "set a bounty on this repository",
  cancelBounty: "cancel a bounty on this repository",
  payBounty: "pay a bounty from this repository",
  withdraw: "withdraw from this repository's pool",
  manage: "manage this repository",
  seeClaimants: "see who registered for this repository's issues",
  openIssues: "open issues in this repository",
} as const;
export type AdminAction = keyof typeof ADMIN_ACTIONS;

export const adminRefusal = (action: AdminAction) => `You need admin permissions to ${ADMIN_ACTIONS[action]}.`;

/**
 * What funding, bounties and payouts require, checked on the server whatever
 * the client shows: the pool manager role, a registered repository whose
 * name matches, admin rights on it verified with GitHub now, and a wallet.
 * `orRegisteredName`: a missing name means the registered one (routes where
 * the spec's client may leave it out). `action` is what the refusal names.
 */
export async function requireManagedRepository(
  ctx: Pick<AppContext, "env" | "database" | "keyring">,
  user: User,
  input: { repoId: number; fullName?: string | null; orRegisteredName?: boolean; action: AdminAction },
): Promise<ManagedRepository> {
  if (user.role !== "poolmanager") throw forbidden("Only pool managers can manage repository funds and bounties.", ErrorCode.ROLE_REQUIRED);
  if (!input.fullName && !input.orRegisteredName) {
    throw new DomainError({ code: ErrorCode.REPOSITORY_MISMATCH, error: "Repository details missing.", message: "Repository details missing." });
  }
  const repository = await registeredRepository(ctx, input.repoId);
  const fullName = input.fullName || repository.fullName;
  if (repository.fullNameKey !== fullName.toLowerCase()) {
    throw new DomainError({ code: ErrorCode.REPOSITORY_MISMATCH, error: "Repository details missing.", message: "The repository name does not match this repository." });
  }
  const onGitHub = await repositoryAsUser(ctx, user, repository.fullName);
  if (onGitHub.id !== repository.githubRepoId) throw notFound("Repository not found.");
  if (!onGitHub.permissions?.admin) throw forbidden(adminRefusal(input.action), ErrorCode.ADMIN_REQUIRED);
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
  return { repository, wallet };
}

/**
 * Makes the wallet a pool manager of the repository on-chain (operator
 * transactions), once: the outbox keys make it idempotent across requests.
 * RepoRewards v2 appoints in two steps when its managerDelay is not zero (on
 * XDC, at least a day): the first call proposes, the same call after the
 * delay appoints. With `wait: false` (funding, where anyone may add money)
 * a proposal still waiting is not an error.
 */
export async function ensurePoolManager(ctx: ChainSendDeps, repoId: number, address: Address, timeoutMs = 20_000, options: { wait?: boolean } = {}): Promise<void> {
  const { chain, outbox } = ctx;
  const read = { address: chain.config.contracts.rewards, abi: RepoRewardsAbi } as const;
  const already = await chain.client.readContract({ ...read, functionName: "isPoolManager", args: [BigInt(repoId), address] });
  if (already) return;
  const readyAt = await chain.client.readContract({ ...read, functionName: "pendingPoolManager", args: [BigInt(repoId), address] });
  const now = BigInt(Math.floor(Date.now() / 1000));
  if (readyAt > 0n && readyAt > now) {
    if (options.wait === false) return;
    throw new DomainError({
      code: ErrorCode.MANAGER_PENDING,
      error: "Pool manager rights pending",
      message: `Your pool manager rights on-chain take effect on ${new Date(Number(readyAt) * 1000).toUTCString()}: the contract makes every new manager wait, so a stolen platform key cannot appoint one at once.`,
    });
  }
  // Per proposal (a manager removed and appointed again proposes anew); a second proposal racing the first is harmless.
  const step = readyAt > 0n ? `appoint:${readyAt}` : `propose:${Math.floor(Date.now() / 60_000)}`;
  const { tx } = await outbox.submitOnce({
    userId: null,
    idempotencyKey: `pool-manager:${repoId}:${address.toLowerCase()}:${step}`,
    request: { repoId, address, step },
    kind: "set_pool_manager",
    githubRepoId: repoId,
    intent: { repoId, manager: address },
    signer: { kind: "operator" },
    to: chain.config.contracts.rewards,
    data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [BigInt(repoId), address] }),
  });
  const settled = await outbox.waitForSettled(tx, timeoutMs);
  if (settled.status !== "confirmed") {
    throw new DomainError({
      code: ErrorCode.CHAIN_BUSY,
      error: "Blockchain Busy",
      message: "Could not set you as pool manager on-chain yet. Please try again in a moment.",
    });
  }
  // A proposal with a delay: appointed later (by this call again).
  if (!(await chain.client.readContract({ ...read, functionName: "isPoolManager", args: [BigInt(repoId), address] })) && options.wait !== false) {
    await ensurePoolManager(ctx, repoId, address, timeoutMs, options);
  }
}
