import { describe, expect, test } from "bun:test";
import Database from "libsql";
import { createClient, LibsqlError, type Client } from "@libsql/client";
import { createEmbeddedClient } from "./embedded-client.ts";
import { filePath } from "./client.ts";
import { makeTempDir } from "../testing/context.ts";

async function fileClient(options: Parameters<typeof createEmbeddedClient>[1] = {}): Promise<{ client: Client; path: string }> {
  const path = `${await makeTempDir()}/app.db`;
  const client = createEmbeddedClient(path, options);
  await client.execute("PRAGMA journal_mode = WAL");
  await client.execute("create table t (id integer primary key, n integer not null, name text, data blob)");
  return { client, path };
}

describe("embedded libSQL client", () => {
  test("answers exactly as @libsql/client does: rows by index and name, integers, blobs, results of writes", async () => {
    const { client, path } = await fileClient();
    const reference = createClient({ url: `file:${path}` });
    const write = { sql: "insert into t (n, name, data) values (?, ?, ?)", args: [9_007_199_254_740_991n, "a", new Uint8Array([1, 2, 3]).buffer] };
    const ours = await client.execute(write);
    const theirs = await reference.execute({ ...write, args: [1, "b", null] });
    expect([ours.rowsAffected, ours.lastInsertRowid, ours.rows.length]).toEqual([1, 1n, 0]);
    expect([theirs.rowsAffected, theirs.lastInsertRowid]).toEqual([1, 2n]);
    for (const sql of ["select id, n, name, data, n as id from t order by id", "update t set n = n - 1 where id = 1 returning id, n"]) {
      const a = await client.execute(sql);
      await reference.execute("select 1"); // keep the reference's view current
      const b = await (sql.startsWith("update") ? reference.execute("update t set n = n + 1 where id = 1 returning id, n") : reference.execute(sql));
      expect(a.columns).toEqual(b.columns);
      expect(a.columnTypes).toEqual(b.columnTypes);
      expect(a.rows.length).toBe(b.rows.length);
      expect(Object.keys(a.rows[0]!)).toEqual(Object.keys(b.rows[0]!));
      expect(a.rows[0]!.length).toBe(b.rows[0]!.length);
      expect(Array.from(a.rows[0]!).map((v) => typeof v)).toEqual(Array.from(b.rows[0]!).map((v) => typeof v));
      expect(JSON.stringify(a)).toBe(JSON.stringify(a.toJSON()));
    }
    const [row] = (await client.execute("select id, n, data from t where id = 1")).rows;
    expect(row!.n).toBe(9_007_199_254_740_991);
    expect(new Uint8Array(row!.data as ArrayBuffer)).toEqual(new Uint8Array([1, 2, 3]));
    await client.execute("update t set n = n + 1 where id = 1");
    await expect(client.execute("select n from t where id = 1")).rejects.toThrow(RangeError);
    reference.close();
    client.close();
  });

  test("a reused statement sees what other connections and processes committed since", async () => {
    const { client, path } = await fileClient();
    await client.execute({ sql: "insert into t (id, n) values (1, 0)", args: [] });
    const other = new Database(path);
    for (let i = 1; i <= 50; i++) {
      other.prepare("update t set n = ? where id = 1").run(i);
      const { rows } = await client.execute({ sql: "select n from t where id = ?", args: [1] });
      expect(rows[0]!.n).toBe(i);
    }
    other.close();
    client.close();
  });

  test("a statement that failed while another process held the write lock leaves no connection on an old snapshot", async () => {
    const { client, path } = await fileClient({ busyTimeoutMs: 20 });
    await client.execute("insert into t (id, n) values (1, 0)");
    await client.execute("select n from t where id = 1"); // prepared and cached on the pooled connection
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    const failed = await client.execute("update t set n = n + 1 where id = 1 returning n").catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(LibsqlError);
    expect((failed as LibsqlError).code).toBe("SQLITE_BUSY");
    other.exec("update t set n = 41 where id = 1");
    other.exec("COMMIT");
    other.prepare("update t set n = 42 where id = 1").run();
    const [read, again] = await Promise.all([client.execute("select n from t where id = 1"), client.execute("update t set n = n + 1 where id = 1 returning n")]);
    expect(read.rows[0]!.n).toBe(42);
    expect(again.rows[0]!.n).toBe(43);
    other.close();
    client.close();
  });

  test("a constraint error is an error like any other and the next statement works", async () => {
    const { client } = await fileClient();
    await client.execute("insert into t (id, n) values (1, 0)");
    const err = await client.execute("insert into t (id, n) values (1, 0)").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LibsqlError);
    expect((err as LibsqlError).code).toBe("SQLITE_CONSTRAINT");
    expect(String((err as Error).message)).toContain("UNIQUE constraint failed: t.id");
    expect((await client.execute("select count(*) as c from t")).rows[0]!.c).toBe(1);
    client.close();
  });

  test("transactions commit, roll back, and a connection is never handed on mid-transaction", async () => {
    const { client } = await fileClient();
    const tx = await client.transaction("write");
    await tx.execute("insert into t (id, n) values (1, 1)");
    // Reads outside see only what is committed, on another connection.
    expect((await client.execute("select count(*) as c from t")).rows[0]!.c).toBe(0);
    await tx.commit();
    expect(tx.closed).toBe(true);
    await expect(tx.execute("select 1")).rejects.toThrow("The transaction is closed");
    const rolledBack = await client.transaction("write");
    await rolledBack.execute("insert into t (id, n) values (2, 2)");
    await rolledBack.rollback();
    const left = await client.transaction("write");
    await left.execute("insert into t (id, n) values (3, 3)");
    left.close();
    expect((await client.execute("select group_concat(id) as ids from t")).rows[0]!.ids).toBe("1");
    // A batch is all or nothing.
    const failed = await client.batch(["insert into t (id, n) values (4, 4)", "insert into t (id, n) values (1, 1)"], "write").catch((e: unknown) => e);
    expect((failed as { statementIndex?: number }).statementIndex).toBe(1);
    expect((await client.execute("select count(*) as c from t")).rows[0]!.c).toBe(1);
    client.close();
  });

  test("a schema change forgets prepared statements, on every connection", async () => {
    const { client } = await fileClient();
    await client.execute("insert into t (id, n) values (1, 1)");
    const held = await client.transaction("read"); // keeps a second connection busy, so two are pooled
    expect(Object.keys((await client.execute("select * from t")).rows[0]!)).toEqual(["id", "n", "name", "data"]);
    await held.commit();
    await client.execute("alter table t add column extra text default 'x'");
    for (let i = 0; i < 3; i++) {
      const held2 = await client.transaction("read");
      expect((await held2.execute("select * from t")).columns).toEqual(["id", "n", "name", "data", "extra"]);
      expect((await client.execute("select * from t")).columns).toEqual(["id", "n", "name", "data", "extra"]);
      await held2.commit();
    }
    client.close();
  });

  test("the statement cache is bounded", async () => {
    const { client } = await fileClient({ statementCacheSize: 4 });
    for (let i = 0; i < 50; i++) expect((await client.execute(`select ${i} as v`)).rows[0]!.v).toBe(i);
    expect((await client.execute("select 3 as v")).rows[0]!.v).toBe(3);
    client.close();
  });

  test("a memory database is one connection: a second user waits or is told, never given another database", async () => {
    const client = createEmbeddedClient(":memory:");
    await client.execute("create table t (id integer primary key)");
    const tx = await client.transaction("write");
    await tx.execute("insert into t (id) values (1)");
    const err = await client.execute("select 1").catch((e: unknown) => e);
    expect((err as LibsqlError).code).toBe("TRANSACTION_ACTIVE");
    await tx.commit();
    await client.execute("insert into t (id) values (1)").catch(() => undefined); // a constraint error keeps the only connection
    expect((await client.execute("select count(*) as c from t")).rows[0]!.c).toBe(1);
    client.close();
    expect(client.closed).toBe(true);
    await expect(client.execute("select 1")).rejects.toThrow("The client is closed");
  });

  test("file: URLs name the file", () => {
    expect(filePath("file:data/app.db")).toBe("data/app.db");
    expect(filePath("file:/tmp/a b.db")).toBe("/tmp/a b.db");
    expect(filePath("file:///tmp/a%20b.db")).toBe("/tmp/a b.db");
    expect(filePath("file://localhost/tmp/x.db")).toBe("/tmp/x.db");
    expect(() => filePath("file://example.com/x.db")).toThrow("Invalid host");
    expect(() => filePath("file:x.db?mode=ro")).toThrow("no query parameters");
  });
});
