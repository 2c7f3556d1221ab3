import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import Database from "libsql";
import { filePath } from "../../db/client.ts";

/**
 * Backups of the embedded database (issue 41). The custodial keys live only
 * in it (sealed), so a lost file is lost user money.
 *
 * A backup is SQLite's `VACUUM INTO` on a connection of its own: a
 * consistent snapshot of the live database (WAL mode: writers go on while it
 * is read; never a copy of the file, which would miss or tear the write-ahead
 * log). It is written as a hidden partial file, checked (`PRAGMA
 * quick_check`), flushed to disk, and only then renamed into place beside its
 * checksum file (`sha256sum -c` reads it) and a small description (when, how
 * big, the block the indexer had read). Only after that are copies beyond
 * the newest `keep` removed, so a backup killed at any moment leaves every
 * earlier copy as it was (its partial file is cleared by the next run).
 *
 *   data/backups/issuepool-20261128T101500123Z.db
 *   data/backups/issuepool-20261128T101500123Z.db.sha256
 *   data/backups/issuepool-20261128T101500123Z.db.json
 *
 * Restoring (`npm run restore FILE`, restore.ts) puts one back into a stopped
 * data directory; the platform then repairs what the chain knows better and
 * reports what it could not know (restore-report.ts).
 */
export interface BackupInfo {
  /** The backup file (absolute path). */
  file: string;
  takenAt: string;
  bytes: number;
  sha256: string;
  /** The database it was taken from. */
  source: string;
  /** The last block the indexer had read when it was taken (null: none yet). */
  indexedBlock: number | null;
}

const PREFIX = "issuepool-";
const SUFFIX = ".db";

/** The embedded database's file, or an error saying why there is nothing to back up (a libSQL server, memory). */
export function embeddedDatabaseFile(databaseUrl: string): string {
  if (!databaseUrl.startsWith("file:")) {
    throw new Error(
      `Backups here are of the embedded database (a file: DATABASE_URL); ${databaseUrl.startsWith("libsql:") || databaseUrl.startsWith("http") ? "a libSQL server or Turso keeps its own backups (point-in-time restore: README, \"Backups\")" : `not ${databaseUrl}`}.`,
    );
  }
  return resolve(filePath(databaseUrl));
}

/** Writes one backup of the database at `databaseFile` into `dir`, then keeps the newest `keep`. */
export function backupDatabase(databaseFile: string, dir: string, keep: number, now = new Date()): BackupInfo {
  if (!existsSync(databaseFile)) throw new Error(`No database at ${databaseFile}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  clearPartials(dir);
  const name = `${PREFIX}${now.toISOString().replace(/[-:.]/g, "")}${SUFFIX}`;
  const final = join(dir, name);
  if (existsSync(final)) throw new Error(`A backup named ${name} exists already`);
  const partial = join(dir, `.${name}.${process.pid}.partial`);
  try {
    // The database's own connection, read-only: the snapshot is a read transaction, writers are not held up.
    const source = new Database(databaseFile, { readonly: true, timeout: 5_000 });
    let indexedBlock: number | null = null;
    try {
      indexedBlock = lastIndexedBlock(source);
      source.exec(`VACUUM INTO '${partial.replace(/'/g, "''")}'`);
    } finally {
      source.close();
    }
    chmodSync(partial, 0o600);
    checkIntegrity(partial, "quick_check");
    flush(partial);
    const sha256 = sha256Of(partial);
    const bytes = statSync(partial).size;
    const info: BackupInfo = { file: final, takenAt: now.toISOString(), bytes, sha256, source: databaseFile, indexedBlock };
    writeDurably(`${final}.sha256`, `${sha256}  ${name}\n`);
    writeDurably(`${final}.json`, JSON.stringify(info, null, 2) + "\n");
    renameSync(partial, final);
    flush(dir);
    prune(dir, keep);
    return info;
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
}

/** The complete backups in `dir`, oldest first (a copy counts once it and its checksum file are in place). */
export function listBackups(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const names = new Set(readdirSync(dir));
  return [...names]
    .filter((n) => n.startsWith(PREFIX) && n.endsWith(SUFFIX) && names.has(`${n}.sha256`))
    .sort()
    .map((n) => join(dir, n));
}

/** Whether `file` still has the checksum written beside it. */
export function verifyBackup(file: string): { ok: boolean; expected?: string; actual: string } {
  const actual = sha256Of(file);
  const sidecar = `${file}.sha256`;
  if (!existsSync(sidecar)) return { ok: false, actual };
  const expected = readFileSync(sidecar, "utf8").trim().split(/\s+/)[0];
  return { ok: expected === actual, expected, actual };
}

/** The description written beside a backup (null for a file that has none: a copy made otherwise). */
export function backupInfoOf(file: string): BackupInfo | null {
  try {
    return JSON.parse(readFileSync(`${file}.json`, "utf8")) as BackupInfo;
  } catch {
    return null;
  }
}

export function checkIntegrity(file: string, pragma: "quick_check" | "integrity_check" = "integrity_check"): void {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare(`PRAGMA ${pragma}`).all() as Record<string, unknown>[];
    const result = rows.map((r) => String(Object.values(r)[0])).join("; ");
    if (result !== "ok") throw new Error(`${basename(file)} failed SQLite's ${pragma}: ${result}`);
  } finally {
    db.close();
  }
}

/** The file's SHA-256, read a megabyte at a time (a backup can be large). */
export function sha256Of(file: string): string {
  const hash = createHash("sha256");
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

function lastIndexedBlock(db: InstanceType<typeof Database>): number | null {
  try {
    const row = db.prepare("select max(last_block) as block from chain_cursors where name like 'rewards:%'").get() as { block: number | null } | undefined;
    return row?.block ?? null;
  } catch {
    return null;
  }
}

/** Copies beyond the newest `keep` go (with their checksum and description). */
function prune(dir: string, keep: number): void {
  const all = listBackups(dir);
  for (const file of all.slice(0, Math.max(0, all.length - keep))) {
    for (const path of [file, `${file}.sha256`, `${file}.json`]) rmSync(path, { force: true });
  }
}

/** Partial files of backups whose process is gone (killed mid-way). */
function clearPartials(dir: string): void {
  for (const name of readdirSync(dir)) {
    const match = /^\..*\.(\d+)\.partial$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && processAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function writeDurably(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  flush(tmp);
  renameSync(tmp, path);
}

function flush(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Processes that have the database open (the server marks itself while it runs: `markRunning`), so a restore can
 * refuse to replace the file under them. A process killed -9 leaves its mark; a mark whose process is gone does not
 * count.
 */
export function runningMarksDir(databaseFile: string): string {
  return join(dirname(databaseFile), `.${basename(databaseFile)}.running`);
}

export function markRunning(databaseFile: string): () => void {
  const dir = runningMarksDir(databaseFile);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mark = join(dir, String(process.pid));
  writeFileSync(mark, `${new Date().toISOString()}\n`);
  return () => {
    try {
      unlinkSync(mark);
    } catch {
      // already gone
    }
  };
}

/** The live processes that have the database open (their pids). */
export function runningProcesses(databaseFile: string): number[] {
  const dir = runningMarksDir(databaseFile);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map(Number)
    .filter((pid) => Number.isInteger(pid) && pid !== process.pid && processAlive(pid));
}
