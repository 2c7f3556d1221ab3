import { join } from "node:path";
import type { DatabaseHandle } from "../../db/client.ts";
import type { Env } from "../env.ts";
import type { Logger } from "../logger.ts";
import { randomToken } from "../crypto/tokens.ts";
import { LeaseHolder } from "../workers/lease.ts";
import { Periodic } from "../workers/periodic.ts";
import type { BackupInfo } from "./backup.ts";
import type { PlatformMetrics } from "./metrics.ts";

/**
 * The scheduled backup pass (issue 41): every BACKUP_INTERVAL_HOURS, one
 * process of those sharing the database (a lease) runs `npm run backup`'s
 * program (backup-cli.ts) in a process of its own, so reading a large
 * database never holds up this one's requests (measured: a 45 MB database
 * in about 0.7 s, checked and checksummed). Only for the embedded database:
 * a libSQL server or Turso keeps its own backups. The pass is due when the
 * newest copy in BACKUP_DIR is older than the interval, so a restart does
 * not take a copy each time; the first look is a minute after start.
 */
export interface BackupScheduleDeps {
  env: Pick<Env, "DATABASE_URL" | "DATA_DIR" | "BACKUP_DIR" | "BACKUP_KEEP" | "BACKUP_INTERVAL_HOURS">;
  database: DatabaseHandle;
  log: Logger;
  ops: { metrics: PlatformMetrics };
}

const CLI = join(import.meta.dir, "backup-cli.ts");
const LEASE_NAME = "backup";

export class BackupSchedule {
  private readonly owner = `bak-${randomToken(6)}`;
  private readonly lease: LeaseHolder;
  private readonly worker: Periodic;
  private readonly intervalMs: number;

  constructor(private readonly deps: BackupScheduleDeps) {
    this.intervalMs = deps.env.BACKUP_INTERVAL_HOURS * 3_600_000;
    // Held for the interval: a second process does not take a copy the first one just took.
    this.lease = new LeaseHolder(deps.database.db, this.owner, Math.max(60_000, this.intervalMs));
    this.worker = new Periodic(
      "backup",
      () => this.runOnce(),
      (err) => deps.log.warn("scheduled backup failed; the previous copies are kept", { err: (err as Error).message }),
    );
  }

  /** One pass: a copy when the newest is older than the interval (and this process holds the lease). */
  async runOnce(): Promise<BackupInfo | undefined> {
    const { listBackups, backupInfoOf } = await import("./backup.ts");
    const newest = listBackups(this.deps.env.BACKUP_DIR).at(-1);
    const info = newest ? backupInfoOf(newest) : null;
    const takenAt = Date.parse(info?.takenAt ?? "");
    if (Number.isFinite(takenAt)) {
      // What the alert on a missing backup reads, also in a process that has not taken one itself.
      this.deps.ops.metrics.backupLastSuccess.set(Math.floor(takenAt / 1000));
      this.deps.ops.metrics.backupLastSize.set(info!.bytes);
      if (Date.now() - takenAt < this.intervalMs) return undefined;
    }
    if (!(await this.lease.hold(LEASE_NAME))) return undefined;
    return this.backupNow();
  }

  /** `npm run backup`'s program, in its own process; its description, or an error with what it said. */
  async backupNow(): Promise<BackupInfo> {
    const { env, ops, log } = this.deps;
    const proc = Bun.spawn([process.execPath, CLI, "--json"], {
      env: { ...process.env, DATABASE_URL: env.DATABASE_URL, DATA_DIR: env.DATA_DIR, BACKUP_DIR: env.BACKUP_DIR, BACKUP_KEEP: String(env.BACKUP_KEEP) },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    if (code !== 0) {
      ops.metrics.backups.inc({ result: "failed" });
      throw new Error(err.trim() || `the backup exited with ${code}`);
    }
    const info = JSON.parse(out.trim().split("\n").at(-1)!) as BackupInfo & { ms: number };
    ops.metrics.backups.inc({ result: "ok" });
    ops.metrics.backupLastSuccess.set(Math.floor(Date.parse(info.takenAt) / 1000));
    ops.metrics.backupLastSize.set(info.bytes);
    log.info("backup written", { file: info.file, bytes: info.bytes, sha256: info.sha256, ms: info.ms });
    return info;
  }

  private firstCheck?: ReturnType<typeof setTimeout>;

  /** The first look a minute after start (start-up is busy enough), then every `checkEveryMs`. */
  start(checkEveryMs = Math.min(this.intervalMs, 600_000), firstAfterMs = 60_000): void {
    this.firstCheck = setTimeout(() => this.worker.start(checkEveryMs), firstAfterMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.firstCheck);
    await this.worker.stop();
  }
}

/**
 * The scheduled backups of a running platform, when they apply (an embedded file database, BACKUP_INTERVAL_HOURS > 0):
 * the "backup" pass of api/schedule.ts.
 */
export function backupScheduleFor(deps: BackupScheduleDeps): BackupSchedule | undefined {
  if (deps.env.BACKUP_INTERVAL_HOURS <= 0 || !deps.database.embedded || !deps.env.DATABASE_URL.startsWith("file:")) return undefined;
  return new BackupSchedule(deps);
}
