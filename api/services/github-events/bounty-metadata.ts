/**
 * What Explore filters bounties by, kept in step with GitHub (issue 38: the demo bounties and those from before had
 * no labels or language, so Explore's label and language filters found nothing for them):
 *
 * - a bounty's labels (bounties.labels: a JSON array of lower-cased names; "[]" when the issue has none, null while
 *   nobody has asked GitHub yet) come with its allocation (the issue as the platform read it) and follow the issue's
 *   `issues` deliveries (labeled, unlabeled, edited: `followIssue`);
 * - a repository's language (repositories.language: GitHub's primary language, "" when GitHub detected none, null
 *   while unknown) comes with its registration and follows every `issues` delivery's repository;
 * - what is still unknown (rows from before, the demo's) is asked once, by `fillBountyMetadata`, which the GitHub
 *   catch-up pass runs on its schedule (at start, then every few minutes): one call per repository without a
 *   language, one per open bounty without labels, through the repository's installation.
 */
import { and, eq, isNotNull, isNull, or } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bounties, repositories, type Repository } from "../../../db/schema/index.ts";
import type { Env } from "../../env.ts";
import type { Logger } from "../../logger.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { labelsColumn } from "../explore/search.ts";

type Label = string | { name?: string | null };
const labelNames = (labels: readonly Label[] | undefined) => (labels ?? []).flatMap((l) => (typeof l === "string" ? [l] : l.name ? [l.name] : []));

/** An `issues` delivery: the bounty's labels and title, and the repository's language, as GitHub says them now. */
export async function followIssue(
  db: Database,
  registered: Pick<Repository, "githubRepoId" | "language">,
  payload: { issue?: { number: number; title?: string; labels?: Label[] }; repository?: { language?: string | null } },
): Promise<boolean> {
  let changed = false;
  const language = payload.repository?.language;
  if (language !== undefined && (language ?? "") !== registered.language) {
    await db.update(repositories).set({ language: language ?? "" }).where(eq(repositories.githubRepoId, registered.githubRepoId));
    changed = true;
  }
  const issue = payload.issue;
  if (issue?.labels) {
    const labels = labelsColumn(labelNames(issue.labels));
    const updated = await db
      .update(bounties)
      .set({ labels, ...(issue.title ? { issueTitle: issue.title } : {}) })
      .where(and(eq(bounties.githubRepoId, registered.githubRepoId), eq(bounties.issueNumber, issue.number)))
      .returning({ issueNumber: bounties.issueNumber });
    changed ||= updated.length > 0;
  }
  return changed;
}

/**
 * Asks GitHub for what is still unknown: the language of registered repositories (with the App installed) that have
 * none yet, and the labels of their open bounties that have none yet. Returns how many rows it filled; a repository
 * GitHub cannot answer for now is left for the next pass.
 */
export async function fillBountyMetadata(deps: { db: Database; log: Logger; env: Pick<Env, "GITHUB_API_URL" | "GITHUB_APP_ID" | "GITHUB_APP_PRIVATE_KEY"> }): Promise<{ repositories: number; bounties: number; repoIds: number[] }> {
  const { db, log } = deps;
  const unknownLanguage = await db
    .select()
    .from(repositories)
    .where(and(isNull(repositories.language), isNotNull(repositories.installationId), eq(repositories.isActive, true)));
  const unlabelled = await db
    .select({ repository: repositories, issueNumber: bounties.issueNumber })
    .from(bounties)
    .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
    .where(and(or(eq(bounties.status, "open"), eq(bounties.status, "queued")), isNull(bounties.labels), isNotNull(repositories.installationId)));
  const byRepo = new Map<number, { repository: Repository; language: boolean; issues: number[] }>();
  for (const repository of unknownLanguage) byRepo.set(repository.githubRepoId, { repository, language: true, issues: [] });
  for (const { repository, issueNumber } of unlabelled) {
    const entry = byRepo.get(repository.githubRepoId) ?? { repository, language: false, issues: [] };
    entry.issues.push(issueNumber);
    byRepo.set(repository.githubRepoId, entry);
  }
  const filled = { repositories: 0, bounties: 0, repoIds: [] as number[] };
  for (const { repository, language, issues } of byRepo.values()) {
    try {
      const client = await installationClient({ env: deps.env as Env }, repository.installationId!);
      const path = `/repos/${encodeFullName(repository.fullName)}`;
      if (language) {
        const repo = await client.get<{ language?: string | null }>(path);
        await db.update(repositories).set({ language: repo.language ?? "" }).where(eq(repositories.githubRepoId, repository.githubRepoId));
        filled.repositories++;
      }
      for (const number of issues) {
        const issue = await client.get<{ labels?: Label[] }>(`${path}/issues/${number}`);
        await db
          .update(bounties)
          .set({ labels: labelsColumn(labelNames(issue.labels)) })
          .where(and(eq(bounties.githubRepoId, repository.githubRepoId), eq(bounties.issueNumber, number), isNull(bounties.labels)));
        filled.bounties++;
      }
      filled.repoIds.push(repository.githubRepoId);
    } catch (err) {
      log.warn("GitHub could not be asked for a repository's language or its bounties' labels: asked again on the next pass", { repoId: repository.githubRepoId, err: (err as Error).message });
    }
  }
  if (filled.repositories || filled.bounties) log.info("labels and languages filled from GitHub", { repositories: filled.repositories, bounties: filled.bounties });
  return filled;
}
