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
  const client = createClient({
    url: memory ? ":memory:" : url,
    authToken: options.authToken,
    timeout: options.busyTimeoutMs ?? 5000,
  });
  if (file) {
    // WAL lets readers proceed while a writer commits; it is a property of the
    // file, so setting it once holds for every pooled connection.
    await client.execute("PRAGMA journal_mode = WAL");
  }
  const db = drizzle({ client, schema });
  return { db, client, url, embedded: memory || file, close: () => client.close() };
}

/** Applies the committed drizzle-kit migrations; a no-op when up to date. */
export async function migrateDatabase(handle: DatabaseHandle): Promise<void> {
  await migrate(handle.db, { migrationsFolder: MIGRATIONS_DIR });
}
