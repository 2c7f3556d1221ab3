import { and, asc, eq, gt, inArray, isNotNull, lt, notExists, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { digestOptOuts, digestRuns, savedSearches, users, type SavedSearch } from "../../db/schema/index.ts";
import { randomToken } from "../crypto/tokens.ts";
import { isRefusal } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { digestMail, type DigestSection, type SkippedSearch } from "../mail/digest.ts";
import type { Mailer } from "../mail/mailer.ts";
import { matchedAmountText, matchingBounties, parseSearch, type MatchedBounty } from "../services/alerts/search.ts";
import { unsubscribeToken } from "../services/alerts/saved-searches.ts";
import { overdueReviewsFor, poolManagersWithOverdueReviews } from "../services/reviews/reminders.ts";
import { releaseLease, takeLease } from "./lease.ts";
import { Periodic } from "./periodic.ts";
import type { BackgroundWorker } from "./ports.ts";

/**
 * The daily digest of saved searches (issue 30), a durable job: from DIGEST_HOUR_UTC each day, every user with a
 * digest-enabled search and an e-mail address gets one mail listing the bounties allocated since their last
 * digest, or nothing when there are none. Idempotent per subscriber per day: a `digest_runs` row (user, day) is
 * claimed before the mail goes to the mailer, so a crash or a second process never sends that day's digest twice;
 * the searches' cursors (`notified_until`) move only once the mail is out, so what a lost digest would have said
 * comes in the next one. One process builds at a time (the `digest` lease); matches are computed once per
 * distinct search and cursor in a pass, and mails are handed to the mailer a few at a time.
 *
 * One bad saved search never costs its owner the digest (issue 36): a search that cannot be run is skipped and
 * logged, the others are sent. A search the platform now refuses (a query stored before a rule, such as the one
 * against control characters, existed) is told to its owner in that day's digest (sent for it even when nothing
 * else is new) and its digest turned off, so it is told once; a search that failed for another reason (the
 * database busy) keeps its cursor and is tried again the next day.
 *
 * A pool manager's digest also lists their repositories' bountied pull requests waiting past the review deadline
 * (issue 39); a pool manager with such a pull request and no saved search gets a digest for it alone.
 */
export const DIGEST_LEASE_MS = 120_000;
/** Bounties listed per search; the rest are counted ("and 12 more"). */
export const DIGEST_LIST_SIZE = 10;
/** How far behind the pass's start a digest stops (see `pass`). */
export const DIGEST_SETTLE_MS = 10 * 60_000;
/** Subscribers claimed and recorded together. */
const BATCH = 500;

export interface DigestDeps {
  db: Database;
  log: Logger;
  mailer: Mailer;
  appSecret: Uint8Array;
  publicUrl: string;
  hourUtc: number;
  /** Mails handed to the mailer at once. */
  concurrency?: number;
  now?: () => number;
}

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class DigestWorker implements BackgroundWorker {
  private readonly owner = `digest-${randomToken(8)}`;
  private readonly loop = new Periodic(
    "digest",
    () => this.runOnce(),
    (err) => this.deps.log.warn("digest pass failed", { err: (err as Error).message }),
  );

  constructor(private readonly deps: DigestDeps) {}

  /**
   * Sends today's digests still due (none before the configured hour); returns how many users it handled. `asOf`:
   * as of that moment, whatever its hour (the development server's digest "as of tomorrow": scripts/lib/dev-routes.ts).
   */
  async runOnce(asOf?: { now: number }): Promise<number> {
    const now = asOf?.now ?? this.now();
    if (!asOf && new Date(now).getUTCHours() < this.deps.hourUtc) return 0;
    const { db } = this.deps;
    if (!(await takeLease(db, "digest", this.owner, DIGEST_LEASE_MS, now))) return 0;
    try {
      // A month of runs is kept (what was sent when); older days are never looked at again.
      await db.delete(digestRuns).where(lt(digestRuns.day, dayOf(now - 30 * 86_400_000)));
      return await this.pass(now);
    } finally {
      await releaseLease(db, "digest", this.owner);
    }
  }

  private async pass(now: number): Promise<number> {
    const { db } = this.deps;
    const day = dayOf(now);
    // A bounty's allocation time is its block's; the indexer writes it a little later. Bounties of the last minutes
    // wait for the next digest, so one mirrored just after a pass is never behind a cursor already past it.
    const cutoff = new Date(now - DIGEST_SETTLE_MS);
    const memo = new Map<string, Promise<MatchedBounty[]>>();
    let handled = 0;
    let afterUserId = 0;
    for (;;) {
      // Subscribers without a run today, in user order (keyset: a pass that stops is taken up where it was).
      const batch = await db
        .selectDistinct({ userId: savedSearches.userId, email: users.email })
        .from(savedSearches)
        .innerJoin(users, eq(users.id, savedSearches.userId))
        .where(
          and(
            eq(savedSearches.digest, true),
            isNotNull(users.email),
            gt(savedSearches.userId, afterUserId),
            notExists(db.select({ one: sql`1` }).from(digestRuns).where(and(eq(digestRuns.userId, savedSearches.userId), eq(digestRuns.day, day)))),
          ),
        )
        .orderBy(asc(savedSearches.userId))
        .limit(BATCH);
      if (!batch.length) break;
      afterUserId = batch.at(-1)!.userId;
      handled += await this.digestBatch(batch as { userId: number; email: string }[], day, cutoff, memo, now);
      await takeLease(db, "digest", this.owner, DIGEST_LEASE_MS, this.now());
    }
    // Pool managers with a bountied pull request waiting past its review deadline (issue 39) get that day's digest
    // for it even without a saved search, unless they unsubscribed; those with one were just handled (the entry was
    // in their digest).
    const managers = await poolManagersWithOverdueReviews(db, now);
    if (managers.length) {
      const due = await db
        .select({ userId: users.id, email: users.email })
        .from(users)
        .where(
          and(
            inArray(users.id, managers),
            isNotNull(users.email),
            // Unsubscribed from the digest: not even for this (their reminder mails still go, once per deadline).
            notExists(db.select({ one: sql`1` }).from(digestOptOuts).where(eq(digestOptOuts.userId, users.id))),
            notExists(db.select({ one: sql`1` }).from(digestRuns).where(and(eq(digestRuns.userId, users.id), eq(digestRuns.day, day)))),
          ),
        );
      for (let i = 0; i < due.length; i += BATCH) handled += await this.digestBatch(due.slice(i, i + BATCH) as { userId: number; email: string }[], day, cutoff, memo, now);
    }
    return handled;
  }

  /**
   * One batch of subscribers: their runs claimed in one statement (durable before any mail leaves), their mails
   * built and handed to the mailer a few at a time, the outcomes and the cursors written in one transaction.
   */
  private async digestBatch(batch: { userId: number; email: string }[], day: string, cutoff: Date, memo: Map<string, Promise<MatchedBounty[]>>, now: number): Promise<number> {
    const { db, log } = this.deps;
    const claimed = await db
      .insert(digestRuns)
      .values(batch.map(({ userId }) => ({ userId, day, status: "sending" as const, createdAt: new Date(this.now()) })))
      .onConflictDoNothing()
      .returning({ userId: digestRuns.userId });
    if (!claimed.length) return 0;
    const ids = claimed.map((c) => c.userId);
    const emails = new Map(batch.map((b) => [b.userId, b.email]));
    const searches = await db
      .select()
      .from(savedSearches)
      .where(and(inArray(savedSearches.userId, ids), eq(savedSearches.digest, true)))
      .orderBy(asc(savedSearches.createdAt));
    const overdue = await overdueReviewsFor(db, ids, now);
    const byUser = new Map<number, SavedSearch[]>();
    for (const search of searches) byUser.set(search.userId, [...(byUser.get(search.userId) ?? []), search]);
    const outcomes: { userId: number; status: "sent" | "empty" | "failed"; bounties: number; searchIds: string[]; turnedOff: string[] }[] = [];
    const queue = [...ids];
    const worker = async () => {
      for (let userId = queue.shift(); userId !== undefined; userId = queue.shift()) {
        const mine = byUser.get(userId) ?? [];
        try {
          const { sections, skipped } = await this.sectionsFor(mine, cutoff, memo);
          const refused = skipped.filter((s) => s.refused);
          // Searches that ran move their cursors; a refused one is over (its digest goes off), a failed one is retried.
          const searchIds = mine.filter((s) => !skipped.some((k) => k.id === s.id)).map((s) => s.id);
          const total = sections.reduce((n, s) => n + s.bounties.length + s.more, 0);
          const reviews = (overdue.get(userId) ?? []).map((r) => ({
            repository: r.repository,
            pullNumber: r.pullNumber,
            title: r.title,
            author: r.author,
            url: r.url ?? `${this.deps.publicUrl}/repos/${r.repository}`,
            waitingDays: Math.floor((now - r.waitingSince.getTime()) / 86_400_000),
            releaseRequested: r.releaseRequested,
          }));
          if (total || refused.length || reviews.length) {
            const token = await unsubscribeToken(this.deps.appSecret, userId);
            await this.deps.mailer.send(
              digestMail({
                to: emails.get(userId)!,
                sections,
                skipped: refused.map(({ name, reason }) => ({ name, reason })),
                reviews,
                unsubscribeUrl: `${this.deps.publicUrl}/api/alerts/unsubscribe?token=${encodeURIComponent(token)}`,
                settingsUrl: `${this.deps.publicUrl}/settings/alerts`,
              }),
            );
          }
          outcomes.push({ userId, status: total || refused.length || reviews.length ? "sent" : "empty", bounties: total, searchIds, turnedOff: refused.map((s) => s.id) });
        } catch (err) {
          // At most once: the mail may have left before the error; its bounties come in the next digest.
          log.warn("digest failed", { userId, err: (err as Error).message });
          outcomes.push({ userId, status: "failed", bounties: 0, searchIds: mine.map((s) => s.id), turnedOff: [] });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.deps.concurrency ?? 8, queue.length) }, worker));
    await db.transaction(async (tx) => {
      for (const outcome of outcomes) {
        await tx.update(digestRuns).set({ status: outcome.status, bounties: outcome.bounties }).where(and(eq(digestRuns.userId, outcome.userId), eq(digestRuns.day, day)));
      }
      const told = outcomes.filter((o) => o.status !== "failed").flatMap((o) => o.searchIds);
      for (let i = 0; i < told.length; i += 500) {
        await tx.update(savedSearches).set({ notifiedUntil: cutoff }).where(and(inArray(savedSearches.id, told.slice(i, i + 500)), lt(savedSearches.notifiedUntil, cutoff)));
      }
      const off = outcomes.filter((o) => o.status === "sent").flatMap((o) => o.turnedOff);
      if (off.length) await tx.update(savedSearches).set({ digest: false }).where(inArray(savedSearches.id, off));
    });
    return claimed.length;
  }

  private async sectionsFor(
    searches: SavedSearch[],
    cutoff: Date,
    memo: Map<string, Promise<MatchedBounty[]>>,
  ): Promise<{ sections: DigestSection[]; skipped: (SkippedSearch & { id: string; refused: boolean })[] }> {
    const sections: DigestSection[] = [];
    const skipped: (SkippedSearch & { id: string; refused: boolean })[] = [];
    for (const search of searches) {
      let matches: MatchedBounty[];
      try {
        matches = await this.newMatches(search, cutoff, memo);
      } catch (err) {
        const refused = isRefusal(err);
        this.deps.log.warn("digest: saved search skipped", { userId: search.userId, searchId: search.id, refused, err: (err as Error).message });
        skipped.push({ id: search.id, name: search.name, reason: refused ? (err as Error).message : "it could not be run; it is tried again tomorrow.", refused });
        continue;
      }
      if (!matches.length) continue;
      sections.push({
        name: search.name,
        searchUrl: `${this.deps.publicUrl}/explore${search.query ? `?${search.query}` : ""}`,
        bounties: matches.slice(0, DIGEST_LIST_SIZE).map((b) => ({
          title: b.issueTitle ?? `Issue #${b.issueNumber}`,
          repository: b.fullName,
          issueNumber: b.issueNumber,
          amount: matchedAmountText(b),
          url: `${this.deps.publicUrl}/${b.fullName}`,
        })),
        more: Math.max(0, matches.length - DIGEST_LIST_SIZE),
      });
    }
    return { sections, skipped };
  }

  /** A search's matches allocated after its cursor and up to the pass's cutoff (at most a week back). */
  private newMatches(search: SavedSearch, cutoff: Date, memo: Map<string, Promise<MatchedBounty[]>>): Promise<MatchedBounty[]> {
    const weekAgo = cutoff.getTime() - 7 * 86_400_000;
    const since = new Date(Math.max(search.notifiedUntil.getTime(), weekAgo));
    const key = `${search.query}|${since.getTime()}`;
    let matches = memo.get(key);
    if (!matches) {
      // Parsed inside the promise: a stored query the parser now refuses rejects this search alone.
      matches = Promise.resolve().then(() => matchingBounties(this.deps.db, parseSearch(search.query), { since, until: cutoff, limit: 200 }));
      memo.set(key, matches);
    }
    return matches;
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  nudge(): void {
    this.loop.nudge();
  }

  start(intervalMs = 60_000): void {
    this.loop.start(intervalMs);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    this.deps.mailer.close();
  }
}
