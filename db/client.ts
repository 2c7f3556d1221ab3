import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client, type Transaction } from "@libsql/client";
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
  close(): void;
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
    if (file) mkdirSync(dirname(resolve(path)), { recursive: true });
    raw = createEmbeddedClient(path, { busyTimeoutMs });
  } else {
    raw = createClient({ url, authToken: options.authToken, timeout: busyTimeoutMs });
  }
  const client = memory || file ? serializeWrites(raw, busyTimeoutMs) : raw;
  if (file) {
    // WAL lets readers proceed while a writer commits; it is a property of the
    // file, so setting it once holds for every pooled connection.
    await client.execute("PRAGMA journal_mode = WAL");
  }
  const db = drizzle({ client, schema });
  return { db, client, url, embedded: memory || file, close: () => client.close() };
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
export function serializeWrites(client: Client, timeoutMs: number): Client {
  let tail: Promise<void> = Promise.resolve();
  const acquire = async (): Promise<() => void> => {
    let release!: () => void;
    const previous = tail;
    tail = new Promise((resolve) => (release = resolve));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`database write lock not acquired within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([previous, timedOut]);
    } catch (err) {
      // Give up our place without blocking those behind us: they wait for `previous` through us.
      previous.then(release);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };
  const sqlOf = (stmt: unknown) => (typeof stmt === "string" ? stmt : ((stmt as { sql?: string })?.sql ?? ""));
  const exclusively = async <T>(work: () => Promise<T>): Promise<T> => {
    const release = await acquire();
    try {
      return await work();
    } finally {
      release();
    }
  };

  return new Proxy(client, {
    get(target, prop) {
      // The client keeps its state in private fields: always call it as itself.
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (...args: unknown[]) => Promise<unknown>;
      switch (prop) {
        case "execute":
          return (stmt: unknown, ...rest: unknown[]) => (READ_ONLY.test(sqlOf(stmt)) ? method(stmt, ...rest) : exclusively(() => method(stmt, ...rest)));
        case "batch":
        case "executeMultiple":
        case "migrate":
          return (...args: unknown[]) => exclusively(() => method(...args));
        case "transaction":
          return async (mode?: string) => {
            if (mode === "read") return method(mode);
            const release = await acquire();
            try {
              const tx = (await method(mode)) as Transaction;
              return holdUntilSettled(tx, release);
            } catch (err) {
              release();
              throw err;
            }
          };
        default:
          return method;
      }
    },
  });
}

function holdUntilSettled(tx: Transaction, release: () => void): Transaction {
  return new Proxy(tx, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const method = value.bind(target) as (...args: unknown[]) => unknown;
      if (prop === "commit" || prop === "rollback") {
        return async (...args: unknown[]) => {
          try {
            return await method(...args);
          } finally {
            release();
          }
        };
      }
      if (prop === "close") {
        return (...args: unknown[]) => {
          try {
            return method(...args);
          } finally {
            release();
          }
        };
      }
      return method;
    },
  });
}

/** Applies the committed drizzle-kit migrations; a no-op when up to date. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await migrate(handle.db, { migrationsFolder: MIGRATIONS_DIR });
}
