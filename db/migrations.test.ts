/**
 * Custom migrations that move data (drizzle-kit writes none of these): a database from before them, with rows in it,
 * comes out right. 0015_explore_fts fills the full-text index of open bounties' titles from the rows already there;
 * its triggers keep it afterwards (api/services/explore/search.test.ts).
 */
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { migrate } from "drizzle-orm/libsql/migrator";
import { MIGRATIONS_DIR, migrateDatabase, openDatabase } from "./client.ts";

const dir = mkdtempSync(join(tmpdir(), "issuepool-migrations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations folder as it stood before `tag` (its journal cut there). */
function migrationsBefore(tag: string): string {
  const folder = join(dir, `before-${tag}`);
  cpSync(MIGRATIONS_DIR, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalPath, JSON.stringify(journal));
  return folder;
}

test("0015_explore_fts indexes the titles of the open bounties already there, and only those", async () => {
  const handle = await openDatabase(":memory:");
  try {
    await migrate(handle.db, { migrationsFolder: migrationsBefore("0015_explore_fts") });
    await handle.db.run(sql`insert into bounties (github_repo_id, issue_number, currency, amount, status, allocated_tx, allocated_at, issue_title, updated_block) values
      (5, 1, 'XDC', '1', 'open', '0x1', 1, 'Parser crash on empty input', 1),
      (5, 2, 'XDC', '1', 'paid', '0x2', 1, 'Parser leak', 1),
      (5, 3, 'XDC', '1', 'open', '0x3', 1, null, 1)`);
    await migrateDatabase(handle);
    const rows = await handle.db.all<{ rowid: number; title: string }>(sql`select rowid, title from explore_titles where explore_titles match '"parser"'`);
    expect(rows).toEqual([{ rowid: 5 * 16_777_216 + 1, title: "Parser crash on empty input" }]);
  } finally {
    handle.close();
  }
});
