import { and, eq, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { workerLeases } from "../../db/schema/index.ts";

/**
 * Leases: one row per name in `worker_leases` (name, owner, until), the one primitive behind every "one at a time
 * across processes" of the platform (workers' passes, signers, money locks). An owner is a token; every take writes
 * its own, so "the row still names my token" means nobody else took the lease since I did.
 *
 *   takeLease     take it when free or lapsed (or renew it when it is already mine)
 *   renewLease    write its time again, only while it is mine
 *   holdsLease    mine and not lapsed: the fence a holder's write checks in its own write transaction
 *   releaseLease  hand it back (only mine)
 *   LeaseHolder   leases a worker keeps from one pass to the next
 *   KeptLease     one lease renewed in the background while its holder works (money locks)
 */

/** What reading a lease needs: the database, or a transaction of it. */
export type LeaseReader = Pick<Database, "select">;

/** Takes (or renews) the named lease for `ms`; false when another live owner holds it. */
export async function takeLease(db: Database, name: string, owner: string, ms: number, now = Date.now()): Promise<boolean> {
  const until = new Date(now + ms);
  const rows = await db
    .insert(workerLeases)
    .values({ name, owner, until })
    .onConflictDoUpdate({
      target: workerLeases.name,
      set: { owner, until },
      setWhere: sql`${workerLeases.until} < ${now} or ${workerLeases.owner} = ${owner}`,
    })
    .returning({ owner: workerLeases.owner });
  return rows[0]?.owner === owner;
}

/**
 * Writes the lease's time again while `owner` still holds it; false when another owner took it (or it was handed
 * back). A lease that lapsed and that nobody took is still its owner's: renewing it is as safe as holding it, since
 * nobody can have done anything under it meanwhile.
 */
export async function renewLease(db: Database, name: string, owner: string, ms: number, now = Date.now()): Promise<boolean> {
  const rows = await db
    .update(workerLeases)
    .set({ until: new Date(now + ms) })
    .where(and(eq(workerLeases.name, name), eq(workerLeases.owner, owner)))
    .returning({ owner: workerLeases.owner });
  return rows.length > 0;
}

/**
 * Whether `owner` holds the lease at `now`: the row names it and has not lapsed. Run inside a write transaction
 * (SQLite's `BEGIN IMMEDIATE`: no other process can take the lease until it commits), it fences that transaction's
 * writes: they happen only if the lease is still the holder's.
 */
export async function holdsLease(db: LeaseReader, name: string, owner: string, now = Date.now()): Promise<boolean> {
  const [row] = await db
    .select({ until: workerLeases.until })
    .from(workerLeases)
    .where(and(eq(workerLeases.name, name), eq(workerLeases.owner, owner)))
    .limit(1);
  return row !== undefined && row.until.getTime() > now;
}

export async function releaseLease(db: Database, name: string, owner: string): Promise<void> {
  await db.delete(workerLeases).where(sql`${workerLeases.name} = ${name} and ${workerLeases.owner} = ${owner}`);
}

/**
 * The leases one owner holds, kept between passes: `hold` takes a lease, or
 * renews it only once less than half its time is left (each take is a
 * durable write, and busy loops pass several times a second).
 */
export class LeaseHolder {
  /** name -> until (ms) */
  private readonly held = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly owner: string,
    private readonly ms: number,
    /** The clock (tests move it instead of waiting). */
    private readonly clock: () => number = Date.now,
  ) {}

  async hold(name: string): Promise<boolean> {
    const now = this.clock();
    const until = this.held.get(name);
    if (until !== undefined && until - now > this.ms / 2) return true;
    if (!(await takeLease(this.db, name, this.owner, this.ms, now))) {
      this.held.delete(name);
      return false;
    }
    this.held.set(name, now + this.ms);
    return true;
  }

  async release(name: string): Promise<void> {
    this.held.delete(name);
    await releaseLease(this.db, name, this.owner);
  }

  async releaseAll(): Promise<void> {
    for (const name of [...this.held.keys()]) await this.release(name).catch(() => undefined);
  }
}

/**
 * One lease, taken with a token of its own and kept while its holder works: renewed every `renewEveryMs` (a third
 * of the lease by default, so two renewals can be late or fail before it lapses) until `release`, or until the
 * holder's bound (`keepUntil`) has passed, after which it is left to lapse. A holder that stops (a crashed or frozen
 * process) stops renewing, and the lease is free `ms` after its last renewal.
 *
 * A lease can still be lost while its holder works (its process froze past `ms`, the database did not take the
 * renewals, the holder outlived its bound): `lost` says so once a renewal found it another's, and `holds(tx)`, run
 * in the holder's write transaction, is what makes that safe: a write fenced with it happens only while the lease
 * is the holder's.
 */
export class KeptLease {
  private renewal: ReturnType<typeof setInterval> | undefined;
  private renewing = false;
  private keepRenewingUntil = Infinity;
  private lostFlag = false;
  /** The time the database was last told (ms): the lease is live until then. */
  private until: number;

  private constructor(
    private readonly db: Database,
    readonly name: string,
    readonly owner: string,
    private readonly ms: number,
    readonly takenAt: number,
    renewEveryMs: number,
  ) {
    this.until = takenAt + ms;
    this.renewal = setInterval(() => void this.renew(), renewEveryMs);
    // A lease never keeps a process alive (its holder's own work does, and a holder always releases).
    (this.renewal as { unref?: () => void }).unref?.();
  }

  /** Takes the lease if it is free or lapsed (one try) and starts renewing it; undefined when another owner holds it. */
  static async take(db: Database, name: string, options: { ms: number; renewEveryMs?: number }): Promise<KeptLease | undefined> {
    const owner = crypto.randomUUID();
    const now = Date.now();
    if (!(await takeLease(db, name, owner, options.ms, now))) return undefined;
    return new KeptLease(db, name, owner, options.ms, now, options.renewEveryMs ?? options.ms / 3);
  }

  /** Renews only until `deadline` (ms since the epoch): a holder's bound, so a holder stuck for good frees the lease. */
  keepUntil(deadline: number): void {
    this.keepRenewingUntil = deadline;
  }

  /** A renewal found the lease another owner's (or handed back): the holder must not act under it any more. */
  get lost(): boolean {
    return this.lostFlag;
  }

  /** Live by this process's last successful renewal, for at least `ms` more. */
  liveFor(ms: number, now = Date.now()): boolean {
    return !this.lostFlag && this.until - now > ms;
  }

  /** One renewal now (the timer's; a test may call it). A failed write leaves the lease as it was, to be renewed at the next tick. */
  async renew(): Promise<void> {
    if (this.renewing || this.lostFlag || this.renewal === undefined) return;
    const now = Date.now();
    if (now > this.keepRenewingUntil) return;
    this.renewing = true;
    try {
      if (await renewLease(this.db, this.name, this.owner, this.ms, now)) this.until = now + this.ms;
      else this.markLost();
    } catch {
      // The database was busy or away: the lease runs on from the last renewal; the next tick tries again.
    } finally {
      this.renewing = false;
    }
  }

  /** Run in the holder's write transaction: whether the lease is still the holder's (see holdsLease). */
  holds(tx: LeaseReader): Promise<boolean> {
    return holdsLease(tx, this.name, this.owner);
  }

  markLost(): void {
    this.lostFlag = true;
    this.stop();
  }

  /** Stops renewing and hands the lease back (if it is still this owner's). */
  async release(): Promise<void> {
    this.stop();
    await releaseLease(this.db, this.name, this.owner);
  }

  private stop(): void {
    if (this.renewal !== undefined) clearInterval(this.renewal);
    this.renewal = undefined;
  }
}
