/**
 * `npm run restore FILE`: puts a backup (api/ops/backup.ts) back as the
 * embedded database, into a stopped data directory.
 *
 * 1. Refuses while a platform process has the database open (the marks it
 *    leaves while it runs: api/ops/backup.ts, `markRunning`).
 * 2. Checks the backup: its checksum file (when it has one) and SQLite's
 *    integrity check.
 * 3. Moves the current database, with its write-ahead log and shared-memory
 *    files (a stale log would be replayed onto the restored file), aside as
 *    `app.db.before-restore-<time>`: nothing is deleted.
 * 4. Copies the backup in (a partial file, flushed, then renamed) and leaves
 *    a note beside it, `app.db.restored.json`, which the next start reads:
 *    once its check against the chain has repaired what the chain knows
 *    better, it reports what it could not know (restore-report.ts).
 */
import { copyFileSync, existsSync, renameSync, writeFileSync, chmodSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError, backupSettings } from "../env.ts";
import { backupInfoOf, checkIntegrity, embeddedDatabaseFile, runningProcesses, verifyBackup } from "./backup.ts";
import { RESTORE_NOTE_SUFFIX, type RestoreNote } from "./restore-report.ts";

export function restoreBackup(backupFile: string, databaseFile: string, now = new Date()): { movedAside: string | null; note: RestoreNote } {
  const file = resolve(backupFile);
  if (!existsSync(file)) throw new Error(`No backup at ${file}`);
  const running = runningProcesses(databaseFile);
  if (running.length) throw new Error(`The platform is running on ${databaseFile} (process ${running.join(", ")}): stop it first, then restore.`);
  const checksum = verifyBackup(file);
  if (checksum.expected !== undefined && !checksum.ok) throw new Error(`${file} does not match its checksum (${checksum.expected}, read ${checksum.actual}): not restored.`);
  checkIntegrity(file);

  const stamp = now.toISOString().replace(/[-:.]/g, "");
  let movedAside: string | null = null;
  if (existsSync(databaseFile)) {
    movedAside = `${databaseFile}.before-restore-${stamp}`;
    renameSync(databaseFile, movedAside);
  }
  for (const suffix of ["-wal", "-shm"]) {
    if (existsSync(databaseFile + suffix)) renameSync(databaseFile + suffix, `${databaseFile}.before-restore-${stamp}${suffix}`);
  }
  const partial = `${databaseFile}.restoring`;
  copyFileSync(file, partial);
  chmodSync(partial, 0o600);
  renameSync(partial, databaseFile);
  const info = backupInfoOf(file);
  const note: RestoreNote = {
    backupFile: file,
    sha256: checksum.actual,
    takenAt: info?.takenAt ?? null,
    indexedBlock: info?.indexedBlock ?? null,
    restoredAt: now.toISOString(),
  };
  writeFileSync(`${databaseFile}${RESTORE_NOTE_SUFFIX}`, JSON.stringify(note, null, 2) + "\n", { mode: 0o600 });
  return { movedAside, note };
}

if (import.meta.main) {
  const backupFile = process.argv.slice(2).find((a) => !a.startsWith("-"));
  if (!backupFile) {
    console.error("Usage: npm run restore FILE   (a backup written by npm run backup; stop the platform first)");
    process.exit(64);
  }
  try {
    const settings = backupSettings();
    const databaseFile = embeddedDatabaseFile(settings.databaseUrl);
    const { movedAside, note } = restoreBackup(backupFile, databaseFile);
    console.log(`Restored ${note.backupFile} (taken ${note.takenAt ?? "at an unknown time"}) into ${databaseFile}.`);
    if (movedAside) console.log(`  The database it replaced is kept as ${movedAside}.`);
    console.log("  Start the platform: it checks its records against the chain, repairs what the chain knows better,");
    console.log("  and then reports what it could not know (wallets created after the backup): in its log and on /ops.");
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : `Restore failed: ${(err as Error).message}`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
}
