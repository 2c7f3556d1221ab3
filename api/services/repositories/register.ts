import { eq } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { repositories, type Repository, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, forbidden, notFound } from "../../errors.ts";
import { repositoryAsUser, type GitHubRepo } from "../../github/repositories.ts";
import { appInstallUrl } from "../../github/app-auth.ts";
import { installationForRepository, upsertInstallation } from "./installations.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { ensurePoolManager } from "../money/access.ts";
import { followRepositoryName } from "./former-names.ts";

/** What the registration answers about the repository (spec: repository details), not the database row. */
export interface RegisteredRepository {
  repoId: number;
  githubRepoId: number;
  githubRepoFullName: string;
  installationId: number | null;
  isPrivate: boolean;
  registeredAt: string;
}

export type RegisterResult =
  | { success: true; message: string; repository: RegisteredRepository }
  | { success: false; installUrl: string; message: string };

export const requiresAdmin = () =>
  new DomainError({ code: ErrorCode.ADMIN_REQUIRED, error: "Requires Admin", message: "You need admin rights on this repository on GitHub to register it." });

/**
 * POST /api/repositories/register. The pool manager must be an admin of the
 * repository on GitHub (checked now, with their token). Without the app
 * installed on it, nothing is registered and the answer carries `installUrl`;
 * the site sends the browser there and resumes afterwards. Registering makes
 * the user's wallet a pool manager of the repository on-chain. Registering
 * again is harmless.
 */
export async function registerRepository(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "changes">, input: { user: User; githubRepoId: number; fullName: string }): Promise<RegisterResult> {
  if (input.user.role !== "poolmanager") throw forbidden("Only pool managers can register repositories.", ErrorCode.ROLE_REQUIRED);
  const repo = await repositoryAsUser(ctx, input.user, input.fullName);
  if (repo.id !== input.githubRepoId) throw notFound("Repository not found.");
  if (!repo.permissions?.admin) throw requiresAdmin();

  const installation = await installationForRepository(ctx, repo.full_name);
  if (!installation) {
    return {
      success: false,
      installUrl: appInstallUrl(ctx, `register:${repo.id}`),
      message: "Install the Issuepool GitHub App on this repository to register it.",
    };
  }
  await upsertInstallation(ctx, installation);

  const now = new Date();
  // Registered again under a new name (a rename whose webhook never came): the old name still leads here.
  await followRepositoryName(ctx.database.db, repo.id, repo.full_name, "changed", now);
  const fields = {
    ...repositoryIdentity(repo),
    stars: repo.stargazers_count,
    forks: repo.forks_count,
    // "" when GitHub detected none: known (github-events/bounty-metadata.ts asks again only for null).
    language: repo.language ?? "",
    installationId: installation.id,
    githubCreatedAt: repo.created_at ? new Date(repo.created_at) : null,
    githubUpdatedAt: repo.updated_at ? new Date(repo.updated_at) : null,
    pushedAt: repo.pushed_at ? new Date(repo.pushed_at) : null,
    updatedAt: now,
  };
  const [repository] = await ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: repo.id, registeredByUserId: input.user.id, registeredAt: now, ...fields })
    .onConflictDoUpdate({ target: repositories.githubRepoId, set: fields })
    .returning();

  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (wallet) await ensurePoolManager(ctx, repo.id, wallet.address as Address);
  ctx.changes.publish(["repositories", `repo:${repo.id}`]);
  return {
    success: true,
    message: "Repository registered successfully",
    repository: {
      repoId: repository!.githubRepoId,
      githubRepoId: repository!.githubRepoId,
      githubRepoFullName: repository!.fullName,
      installationId: repository!.installationId,
      isPrivate: repository!.isPrivate,
      registeredAt: repository!.registeredAt.toISOString(),
    },
  };
}

/** The columns that follow GitHub's name, owner, description and visibility of a repository (registration and the repository webhook). */
export function repositoryIdentity(repo: Pick<GitHubRepo, "full_name" | "name" | "description" | "html_url" | "private"> & { owner: { login: string } }) {
  return {
    fullName: repo.full_name,
    fullNameKey: repo.full_name.toLowerCase(),
    owner: repo.owner.login,
    name: repo.name,
    description: repo.description,
    htmlUrl: repo.html_url,
    isPrivate: repo.private,
  };
}

export async function repositoryByFullName(ctx: DatabaseDeps, fullName: string): Promise<Repository | undefined> {
  const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.fullNameKey, fullName.toLowerCase())).limit(1);
  return repository;
}
