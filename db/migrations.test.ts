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

test("0017_explore_fts_words indexes the words of the open bounties' titles already there, and only those", async () => {
  const handle = await openDatabase(":memory:");
  try {
    await migrate(handle.db, { migrationsFolder: migrationsBefore("0017_explore_fts_words") });
    await handle.db.run(sql`insert into bounties (github_repo_id, issue_number, currency, amount, status, allocated_tx, allocated_at, issue_title, updated_block) values
      (5, 1, 'XDC', '1', 'open', '0x1', 1, 'Parser crash in the UI', 1),
      (5, 2, 'XDC', '1', 'paid', '0x2', 1, 'UI leak', 1),
      (5, 3, 'XDC', '1', 'open', '0x3', 1, null, 1),
      (5, 4, 'XDC', '1', 'open', '0x4', 1, 'Build a guide', 1)`);
    await migrateDatabase(handle);
    const rows = await handle.db.all<{ rowid: number; title: string }>(sql`select rowid, title from explore_title_words where explore_title_words match '"ui"'`);
    expect(rows).toEqual([{ rowid: 5 * 16_777_216 + 1, title: "Parser crash in the UI" }]);
    // Its triggers run from then on: a new open bounty comes in.
    await handle.db.run(sql`insert into bounties (github_repo_id, issue_number, currency, amount, status, allocated_tx, allocated_at, issue_title, updated_block) values (5, 5, 'XDC', '1', 'open', '0x5', 1, 'ui tweaks', 1)`);
    const after = await handle.db.all<{ rowid: number }>(sql`select rowid from explore_title_words where explore_title_words match '"ui"' order by rowid`);
    expect(after.map((r) => r.rowid)).toEqual([5 * 16_777_216 + 1, 5 * 16_777_216 + 5]);
  } finally {
    handle.close();
  }
});
