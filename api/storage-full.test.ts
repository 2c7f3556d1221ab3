import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { LibsqlError, type Client } from "@libsql/client";
import { createTestContext, makeTempDir, NO_CHAIN, NO_EXTERNALS, type TestContext } from "../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs } from "../testing/auth.ts";
import { isStorageFull, serializeWrites, StorageWatch } from "../db/client.ts";
import { sharedTestSecrets } from "../scripts/lib/dev-secrets.ts";
import { STORAGE_FULL_MESSAGE } from "./middleware/errors.ts";

/**
 * Full or read-only storage (issue 24, item 4). Before: on a full disk every
 * write (sign-in included) answered 500 "An error occurred", with an error
 * and a stack in the log per request. Now: 503 with a sentence that says
 * nothing changed, one warning per episode, nothing stored changed, and the
 * same request works once there is space again. A data directory on a
 * read-only file system stops the start with one line naming it.
 */
const ROOT = join(import.meta.dir, "..");
const run = (cmd: string[]) => Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });

/** A small file system of our own (we are root in the test machines); false where mounting is not allowed. */
function mountTmpfs(dir: string, options: string): boolean {
  return run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", dir]).exitCode === 0;
}
const unmount = (dir: string) => run(["umount", "-l", dir]);
const probeDir = join(await makeTempDir(), "probe");
mkdirSync(probeDir);
const canMount = process.getuid?.() === 0 && mountTmpfs(probeDir, "size=1m");
if (canMount) unmount(probeDir);

/** Fills the file system of `dir` to the last byte; returns the filler's path. */
function fill(dir: string): string {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  try {
    for (const size of [1 << 20, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 7);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch {
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

describe.if(canMount)("a full disk (an 8 MB tmpfs)", () => {
  let dir: string;
  let t: TestContext;
  beforeAll(async () => {
    dir = join(await makeTempDir(), "data");
    mkdirSync(dir);
    if (!mountTmpfs(dir, "size=8m")) throw new Error("mount failed");
    t = await createTestContext({ env: { DATABASE_URL: `file:${dir}/app.db`, DATA_DIR: dir } });
  });
  afterAll(() => {
    t?.close();
    if (dir) unmount(dir);
  });

  test("a write answers 503 'storage is full', one warning per episode, nothing changed; it works again once there is space", async () => {
    const user = await createTestUser(t, { username: "dora" });
    const dora = await signInAs(t, user);
    const register = () => call(t, "/api/auth/register", { as: dora, body: { role: "contributor", email: "dora@example.com" } });
    // Every page of the log moved into the database file, so the next write must grow the log: the disk is asked.
    await t.ctx.database.client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const before = await databaseDigest(t);
    const linesBefore = t.log.lines.length; // the file's other tests log their own episodes (random order)
    const filler = fill(dir);

    for (let i = 0; i < 3; i++) {
      const res = await register();
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ code: "storage_full", message: STORAGE_FULL_MESSAGE });
    }
    const logged = t.log.lines.slice(linesBefore).map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(logged.filter((l) => l.msg === "unhandled error")).toEqual([]);
    const warnings = logged.filter((l) => (l.level === "warn" || l.level === "error") && l.msg !== "request");
    expect(warnings.map((l) => l.msg)).toEqual(["storage full: writes are refused (503) until space returns"]);
    expect(await databaseDigest(t)).toBe(before);
    expect((await t.ctx.database.client.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");

    rmSync(filler);
    const res = await register();
    expect(res.status, await res.clone().text()).toBe(200);
    expect(t.log.lines.some((l) => l.includes('"msg":"storage writable again"'))).toBe(true);
    expect((await t.ctx.database.client.execute("PRAGMA integrity_check")).rows[0]![0]).toBe("ok");
  }, 60_000);

  test("a browser back from GitHub's sign-in is sent to the sign-in page, which says so (not the API's JSON)", async () => {
    const start = await t.app.request("/api/auth/github?returnTo=/repos");
    expect(start.status).toBe(302);
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const cookie = start.headers.getSetCookie().find((h) => h.startsWith("ip_oauth_state="))!.split(";")[0]!;
    await t.ctx.database.client.execute("PRAGMA wal_checkpoint(TRUNCATE)");
    const filler = fill(dir);
    try {
      const res = await t.app.request(`/api/auth/github/callback?code=any&state=${state}`, { headers: { Cookie: cookie } });
      expect(res.status, await res.clone().text()).toBe(302);
      expect(res.headers.get("location")).toBe("/auth?error=storage_full");
    } finally {
      rmSync(filler);
    }
    // With space again the next write succeeds and ends the episode (the file's other tests start without one).
    expect((await t.app.request("/api/auth/github?returnTo=/repos")).status).toBe(302);
    expect(t.log.lines.some((l) => l.includes('"msg":"storage writable again"'))).toBe(true);
  }, 60_000);
});

describe.if(canMount)("a read-only data directory at start", () => {
  test("the production entry exits non-zero with one line naming the directory", async () => {
    const dir = join(await makeTempDir(), "data");
    mkdirSync(dir);
    if (!mountTmpfs(dir, "ro,size=1m")) throw new Error("mount failed");
    try {
      const proc = Bun.spawn([process.execPath, join(ROOT, "api", "serve.ts")], {
        cwd: ROOT,
        env: { ...process.env, ...(await sharedTestSecrets()), ...NO_CHAIN, ...NO_EXTERNALS, PORT: "0", DATA_DIR: dir, LOG_FORMAT: "json", LOG_LEVEL: "info" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      const stderr = (await new Response(proc.stderr).text()).trim();
      expect(code).not.toBe(0);
      expect(stderr.split("\n")).toEqual([`The data directory ${dir} is on a read-only file system (EROFS): Issuepool keeps its database there. Make it writable, or set DATA_DIR to a directory that is.`]);
    } finally {
      unmount(dir);
    }
  }, 30_000);

  test("npm start too: one line naming the directory, exit code 78, nothing started", async () => {
    const dir = join(await makeTempDir(), "data");
    mkdirSync(dir);
    if (!mountTmpfs(dir, "ro,size=1m")) throw new Error("mount failed");
    try {
      const proc = Bun.spawn([process.execPath, join(ROOT, "scripts", "dev.ts")], {
        cwd: ROOT,
        env: { ...process.env, PORT: "0", DATA_DIR: dir },
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      const stderr = (await new Response(proc.stderr).text()).trim();
      expect(code).toBe(78);
      expect(stderr.split("\n")).toEqual([`The data directory ${dir} is on a read-only file system (EROFS): Issuepool keeps its database there. Make it writable, or set DATA_DIR to a directory that is.`]);
    } finally {
      unmount(dir);
    }
  }, 60_000);
});

describe("SQLITE_FULL injected at the database layer", () => {
  /** A client whose writes fail as SQLite's do on a full disk while `full` is set. */
  function fillable(): Client & { full: boolean } {
    const fake = {
      full: false,
      closed: false,
      protocol: "file",
      async execute() {
        if (fake.full) throw new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL");
        return { rows: [], columns: [], columnTypes: [], rowsAffected: 1, lastInsertRowid: undefined, toJSON: () => ({}) };
      },
    };
    return fake as unknown as Client & { full: boolean };
  }

  test("an episode starts at the first refused write and ends at the next write that succeeds; each is heard once", async () => {
    const inner = fillable();
    const watch = new StorageWatch();
    const heard: boolean[] = [];
    watch.onChange((full) => heard.push(full));
    const client = serializeWrites(inner, 1000, watch);
    await client.execute("insert into t values (1)");
    inner.full = true;
    for (let i = 0; i < 5; i++) await expect(client.execute("insert into t values (2)")).rejects.toThrow("SQLITE_FULL");
    expect(watch.full).toBe(true);
    inner.full = false;
    await client.execute("insert into t values (3)");
    await client.execute("insert into t values (4)");
    expect(heard).toEqual([true, false]);
    expect(watch.full).toBe(false);
  });

  test("recognised however it is wrapped", () => {
    const full = new LibsqlError("SQLITE_FULL: database or disk is full", "SQLITE_FULL");
    expect(isStorageFull(full)).toBe(true);
    expect(isStorageFull(new Error("Failed query: insert ...", { cause: full }))).toBe(true);
    expect(isStorageFull(new LibsqlError("SQLITE_BUSY: database is locked", "SQLITE_BUSY"))).toBe(false);
  });
});
