/**
 * What the repository page shows of attempts (issue 39): the repository's settings, and for each bounty with attempts,
 * settings of its own or open pull requests: its settings, who holds it and until when, the queue, the applications
 * (notes: for pool managers and the applicant), the open-mode workers, the competing pull requests with their
 * authors' attempt status, and how the last lock ended when a merge by someone else overtook it.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { DatabaseDeps } from "../../context.ts";
import { bounties, bountyAttempts, LIVE_ATTEMPT_STATUSES, pullPreviews, type Repository, type User } from "../../../db/schema/index.ts";
import { DAY_MS, type AttemptSettings } from "../../../lib/attempt-rules.ts";
import { bountySettingsFrom, flaggedLogins, REPOSITORY_DEFAULT, repositoryDefaults, settingsRows } from "./settings.ts";
import { attemptStatusOf } from "./preview.ts";

const settingsOut = (s: AttemptSettings) => ({ mode: s.mode, audience: s.audience, lockDays: Math.round(s.lockMs / DAY_MS) });

export async function attemptsView(ctx: DatabaseDeps, repository: Repository, viewer: User | null | undefined) {
  const db = ctx.database.db;
  const repoId = repository.githubRepoId;
  const manager = viewer?.role === "poolmanager";
  const [open, liveRows, pulls, overtaken] = await Promise.all([
    db.select({ n: bounties.issueNumber }).from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.status, "open"))),
    db.select().from(bountyAttempts).where(and(eq(bountyAttempts.githubRepoId, repoId), inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES]))).orderBy(bountyAttempts.id),
    db.select().from(pullPreviews).where(and(eq(pullPreviews.githubRepoId, repoId), eq(pullPreviews.state, "open"))).orderBy(pullPreviews.pullNumber),
    db.select().from(bountyAttempts).where(and(eq(bountyAttempts.githubRepoId, repoId), eq(bountyAttempts.endReason, "merged_other"))).orderBy(desc(bountyAttempts.id)),
  ]);
  const rows = await settingsRows(ctx, repoId);
  const numbers = new Set<number>([...open.map((b) => b.n), ...liveRows.map((a) => a.issueNumber), ...[...rows.keys()].filter((n) => n !== REPOSITORY_DEFAULT)]);
  for (const p of pulls) for (const n of JSON.parse(p.closes) as number[]) numbers.add(n);
  const issues = [];
  for (const issueNumber of [...numbers].sort((a, b) => a - b)) {
    const on = liveRows.filter((a) => a.issueNumber === issueNumber);
    const own = rows.get(issueNumber);
    const holder = on.find((a) => a.status === "holding");
    const closing = pulls.filter((p) => (JSON.parse(p.closes) as number[]).includes(issueNumber));
    const lastOvertaken = overtaken.find((a) => a.issueNumber === issueNumber && a.heldFrom);
    issues.push({
      issueNumber,
      ...settingsOut(bountySettingsFrom(rows, issueNumber)),
      own: { mode: own?.mode ?? null, audience: own?.audience ?? null, lockDays: own?.lockMs ? Math.round(own.lockMs / DAY_MS) : null },
      holder: holder ? { login: holder.githubLogin, lockedUntil: holder.lockedUntil!.toISOString() } : null,
      queue: on.filter((a) => a.status === "queued").map((a) => a.githubLogin),
      applications: on
        .filter((a) => a.status === "applied")
        .map((a) => ({ login: a.githubLogin, appliedAt: a.createdAt.toISOString(), note: manager || a.userId === viewer?.id ? a.note : null })),
      working: on.filter((a) => a.status === "working").map((a) => a.githubLogin),
      pulls: await Promise.all(closing.map(async (p) => ({ number: p.pullNumber, author: p.authorLogin, attempt: await attemptStatusOf(ctx, repoId, issueNumber, p.authorGithubId), url: `${repository.htmlUrl}/pull/${p.pullNumber}` }))),
      overtaken: lastOvertaken && lastOvertaken.pullNumber !== null ? { holder: lastOvertaken.githubLogin, pullNumber: lastOvertaken.pullNumber } : null,
    });
  }
  const mine = viewer
    ? liveRows
        .filter((a) => a.userId === viewer.id)
        .map((a) => ({
          issueNumber: a.issueNumber,
          status: a.status as (typeof LIVE_ATTEMPT_STATUSES)[number],
          ...(a.status === "queued" ? { place: liveRows.filter((q) => q.issueNumber === a.issueNumber && q.status === "queued").findIndex((q) => q.id === a.id) + 1 } : {}),
          ...(a.lockedUntil && a.status === "holding" ? { lockedUntil: a.lockedUntil.toISOString() } : {}),
        }))
    : [];
  return { defaults: settingsOut(repositoryDefaults(rows)), flagged: manager ? await flaggedLogins(ctx, repoId) : [], issues, mine };
}
