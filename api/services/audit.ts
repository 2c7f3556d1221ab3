import type { Database } from "../../db/client.ts";
import { auditLog } from "../../db/schema/index.ts";

/** Appends a security-relevant event. `detail` must never hold secrets. */
export async function audit(
  db: Database,
  entry: { userId?: number | null; action: string; detail?: Record<string, unknown>; ip?: string },
): Promise<void> {
  await db.insert(auditLog).values({
    userId: entry.userId ?? null,
    action: entry.action,
    detail: entry.detail ? JSON.stringify(entry.detail) : null,
    ip: entry.ip,
  });
}
