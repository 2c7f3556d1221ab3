import type { Database } from "./client.ts";

/**
 * A query built once per database handle and run with placeholders, for the
 * hot paths: drizzle otherwise builds the SQL of every query afresh, which
 * was about a fifth of the server's CPU in the chain benchmark. Keyed by the
 * handle, so a query given a transaction runs inside it.
 */
export function preparedQuery<Q>(build: (db: Database) => Q): (db: Database) => Q {
  const built = new WeakMap<Database, Q>();
  return (db) => {
    let query = built.get(db);
    if (!query) built.set(db, (query = build(db)));
    return query;
  };
}
