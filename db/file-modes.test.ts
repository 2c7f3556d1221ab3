import { describe, expect, test } from "bun:test";
import { chmodSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "./client.ts";
import { makeTempDir } from "../testing/temp-dirs.ts";
import { loadOrCreateDevSecrets } from "../scripts/lib/dev-secrets.ts";

/** Issue 25, item 5: the embedded default's data files are the owner's alone. */
const mode = (path: string) => statSync(path).mode & 0o777;

describe("data files of the embedded default are created 0600", () => {
  test("the database and its WAL and shared-memory files", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "data", "app.db");
    const database = await openDatabase(`file:${path}`);
    try {
      await database.client.execute("CREATE TABLE t (x)");
      await database.client.execute("INSERT INTO t VALUES (1)");
      for (const file of [path, `${path}-wal`, `${path}-shm`]) expect({ file, mode: mode(file).toString(8) }).toEqual({ file, mode: "600" });
    } finally {
      database.close();
    }
  });

  test("a database left world-readable by an earlier version is narrowed when opened", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "app.db");
    writeFileSync(path, "");
    chmodSync(path, 0o644);
    const database = await openDatabase(`file:${path}`);
    database.close();
    expect(mode(path).toString(8)).toBe("600");
  });

  test("dev-secrets.json", async () => {
    const dir = await makeTempDir();
    await loadOrCreateDevSecrets(join(dir, "data"));
    expect(mode(join(dir, "data", "dev-secrets.json")).toString(8)).toBe("600");
  });
});
