import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client, type InArgs, type InStatement, type Replicated, type ResultSet, type Transaction, type TransactionMode } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "./schema/index.ts";
import { createEmbeddedClient } from "./embedded-client.ts";

export type Database = LibSQLDatabase<typeof schema>;

export interface DatabaseHandle {
  db: Database;
  client: Client;
  url: string;
  /** True for the embedded file (or memory) database, false for a libSQL server. */
  embedded: boolean;
  /** Storage-full episodes of the embedded database (a libSQL server watches its own disk). */
  storage: StorageWatch;
  close(): void;
}

/** A write SQLite refused for lack of space (SQLITE_FULL), however wrapped (drizzle's query error, libSQL's). */
export function isStorageFull(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, extendedCode, message } = e as { code?: unknown; extendedCode?: unknown; message?: unknown };
    if (code === "SQLITE_FULL" || extendedCode === "SQLITE_FULL" || /SQLITE_FULL|database or disk is full/i.test(String(message ?? ""))) return true;
  }
  return false;
}

/**
 * Whether a write was refused by a unique index or primary key (SQLite's constraint codes, which drizzle wraps
 * as the cause). With `columns` ("chain_transactions.github_repo_id"), only a refusal by the index over them:
 * SQLite names the index's columns in its message and nowhere else, and reading its words is this module's job.
 */
export function isUniqueViolation(err: unknown, columns?: string): boolean {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, extendedCode, message } = e as { code?: unknown; extendedCode?: unknown; message?: unknown };
    const unique = [code, extendedCode].some((c) => c === "SQLITE_CONSTRAINT_UNIQUE" || c === "SQLITE_CONSTRAINT_PRIMARYKEY");
    if (unique && (columns === undefined || String(message ?? "").includes(`constraint failed: ${columns}`))) return true;
  }
  return false;
}

/**
 * Whether the storage is full right now, as the writes find it: a write
 * refused with SQLITE_FULL starts an episode, the next write that succeeds
 * ends it. Listeners hear each change once (one warning per episode, not
 * one per refused request). SQLite rolls a refused write back whole, so an
 * episode changes nothing already stored.
 */
export class StorageWatch {
  full = false;
  private readonly listeners = new Set<(full: boolean, err?: unknown) => void>();

  onChange(listener: (full: boolean, err?: unknown) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  wrote(): void {
    if (!this.full) return;
    this.full = false;
    for (const listener of this.listeners) listener(false);
  }

  failed(err: unknown): void {
    if (this.full || !isStorageFull(err)) return;
    this.full = true;
    for (const listener of this.listeners) listener(true, err);
  }
}

export interface OpenDatabaseOptions {
  authToken?: string;
  busyTimeoutMs?: number;
}

export const MIGRATIONS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "migrations");

/**
 * Opens the database: `file:path` (the embedded default), `:memory:` (tests)
 * or `libsql://`/`http(s)://` (a libSQL server or Turso for scale-out).
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  const memory = url === ":memory:" || url === "file::memory:";
  const file = !memory && url.startsWith("file:");
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  let raw: Client;
  if (memory || file) {
    const path = memory ? ":memory:" : filePath(url);
    if (file) ownerOnly(resolve(path));
    raw = createEmbeddedClient(path, { busyTimeoutMs });
  } else {
    raw = createClient({ url, authToken: options.authToken, timeout: busyTimeoutMs });
  }
  const storage = new StorageWatch();
  const client = memory || file ? serializeWrites(raw, busyTimeoutMs, storage) : raw;
  if (file) {
    // WAL lets readers proceed while a writer commits; it is a property of the
    // file, so setting it once holds for every pooled connection.
    await client.execute("PRAGMA journal_mode = WAL");
  }
  const db = drizzle({ client, schema });
  return { db, client, url, embedded: memory || file, storage, close: () => client.close() };
}

/**
 * The embedded database holds sessions' hashes, wrapped keys and everyone's
 * e-mail: its file is created 0600 before libSQL opens it (SQLite gives the
 * -wal and -shm files the database file's mode), and files left readable by
 * an earlier version are narrowed (issue 25).
 */
function ownerOnly(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, "a", 0o600));
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      chmodSync(path + suffix, 0o600);
    } catch {
      // Not there (yet): SQLite creates it with the database file's mode.
    }
  }
}

/** The path of a `file:` URL (`file:data/app.db`, `file:/abs/app.db`, `file:///abs/app.db`). */
export function filePath(url: string): string {
  let rest = url.slice("file:".length);
  if (/[?#]/.test(rest)) throw new Error(`A file: database URL takes no query parameters: ${JSON.stringify(url)}`);
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const host = rest.slice(2, slash < 0 ? undefined : slash);
    if (host !== "" && host.toLowerCase() !== "localhost") {
      throw new Error(`Invalid host in file URL: ${JSON.stringify(host)}. An absolute path starts with one slash ("file:/abs/app.db") or three ("file:///abs/app.db").`);
    }
    rest = slash < 0 ? "" : rest.slice(slash);
  }
  const path = decodeURIComponent(rest);
  if (!path) throw new Error(`No path in the database URL ${JSON.stringify(url)}`);
  return path;
}

const READ_ONLY = /^\s*(select|pragma|explain)\b/i;

/**
 * One writer at a time per process, for the embedded database.
 *
 * SQLite allows one writer; libSQL's embedded driver pools connections and
 * waits for the write lock synchronously, blocking the event loop. If the
 * lock holder is another connection of this same process (a transaction
 * awaiting something), it can never finish: every writer stalls until the
 * busy timeout. And a write that fails with SQLITE_BUSY while returning rows
 * (UPDATE ... RETURNING) leaves its statement unreset, so that pooled
 * connection keeps reading an old snapshot. So writers of this process queue
 * here, asynchronously, and only contend inside SQLite with other processes,
 * where the driver's busy timeout is the right tool. Reads never queue (WAL).
 *
 * A transaction holds the queue until it commits, rolls back or closes, so
 * code inside one must write through it, never through the outer client
 * (that would wait for itself; the wait gives up after `timeoutMs`).
 */
export function serializeWrites(client: Client, timeoutMs: number, storage = new StorageWatch()): Client {
  return new SerializedWrites(client, new WriteQueue(timeoutMs), storage);
}

/** First come, first served; a writer that waited `timeoutMs` gives up its place. Free: taken at once, no timer. */
class WriteQueue {
  private held = false;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(private readonly timeoutMs: number) {}

  acquire(): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(this.releaser());
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(new Error(`database write lock not acquired within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.held = false;
    };
  }
}

class SerializedWrites implements Client {
  constructor(
    private readonly inner: Client,
    private readonly queue: WriteQueue,
    private readonly storage: StorageWatch,
  ) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  get protocol(): string {
    return this.inner.protocol;
  }

  execute(stmt: InStatement): Promise<ResultSet>;
  execute(sql: string, args?: InArgs): Promise<ResultSet>;
  execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt: InStatement = typeof stmtOrSql === "string" ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    const sql = typeof stmt === "string" ? stmt : stmt.sql;
    return READ_ONLY.test(sql) ? this.inner.execute(stmt) : this.exclusively(() => this.inner.execute(stmt));
  }

  batch(stmts: Array<InStatement | [string, InArgs?]>, mode?: TransactionMode): Promise<ResultSet[]> {
    return this.exclusively(() => this.inner.batch(stmts, mode));
  }

  migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.exclusively(() => this.inner.migrate(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.exclusively(() => this.inner.executeMultiple(sql));
  }

  async transaction(mode?: TransactionMode): Promise<Transaction> {
    if (mode === "read") return this.inner.transaction(mode);
    const release = await this.queue.acquire();
    try {
      return new HeldTransaction(await this.inner.transaction(mode), release, this.storage);
    } catch (err) {
      release();
      throw err;
    }
  }

  sync(): Promise<Replicated> {
    return this.inner.sync();
  }

  close(): void {
    this.inner.close();
  }

  reconnect(): void {
    this.inner.reconnect();
  }

  private async exclusively<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.queue.acquire();
    try {
      const result = await work();
      this.storage.wrote();
      return result;
    } catch (err) {
      this.storage.failed(err);
      throw err;
    } finally {
      release();
    }
  }
}

/** A write transaction that holds the write queue until it commits, rolls back or closes. */
class HeldTransaction implements Transaction {
  constructor(
    private readonly tx: Transaction,
    private readonly release: () => void,
    private readonly storage: StorageWatch,
  ) {}

  get closed(): boolean {
    return this.tx.closed;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.watched(this.tx.execute(stmt));
  }

  batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.watched(this.tx.batch(stmts));
  }

  executeMultiple(sql: string): Promise<void> {
    return this.watched(this.tx.executeMultiple(sql));
  }

  async commit(): Promise<void> {
    try {
      await this.watched(this.tx.commit());
      this.storage.wrote();
    } finally {
      this.release();
    }
  }

  private watched<T>(work: Promise<T>): Promise<T> {
    return work.catch((err: unknown) => {
      this.storage.failed(err);
      throw err;
    });
  }

  async rollback(): Promise<void> {
    try {
      await this.tx.rollback();
    } finally {
      this.release();
    }
  }

  close(): void {
    try {
      this.tx.close();
    } finally {
      this.release();
    }
  }
}

/** Applies the committed drizzle-kit migrations; a no-op when up to date. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await migrate(handle.db, { migrationsFolder: MIGRATIONS_DIR });
}
