import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "@libsql/client";
import { drizzle, type LibSQLDatabase } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import * as schema from "./schema/index.ts";

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
  if (file) {
    const path = url.slice("file:".length).replace(/\?.*$/, "");
    mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const raw = createClient({
    url: memory ? ":memory:" : url,
    authToken: options.authToken,
    // The embedded driver waits for a lock synchronously, blocking the event
    // loop: if the holder is another connection of this process, it can never
    // commit and both stall until the timeout. So the driver does not wait;
    // retryWhenBusy waits asynchronously instead.
    timeout: file ? 0 : busyTimeoutMs,
  });
  const client = file ? retryWhenBusy(raw, busyTimeoutMs) : raw;
  if (file) {
    // WAL lets readers proceed while a writer commits; it is a property of the
    // file, so setting it once holds for every pooled connection.
    await client.execute("PRAGMA journal_mode = WAL");
  }
  const db = drizzle({ client, schema });
  return { db, client, url, embedded: memory || file, close: () => client.close() };
}

const RETRIED = new Set(["execute", "batch", "transaction", "executeMultiple", "migrate"]);

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string; rawCode?: number }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED" || (err as { rawCode?: number }).rawCode === 5;
}

/**
 * Retries statements (and the BEGIN of transactions, which drizzle opens as
 * IMMEDIATE) that found the database locked, sleeping between attempts so
 * the lock holder can finish. A busy statement did not run, so running it
 * again is safe. Gives up after `timeoutMs`.
 */
export function retryWhenBusy(client: Client, timeoutMs: number): Client {
  return new Proxy(client, {
    get(target, prop) {
      // The client keeps its state in private fields: always call it as itself.
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || !RETRIED.has(prop)) return value.bind(target);
      return async (...args: unknown[]) => {
        const deadline = Date.now() + timeoutMs;
        for (let delay = 1; ; delay = Math.min(delay * 2, 25)) {
          try {
            return await value.apply(target, args);
          } catch (err) {
            if (!isBusy(err) || Date.now() + delay > deadline) throw err;
            await Bun.sleep(delay);
          }
        }
      };
    },
  });
}

/** Applies the committed drizzle-kit migrations; a no-op when up to date. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await migrate(handle.db, { migrationsFolder: MIGRATIONS_DIR });
}
