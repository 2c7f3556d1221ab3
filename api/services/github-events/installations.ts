import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { forgetInstallationToken } from "../../github/app-auth.ts";
import { markInstallationDeleted, upsertInstallation, type GitHubInstallation } from "../repositories/installations.ts";

type Payload = Record<string, unknown>;
const ids = (list: unknown) => (Array.isArray(list) ? list.map((r) => Number((r as { id: unknown }).id)).filter(Number.isFinite) : []);

/** installation: created, deleted, suspend, unsuspend, new_permissions_accepted. */
export async function handleInstallation(ctx: Pick<AppContext, "env" | "database" | "changes">, payload: Payload): Promise<WebhookOutcome> {
  const installation = payload.installation as GitHubInstallation | undefined;
  if (!installation?.id || !installation.account) return "ignored";
  if (payload.action === "deleted") {
    forgetInstallationToken(ctx, installation.id);
    await markInstallationDeleted(ctx, installation.id);
    return "done";
  }
  await upsertInstallation(ctx, { ...installation, suspended_at: payload.action === "suspend" ? new Date().toISOString() : (installation.suspended_at ?? null) });
  if (payload.action === "created") await setInstallation(ctx, ids(payload.repositories), installation.id);
  return "done";
}

/** installation_repositories: repositories added to or removed from an installation. */
export async function handleInstallationRepositories(ctx: Pick<AppContext, "database" | "changes">, payload: Payload): Promise<WebhookOutcome> {
  const installation = payload.installation as GitHubInstallation | undefined;
  if (!installation?.id) return "ignored";
  await upsertInstallation(ctx, installation);
  await setInstallation(ctx, ids(payload.repositories_added), installation.id);
  await setInstallation(ctx, ids(payload.repositories_removed), null);
  return "done";
}

/** Links (or unlinks, with null) registered repositories to an installation. */
async function setInstallation(ctx: Pick<AppContext, "database" | "changes">, repoIds: number[], installationId: number | null): Promise<void> {
  if (repoIds.length === 0) return;
  const changed = await ctx.database.db
    .update(repositories)
    .set({ installationId, updatedAt: new Date() })
    .where(inArray(repositories.githubRepoId, repoIds))
    .returning({ id: repositories.githubRepoId });
  if (changed.length) ctx.changes.publish(["repositories", ...changed.map((r) => `repo:${r.id}`)]);
}
