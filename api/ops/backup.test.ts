/**
 * Backups of the embedded database (api/ops/backup.ts) and their restore
 * (restore-cli.ts), on real files: consistent copies of a database being
 * written, N kept with their checksums, a kill -9 in the middle of a backup
 * that leaves every earlier copy intact, and a restore that refuses a
 * running platform or a damaged copy.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, watch, writeFileSync, type FSWatcher } from "node:fs";
import { join, resolve } from "node:path";
import Database from "libsql";
import { makeTempDir } from "../../testing/context.ts";
import { backupDatabase, checkIntegrity, listBackups, markRunning, sha256Of, verifyBackup } from "./backup.ts";
import { restoreBackup } from "./restore-cli.ts";
import { RESTORE_NOTE_SUFFIX } from "./restore-report.ts";
import { BackupSchedule } from "./backup-schedule.ts";
import { createTestContext } from "../../testing/context.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** A WAL database with `rows` rows of about 1 KB, and its path. */
async function database(rows: number): Promise<{ dir: string; file: string; db: InstanceType<typeof Database> }> {
  const dir = await makeTempDir("issuepool-backup-");
  const file = join(dir, "app.db");
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL; create table items (id integer primary key, body text not null)");
  const insert = db.prepare("insert into items (body) values (?)");
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(`${i}:${"x".repeat(1000)}`);
  })();
  return { dir, file, db };
}

const countIn = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("select count(*) as n from items").get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe("backups", () => {
  test("a consistent copy of a live database (its write-ahead log included), checked and checksummed; the newest N kept", async () => {
    const { dir, file, db } = await database(100);
    const backups = join(dir, "backups");
    // Rows only in the write-ahead log (not checkpointed): a file copy of app.db alone would miss them.
    db.exec("PRAGMA wal_autocheckpoint = 0");
    db.prepare("insert into items (body) values ('in the log')").run();
    expect(readFileSync(`${file}-wal`).length).toBeGreaterThan(0);
    const taken: string[] = [];
    for (let i = 0; i < 4; i++) {
      db.prepare("insert into items (body) values (?)").run(`copy ${i}`);
      taken.push(backupDatabase(file, backups, 2, new Date(Date.UTC(2026, 10, 28, 10, 0, i))).file);
    }
    expect(listBackups(backups)).toEqual(taken.slice(2));
    for (const [i, copy] of taken.slice(2).entries()) {
      expect(countIn(copy)).toBe(100 + 1 + 3 + i);
      expect(verifyBackup(copy)).toMatchObject({ ok: true });
      expect(readFileSync(`${copy}.sha256`, "utf8")).toBe(`${sha256Of(copy)}  ${copy.split("/").at(-1)}\n`);
      expect(JSON.parse(readFileSync(`${copy}.json`, "utf8"))).toMatchObject({ file: copy, bytes: expect.any(Number), sha256: sha256Of(copy) });
    }
    // The older copies are gone with their checksum and description files; nothing partial is left.
    expect(readdirSync(backups).sort()).toEqual(taken.slice(2).flatMap((f) => [f, `${f}.json`, `${f}.sha256`].map((p) => p.split("/").at(-1)!)).sort());
    db.close();
  });

  test("a kill -9 in the middle of `npm run backup` leaves the earlier copies intact; the next run clears its partial file", async () => {
    // Big enough that the copy takes a while: the kill lands while it is being written.
    const { dir, file, db } = await database(30_000);
    db.close();
    const backups = join(dir, "backups");
    backupDatabase(file, backups, 2, new Date(Date.UTC(2026, 10, 28, 9)));
    backupDatabase(file, backups, 2, new Date(Date.UTC(2026, 10, 28, 10)));
    const before = listBackups(backups).map((f) => ({ f, sha: sha256Of(f) }));
    // Told as soon as its partial file appears (it is being written), not by polling.
    let watcher: FSWatcher | undefined;
    const partialAppears = new Promise<void>((resolve) => {
      watcher = watch(backups, (_event, name) => {
        if (String(name).endsWith(".partial")) resolve();
      });
    });
    const proc = Bun.spawn([process.execPath, join(ROOT, "api/ops/backup-cli.ts")], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", DATABASE_URL: `file:${file}`, BACKUP_DIR: backups, BACKUP_KEEP: "2" },
      stdout: "pipe",
      stderr: "pipe",
    });
    // Killed as soon as its partial file exists.
    const first = await Promise.race([partialAppears.then(() => "partial" as const), proc.exited.then(() => "exited" as const)]);
    if (first === "partial") proc.kill("SIGKILL");
    watcher?.close();
    if (first === "exited") throw new Error(`the backup finished before it could be killed: ${await new Response(proc.stderr).text()}`);
    await proc.exited;
    expect(proc.signalCode).toBe("SIGKILL");
    expect(listBackups(backups).map((f) => ({ f, sha: sha256Of(f) }))).toEqual(before);
    for (const { f } of before) {
      expect(verifyBackup(f).ok).toBe(true);
      checkIntegrity(f);
    }
    expect(readdirSync(backups).some((n) => n.endsWith(".partial"))).toBe(true);
    const next = backupDatabase(file, backups, 2, new Date(Date.UTC(2026, 10, 28, 11)));
    expect(readdirSync(backups).some((n) => n.endsWith(".partial"))).toBe(false);
    expect(listBackups(backups)).toEqual([before[1]!.f, next.file]);
  }, 60_000);
});

describe("the scheduled pass", () => {
  test("takes a copy when the newest is older than the interval, in a process of its own; reports it to /metrics", async () => {
    const t = await createTestContext({ fileDatabase: true, env: { BACKUP_INTERVAL_HOURS: "24", BACKUP_KEEP: "2" } });
    try {
      const schedule = new BackupSchedule(t.ctx);
      const first = await schedule.runOnce();
      expect(first).toBeDefined();
      expect(listBackups(t.env.BACKUP_DIR)).toEqual([first!.file]);
      expect(verifyBackup(first!.file).ok).toBe(true);
      // The newest copy is recent: nothing more until the interval has passed.
      expect(await schedule.runOnce()).toBeUndefined();
      const text = await t.ctx.ops.metrics.text();
      expect(text).toContain('issuepool_backups_total{result="ok"} 1');
      expect(text).toContain(`issuepool_backup_last_success_timestamp_seconds ${Math.floor(Date.parse(first!.takenAt) / 1000)}`);
    } finally {
      t.close();
    }
  }, 60_000);
});

describe("restore", () => {
  test("into a stopped data directory: the copy checked, the replaced database (and its log) kept aside, a note for the next start", async () => {
    const { dir, file, db } = await database(10);
    const backups = join(dir, "backups");
    const backup = backupDatabase(file, backups, 3);
    db.prepare("insert into items (body) values ('after the backup')").run();
    // A platform that has the database open: refused, nothing touched.
    const unmark = markRunning(file);
    const child = Bun.spawn(["sleep", "30"]);
    writeFileSync(join(dir, ".app.db.running", String(child.pid)), "");
    try {
      expect(() => restoreBackup(backup.file, file)).toThrow(/is running .*stop it first/);
    } finally {
      child.kill();
      await child.exited;
    }
    unmark();
    db.close();
    expect(countIn(file)).toBe(11);
    // A dead process's mark does not count (a platform killed -9).
    const { movedAside, note } = restoreBackup(backup.file, file, new Date(Date.UTC(2026, 10, 28, 12)));
    expect(countIn(file)).toBe(10);
    expect(countIn(movedAside!)).toBe(11);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(JSON.parse(readFileSync(`${file}${RESTORE_NOTE_SUFFIX}`, "utf8"))).toEqual(note);
    expect(note).toMatchObject({ backupFile: backup.file, sha256: backup.sha256, takenAt: backup.takenAt });
  });

  test("a copy that does not match its checksum is refused", async () => {
    const { dir, file, db } = await database(10);
    db.close();
    const backup = backupDatabase(file, join(dir, "backups"), 3);
    const bytes = readFileSync(backup.file);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(backup.file, bytes);
    expect(() => restoreBackup(backup.file, file)).toThrow(/does not match its checksum/);
    expect(countIn(file)).toBe(10);
  });
});
