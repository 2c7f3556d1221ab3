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
