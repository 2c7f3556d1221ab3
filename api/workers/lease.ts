import { sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import { workerLeases } from "../../db/schema/index.ts";

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
  ) {}

  async hold(name: string): Promise<boolean> {
    const until = this.held.get(name);
    if (until !== undefined && until - Date.now() > this.ms / 2) return true;
    const now = Date.now();
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
