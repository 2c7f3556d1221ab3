/**
 * The whole public repository list (GET /api/repositories/public without a limit: the spec's clients read it
 * all) kept in memory and up to date incrementally, so 100,000 registered repositories are not read again on
 * every change of one pool. Built once; afterwards each read first asks the database what changed since it last
 * looked (repositories and pools by their `updated_at` index: a handful of rows), which also catches changes made
 * by other server processes. Nothing is scanned on a read.
 *
 * Entries are kept newest first (registeredAt, then id, descending), as the list has always been ordered.
 */
import { and, eq, gte, inArray } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { repositories, repositoryPools, type Currency } from "../../../db/schema/index.ts";
import type { PublicRepository } from "./list-public.ts";
import type { ChangeFeed } from "../../changes.ts";

/** How often a read looks for changes at most (the list may be this much behind another process's write). */
const LOOK_EVERY_MS = 1_000;
/**
 * How far back each look reaches: `updated_at` is the writer's clock when it wrote, and its transaction may commit
 * later than a look that began after that time. Rows seen again are compared and change nothing.
 */
const OVERLAP_MS = 30_000;
const CHUNK = 500;

export class PublicRepositoryListCache {
  private entries = new Map<number, PublicRepository>();
  private ordered: PublicRepository[] | null = null;
  private built: Promise<void> | null = null;
  private lookedAt = 0;
  private since = 0;
  private looking: Promise<void> | null = null;
  /** Bumped on every change: a derived copy (the serialised answer) is valid for one version. */
  version = 0;

  constructor(private readonly db: Database, private readonly now: () => number = Date.now) {}

  /** The list as it stands (newest first). */
  async list(): Promise<PublicRepository[]> {
    this.built ??= this.build();
    await this.built;
    if (this.now() - this.lookedAt >= LOOK_EVERY_MS) {
      this.looking ??= this.catchUp().finally(() => (this.looking = null));
      await this.looking;
    }
    this.ordered ??= [...this.entries.values()].sort((a, b) => b.registeredAt.getTime() - a.registeredAt.getTime() || b.id - a.id);
    return this.ordered;
  }

  /** Look for changes on the next read (a change this process made: the change feed says so). */
  touch(): void {
    this.lookedAt = 0;
  }

  private async build(): Promise<void> {
    const started = this.now();
    const rows = await this.db
      .select({ id: repositories.githubRepoId, fullName: repositories.fullName, description: repositories.description, registeredAt: repositories.registeredAt })
      .from(repositories)
      .where(and(eq(repositories.isPrivate, false), eq(repositories.isActive, true)));
    for (const r of rows) this.entries.set(r.id, { id: r.id, githubRepoFullName: r.fullName, description: r.description, pools: zero(), registeredAt: r.registeredAt });
    // All pools at once (no list of ids: SQLite limits bound parameters), kept for the listed repositories.
    for (const p of await this.db.select({ id: repositoryPools.githubRepoId, currency: repositoryPools.currency, balance: repositoryPools.balance }).from(repositoryPools)) {
      const entry = this.entries.get(p.id);
      if (entry) entry.pools[p.currency] = p.balance;
    }
    // Changes written while building are read again by the first catch-up (from before the build started).
    this.since = started - OVERLAP_MS;
    this.lookedAt = this.now();
    this.changed();
  }

  private async catchUp(): Promise<void> {
    const started = this.now();
    const since = new Date(this.since);
    const [repos, pools] = await Promise.all([
      this.db
        .select({ id: repositories.githubRepoId, fullName: repositories.fullName, description: repositories.description, registeredAt: repositories.registeredAt, isPrivate: repositories.isPrivate, isActive: repositories.isActive })
        .from(repositories)
        .where(gte(repositories.updatedAt, since)),
      this.db.select({ id: repositoryPools.githubRepoId }).from(repositoryPools).where(gte(repositoryPools.updatedAt, since)),
    ]);
    this.lookedAt = started;
    this.since = started - OVERLAP_MS;
    if (!repos.length && !pools.length) return;
    let moved = false;
    for (const r of repos) {
      const entry = this.entries.get(r.id);
      if (r.isPrivate || !r.isActive) {
        moved = this.entries.delete(r.id) || moved;
        continue;
      }
      if (entry && entry.githubRepoFullName === r.fullName && entry.description === r.description && entry.registeredAt.getTime() === r.registeredAt.getTime()) continue;
      this.entries.set(r.id, { id: r.id, githubRepoFullName: r.fullName, description: r.description, pools: entry?.pools ?? zero(), registeredAt: r.registeredAt });
      moved = true;
    }
    // A pool that changed on a repository the list does not hold: the repository may have been written with an
    // older `updated_at` than this look reaches (a row imported or seeded with its history's time) while the list
    // was being built. It is read here, so its first pool change brings it in.
    const unknown = [...new Set(pools.map((p) => p.id))].filter((id) => !this.entries.has(id) && !repos.some((r) => r.id === id));
    for (let i = 0; i < unknown.length; i += CHUNK) {
      const found = await this.db
        .select({ id: repositories.githubRepoId, fullName: repositories.fullName, description: repositories.description, registeredAt: repositories.registeredAt })
        .from(repositories)
        .where(and(inArray(repositories.githubRepoId, unknown.slice(i, i + CHUNK)), eq(repositories.isPrivate, false), eq(repositories.isActive, true)));
      for (const r of found) {
        this.entries.set(r.id, { id: r.id, githubRepoFullName: r.fullName, description: r.description, pools: zero(), registeredAt: r.registeredAt });
        moved = true;
      }
    }
    const poolIds = [...new Set([...pools.map((p) => p.id), ...repos.map((r) => r.id)])].filter((id) => this.entries.has(id));
    for (let i = 0; i < poolIds.length; i += CHUNK) {
      const slice = poolIds.slice(i, i + CHUNK);
      const rows = await this.db.select().from(repositoryPools).where(inArray(repositoryPools.githubRepoId, slice));
      const fresh = new Map(slice.map((id) => [id, zero()]));
      for (const p of rows) fresh.get(p.githubRepoId)![p.currency] = p.balance;
      for (const [id, pools] of fresh) {
        const entry = this.entries.get(id)!;
        if (entry.pools.XDC === pools.XDC && entry.pools.ROXN === pools.ROXN && entry.pools.USDC === pools.USDC) continue;
        entry.pools = pools;
        moved = true;
      }
    }
    if (moved) this.changed();
  }

  private changed(): void {
    this.ordered = null;
    this.version++;
  }
}

const zero = (): Record<Currency, bigint> => ({ XDC: 0n, ROXN: 0n, USDC: 0n });

const caches = new WeakMap<Database, PublicRepositoryListCache>();

/**
 * The one list cache of a database handle in this process (the API route and the pages share it). A change this
 * process publishes about repositories makes the next read look at once (other processes' changes are seen
 * within a second).
 */
export function publicListCacheFor(db: Database, changes?: Pick<ChangeFeed, "subscribe">): PublicRepositoryListCache {
  let cache = caches.get(db);
  if (!cache) {
    const created = (cache = new PublicRepositoryListCache(db));
    caches.set(db, created);
    changes?.subscribe((tags) => {
      if (tags.some((tag) => tag === "repositories" || tag.startsWith("repo:"))) created.touch();
    });
  }
  return cache;
}
