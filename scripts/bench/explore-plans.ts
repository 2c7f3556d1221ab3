/**
 * The query plans of /explore's searches and the boards' reads (docs/performance.md, "Explore at 100x"):
 * `bun scripts/bench/explore-plans.ts <libSQL file>` (a database seeded by scripts/bench/explore.ts with BENCH_DB).
 */
import { sql } from "drizzle-orm";
import { openDatabase } from "../../db/client.ts";
import { exploreQuery, titleReading } from "../../api/services/explore/search.ts";
import { parseExploreSearch } from "../../api/services/explore/search-params.ts";

const file = process.argv[2];
if (!file) throw new Error("usage: bun scripts/bench/explore-plans.ts <libSQL file>");
const database = await openDatabase(`file:${file}`);
for (const query of ["", "sort=oldest", "currency=XDC", "currency=XDC&min=10&max=200", "currency=XDC&sort=largest", "label=bug", "language=Rust", "label=bug&language=Rust", "currency=XDC&label=bug&language=Rust", "sort=expiring", "repo=org-1/project-1", "unclaimed=1", "q=wallet", "q=wallet parser signing", "q=qx", "q=ui", "q=ui wallet"]) {
  // A title search reads by key from the full-text index when it has few matches (what searchOpenBounties decides).
  const search = parseExploreSearch(new URLSearchParams(query));
  const reading = await titleReading(database.db, search.q);
  const titles = reading?.titles === "none" ? undefined : reading?.titles;
  const built = exploreQuery(database.db, search, { ...(titles ? { titles } : {}), ...(reading?.keys ? { titleKeys: reading.keys } : {}) }).toSQL();
  const plan = await database.client.execute({ sql: `EXPLAIN QUERY PLAN ${built.sql}`, args: built.params as never });
  console.log(`\n/explore?${query}${reading ? ` (full-text matches, counted up to 5,001: ${JSON.stringify(reading.counts)}: ${reading.titles})` : ""}`);
  for (const row of plan.rows) console.log(`  ${row.detail}`);
}
for (const [label, statement] of [
  ["contributors, all time", sql`select * from contributor_totals ct join wallets w on w.address = ct.recipient join users u on u.id = w.user_id where ct.paid_count > 0 order by ct.xdc_key desc, ct.roxn_key desc, ct.usdc_key desc, u.id limit 50`],
  ["projects, all time", sql`select * from repository_reliability r cross join repositories p where p.github_repo_id = r.github_repo_id and p.is_private = 0 and p.is_active = 1 and r.open_count + r.paid_count > 0 order by r.open_count desc, r.paid_count desc, p.github_repo_id limit 50`],
  ["contributors, 30 days", sql`select * from contributor_recent_totals ct join wallets w on w.address = ct.recipient join users u on u.id = w.user_id where ct.paid_count > 0 order by ct.xdc_key desc, ct.roxn_key desc, ct.usdc_key desc, u.id limit 50`],
  ["projects, 30 days", sql`select * from repository_recent_totals r cross join repositories p where p.github_repo_id = r.github_repo_id and p.is_private = 0 and p.is_active = 1 and r.paid_count > 0 order by r.paid_count desc, r.xdc_key desc, r.roxn_key desc, r.usdc_key desc, p.github_repo_id limit 50`],
  ["30 days: payouts between the horizon and 30 days ago", sql`select github_repo_id, currency, amount, recipient from bounties where status = 'paid' and closed_at >= 1790000000000 and closed_at < 1790000060000`],
  ["profile: earned", sql`select * from bounties b join repositories p on p.github_repo_id = b.github_repo_id where b.recipient = '0x1' and b.status = 'paid' and p.is_private = 0 order by b.closed_at desc limit 50`],
] as const) {
  const plan = await database.db.all<{ detail: string }>(sql`EXPLAIN QUERY PLAN ${statement}`);
  console.log(`\n${label}`);
  for (const row of plan) console.log(`  ${row.detail}`);
}
database.close();
