/**
 * The GitHub catch-up pass (issue 24): a payout on merge must not depend on
 * one webhook delivery. GitHub does not redeliver by itself, a delivery can
 * fail for longer than its retry window, and during a GitHub outage it may
 * never be sent at all. So, on a schedule, the platform asks GitHub which
 * issues with an open bounty were closed, and handles each close as its
 * delivery would have been handled (api/services/github-events/issues.ts):
 * a merged fix is paid, an issue closed with no paying pull request awaits
 * the pool manager, one closed as not planned goes back to the pool. Every
 * step is idempotent (per-issue payout key, one awaiting row per
 * allocation), so a close seen both here and by its delivery acts once.
 *
 * One call per repository with open bounties per pass (the closed issues
 * updated since the last pass that got through, or since its oldest open
 * bounty), under a lease so that one process of several asks. A pass that
 * could not reach GitHub keeps its mark: the next one asks again from there.
 */
import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { awaitingDecisions, bounties, repositories, type Repository } from "../../../db/schema/index.ts";
import type { Env } from "../../env.ts";
import type { Logger } from "../../logger.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import type { GitHubIssue } from "../../github/data.ts";
import { takeLease } from "../../workers/lease.ts";
import { Periodic } from "../../workers/periodic.ts";

/** GitHub's `since` is compared with updated_at; a margin covers clocks that disagree a little. */
const CLOCK_MARGIN_MS = 60_000;
const LEASE = "github-catch-up";
const MAX_PAGES = 10;

export type ClosedIssue = Pick<GitHubIssue, "number" | "state_reason" | "updated_at" | "pull_request">;

export interface GitHubCatchUpDeps {
  db: Database;
  log: Logger;
  env: Pick<Env, "GITHUB_API_URL" | "GITHUB_APP_ID" | "GITHUB_APP_PRIVATE_KEY">;
  /** Handles a closed issue as its `issues` delivery would be handled. */
  issueClosed(repository: Repository, issue: ClosedIssue): Promise<unknown>;
  /** The closed issues of a repository updated since `since` (default: GitHub's issues list through the installation). */
  closedIssuesSince?(repository: Repository, since: Date): Promise<ClosedIssue[]>;
  /** After the closes: what else GitHub has to tell (labels and languages still unknown: bounty-metadata.ts). */
  afterPass?(): Promise<unknown>;
  now?: () => number;
}

export class GitHubCatchUp {
  /** repository id -> the start of its last pass that reached GitHub (ms) */
  private readonly checkedUntil = new Map<number, number>();
  private readonly owner = `catch-up:${crypto.randomUUID()}`;
  private readonly loop = new Periodic(
    "github-catch-up",
    () => this.runOnce(),
    (err) => this.deps.log.warn("GitHub catch-up pass failed", { err: (err as Error).message }),
  );
  private intervalMs = 300_000;

  constructor(private readonly deps: GitHubCatchUpDeps) {}

  /** One pass; returns how many closed bountied issues it handled (and how many repositories GitHub could not answer for). */
  async runOnce(): Promise<{ handled: number; unreachable: number }> {
    const { db, log } = this.deps;
    const now = this.deps.now?.() ?? Date.now();
    if (!(await takeLease(db, LEASE, this.owner, Math.max(this.intervalMs, 60_000), now))) return { handled: 0, unreachable: 0 };
    const open = await db
      .select({ repository: repositories, issueNumber: bounties.issueNumber, allocatedTx: bounties.allocatedTx, allocatedAt: bounties.allocatedAt })
      .from(bounties)
      .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
      .where(and(eq(bounties.status, "open"), isNotNull(repositories.installationId)));
    const awaiting = new Set(
      (await db.select().from(awaitingDecisions)).map((a) => `${a.githubRepoId}:${a.issueNumber}:${a.allocatedTx}`),
    );
    const byRepo = new Map<number, { repository: Repository; issues: Set<number>; oldest: number }>();
    for (const row of open) {
      if (awaiting.has(`${row.repository.githubRepoId}:${row.issueNumber}:${row.allocatedTx}`)) continue;
      const entry = byRepo.get(row.repository.githubRepoId) ?? { repository: row.repository, issues: new Set<number>(), oldest: Infinity };
      entry.issues.add(row.issueNumber);
      entry.oldest = Math.min(entry.oldest, row.allocatedAt.getTime());
      byRepo.set(row.repository.githubRepoId, entry);
    }
    let handled = 0;
    let unreachable = 0;
    for (const { repository, issues, oldest } of byRepo.values()) {
      const since = new Date(Math.max(this.checkedUntil.get(repository.githubRepoId) ?? 0, oldest) - CLOCK_MARGIN_MS);
      let allHandled = true;
      let reached = now;
      try {
        const closed = await (this.deps.closedIssuesSince ?? ((r, s) => this.closedIssuesSince(r, s)))(repository, since);
        // A list cut at its page limit: the next pass goes on from its last entry.
        if (closed.length >= MAX_PAGES * 100) reached = Date.parse(closed.at(-1)!.updated_at);
        for (const issue of closed) {
          if (issue.pull_request || !issues.has(issue.number)) continue;
          try {
            await this.deps.issueClosed(repository, issue);
            handled++;
            log.info("GitHub catch-up: a closed bountied issue handled", { repoId: repository.githubRepoId, issue: issue.number });
          } catch (err) {
            allHandled = false;
            log.warn("GitHub catch-up: a closed bountied issue could not be handled yet", { repoId: repository.githubRepoId, issue: issue.number, err: (err as Error).message });
          }
        }
      } catch (err) {
        allHandled = false;
        unreachable++;
        log.warn("GitHub catch-up: GitHub could not be asked about a repository's closed issues", { repoId: repository.githubRepoId, err: (err as Error).message });
      }
      if (allHandled) this.checkedUntil.set(repository.githubRepoId, reached);
    }
    await this.deps.afterPass?.().catch((err) => log.warn("GitHub catch-up: the pass after the closes failed", { err: (err as Error).message }));
    return { handled, unreachable };
  }

  private async closedIssuesSince(repository: Repository, since: Date): Promise<ClosedIssue[]> {
    const client = await installationClient({ env: this.deps.env as Env }, repository.installationId!);
    return client.paginate<ClosedIssue>(
      `/repos/${encodeFullName(repository.fullName)}/issues`,
      { state: "closed", since: since.toISOString(), sort: "updated", direction: "asc" },
      MAX_PAGES,
    );
  }

  start(intervalMs: number): void {
    this.intervalMs = intervalMs;
    this.loop.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
