import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { forgetCached } from "../../github/cache.ts";
import { issuesCacheKey, repoCacheKey } from "../../github/data.ts";
import { repositoryIdentity } from "../repositories/register.ts";
import { followRepositoryName } from "../repositories/former-names.ts";
import { installationForRepository, upsertInstallation } from "../repositories/installations.ts";

interface RepoPayload {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  description: string | null;
  html_url: string;
  owner: { login: string };
}

/**
 * repository: renamed, transferred, privatized, publicized, edited: the
 * registered repository follows GitHub (its id never changes). A repository
 * made private disappears from public pages at once. A renamed or transferred
 * one keeps its former name (issue 39): its old addresses redirect.
 */
export async function handleRepository(ctx: Pick<AppContext, "env" | "database" | "changes">, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const repo = payload.repository as RepoPayload | undefined;
  if (!repo?.id) return "ignored";
  const [registered] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!registered) return "ignored";
  if (payload.action === "deleted") {
    // Gone from GitHub: nothing public remains; funds stay on the contract for the pool manager.
    await ctx.database.db.update(repositories).set({ isPrivate: true, installationId: null, updatedAt: new Date() }).where(eq(repositories.githubRepoId, repo.id));
  } else {
    // A rename or a transfer: the old name is kept, and the addresses shared with it redirect (former-names.ts).
    const move = payload.action === "renamed" ? "renamed" : payload.action === "transferred" ? "transferred" : "changed";
    await followRepositoryName(ctx.database.db, repo.id, repo.full_name, move);
    // A transfer may take the repository out of its installation's reach (or into another's): GitHub says which
    // installation sees it now, and the merge path uses that one (none: the page says it is not managed). GitHub
    // unreachable: the delivery fails and is retried.
    let installation: { installationId: number | null } | undefined;
    if (payload.action === "transferred") {
      const now = await installationForRepository(ctx, repo.full_name);
      if (now) await upsertInstallation(ctx, now);
      installation = { installationId: now?.id ?? null };
    }
    await ctx.database.db
      .update(repositories)
      .set({ ...repositoryIdentity(repo), ...installation, updatedAt: new Date() })
      .where(eq(repositories.githubRepoId, repo.id));
  }
  await forgetCached(ctx, repoCacheKey(repo.id));
  await forgetCached(ctx, issuesCacheKey(repo.id));
  ctx.changes.publish(["repositories", `repo:${repo.id}`]);
  return "done";
}
