import type { AppContext } from "../../context.ts";
import type { User } from "../../../db/schema/index.ts";
import { ErrorCode, forbidden, notFound } from "../../errors.ts";
import { repositoryAsUser } from "../../github/repositories.ts";
import { adminRefusal, registeredRepository } from "../money/access.ts";

/**
 * A repository's webhook endpoints are its pool managers' (issue 30): the role, a registered repository, and
 * admin rights on it verified with GitHub now (no wallet needed: nothing here moves money).
 */
export async function requireRepositoryAdmin(ctx: Pick<AppContext, "database" | "env" | "keyring">, user: User, repoId: number): Promise<void> {
  if (user.role !== "poolmanager") throw forbidden("Only pool managers can add a repository's webhook endpoints.", ErrorCode.ROLE_REQUIRED);
  const repository = await registeredRepository(ctx, repoId);
  const onGitHub = await repositoryAsUser(ctx, user, repository.fullName);
  if (onGitHub.id !== repository.githubRepoId) throw notFound("Repository not found.");
  if (!onGitHub.permissions?.admin) throw forbidden(adminRefusal("manage"), ErrorCode.ADMIN_REQUIRED);
}
