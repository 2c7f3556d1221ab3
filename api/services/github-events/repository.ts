import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { forgetCached } from "../../github/cache.ts";
import { issuesCacheKey, repoCacheKey } from "../../github/data.ts";
import { repositoryIdentity } from "../repositories/register.ts";

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
 * made private disappears from public pages at once.
 */
export async function handleRepository(ctx: Pick<AppContext, "database" | "changes">, payload: Record<string, unknown>): Promise<WebhookOutcome> {
  const repo = payload.repository as RepoPayload | undefined;
  if (!repo?.id) return "ignored";
  const [registered] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!registered) return "ignored";
  if (payload.action === "deleted") {
    // Gone from GitHub: nothing public remains; funds stay on the contract for the pool manager.
    await ctx.database.db.update(repositories).set({ isPrivate: true, installationId: null, updatedAt: new Date() }).where(eq(repositories.githubRepoId, repo.id));
  } else {
    await ctx.database.db
      .update(repositories)
      .set({ ...repositoryIdentity(repo), updatedAt: new Date() })
      .where(eq(repositories.githubRepoId, repo.id));
  }
  await forgetCached(ctx, repoCacheKey(repo.id));
  await forgetCached(ctx, issuesCacheKey(repo.id));
  ctx.changes.publish(["repositories", `repo:${repo.id}`]);
  return "done";
}
