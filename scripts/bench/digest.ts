/**
 * Digest benchmark (not a test): `bun scripts/bench/digest.ts [subscribers] [bounties] [--smtp]`.
 *
 * Issue 30, item 6: "a daily digest for 10,000 subscribers is built and handed to the mailer within a minute".
 * Seeds a libSQL file with `subscribers` users (default 10,000), each with one or two saved searches drawn from
 * 40 distinct explore searches, 200 public repositories and `bounties` open bounties (default 200,000), a
 * tenth of them allocated since the searches were saved. Then it runs one digest pass (api/workers/digest.ts)
 * as the server does, and prints how long building and handing every mail to the mailer took, how many mails
 * were handed over and how many days were recorded empty.
 *
 * The mailer is a counter by default: "handed to the mailer" is what is measured, not an SMTP server's speed.
 * With `--smtp`, the mails go through the real mailer (nodemailer) to the local SMTP sink, for the end-to-end
 * figure.
 */
import { sql } from "drizzle-orm";
import { createTestContext } from "../../testing/context.ts";
import { startMailSink } from "../../testing/dev-tools.ts";
import { DigestWorker } from "../../api/workers/digest.ts";
import type { Mailer, MailMessage } from "../../api/mail/mailer.ts";
import { createMailer } from "../../api/mail/mailer.ts";
import { CURRENCIES, unitOf } from "../../lib/money.ts";

const SUBSCRIBERS = Number(process.argv[2] ?? 10_000);
const BOUNTIES = Number(process.argv[3] ?? 200_000);
const SMTP = process.argv.includes("--smtp");
const REPOS = 200;
const WORDS = ["parser", "wallet", "docs", "bridge", "indexer", "sdk", "ui", "tests", "cli", "api"];

const sink = SMTP ? await startMailSink({ keep: 50 }) : undefined;
const t = await createTestContext({ fileDatabase: true, env: sink ? { SMTP_URL: sink.smtpUrl } : {} });
const db = t.ctx.database.db;
const client = t.ctx.database.client;
const now = Date.now();
const savedAt = now - 86_400_000;
const day = new Date(Math.ceil(now / 86_400_000) * 86_400_000 + 8 * 3_600_000);

async function batchInsert(table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const per = Math.floor(30_000 / columns.length);
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    await client.execute({
      sql: `insert into ${table} (${columns.join(",")}) values ${chunk.map(() => `(${columns.map(() => "?").join(",")})`).join(",")}`,
      args: chunk.flat() as never,
    });
  }
}

const seedStarted = performance.now();
await batchInsert(
  "repositories",
  ["github_repo_id", "full_name", "full_name_key", "owner", "name", "html_url", "is_private", "is_active"],
  Array.from({ length: REPOS }, (_, i) => [700_000 + i, `org${i % 20}/repo${i}`, `org${i % 20}/repo${i}`, `org${i % 20}`, `repo${i}`, `https://github.com/org${i % 20}/repo${i}`, 0, 1]),
);
await batchInsert(
  "bounties",
  ["github_repo_id", "issue_number", "currency", "amount", "status", "allocated_tx", "allocated_at", "issue_title", "updated_block"],
  Array.from({ length: BOUNTIES }, (_, i) => {
    const fresh = i % 10 === 0;
    const currency = CURRENCIES[i % 3]!;
    const amount = (BigInt(1 + (i % 500)) * unitOf(currency)).toString();
    return [700_000 + (i % REPOS), 1 + Math.floor(i / REPOS), currency, amount, "open", `0x${i.toString(16).padStart(64, "0")}`, fresh ? savedAt + 1_000 + (i % 80_000_000) : savedAt - 1_000 - i, `Improve the ${WORDS[i % WORDS.length]} (${i})`, 1];
  }),
);
await batchInsert(
  "users",
  ["id", "github_id", "username", "email"],
  Array.from({ length: SUBSCRIBERS }, (_, i) => [100_000 + i, 5_000_000 + i, `subscriber${i}`, `subscriber${i}@example.com`]),
);
const searches: string[] = [];
for (let i = 0; i < 40; i++) {
  const parts = [`currency=${CURRENCIES[i % 3]}`, `min=${(i % 5) * 50}`];
  if (i % 2) parts.push(`q=${WORDS[i % WORDS.length]}`);
  if (i % 4 === 0) parts.push(`repo=org${i % 20}/repo${i}`);
  searches.push(new URLSearchParams(parts.map((p) => p.split("=") as [string, string])).toString());
}
await batchInsert(
  "saved_searches",
  ["id", "user_id", "name", "query", "digest", "notified_until", "created_at"],
  Array.from({ length: SUBSCRIBERS }, (_, i) => [
    [`ss_a${i}`, 100_000 + i, "A", searches[i % 40]!, 1, savedAt, savedAt],
    ...(i % 3 === 0 ? [[`ss_b${i}`, 100_000 + i, "B", searches[(i * 7 + 3) % 40]!, 1, savedAt, savedAt]] : []),
  ]).flat(),
);
await client.execute("analyze");
const seedMs = performance.now() - seedStarted;

let handed = 0;
let bytes = 0;
const real = SMTP ? createMailer(t.env, t.log, { pool: true }) : undefined;
const mailer: Mailer = {
  async send(message: MailMessage) {
    handed++;
    bytes += message.text.length + (message.html?.length ?? 0);
    if (real) await real.send(message);
  },
  close: () => real?.close(),
};

const worker = new DigestWorker({ db, log: t.log, mailer, appSecret: t.ctx.appSecret, publicUrl: "https://issuepool.example", hourUtc: 7, now: () => day.getTime(), concurrency: SMTP ? 4 : 8 });
const started = performance.now();
const users = await worker.runOnce();
const passMs = performance.now() - started;
const [counts] = (await db.all(sql`select sum(status = 'sent') as sent, sum(status = 'empty') as empty, sum(status = 'failed') as failed from digest_runs`)) as { sent: number; empty: number; failed: number }[];

console.log(`digest bench: ${SUBSCRIBERS} subscribers, ${BOUNTIES} open bounties (${BOUNTIES / 10} new), 40 distinct searches, mailer: ${SMTP ? "nodemailer to the local SMTP sink" : "hand-off counter"}`);
console.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s`);
console.log(`  one pass: ${(passMs / 1000).toFixed(2)} s for ${users} subscribers (${((users / passMs) * 1000).toFixed(0)}/s)`);
console.log(`  mails handed to the mailer: ${handed} (${(bytes / handed / 1024).toFixed(1)} KB each on average); runs: sent ${counts?.sent}, empty ${counts?.empty}, failed ${counts?.failed}`);
console.log(`  target: < 60 s -> ${passMs < 60_000 ? "met" : "NOT met"}`);
mailer.close();
t.close();
await sink?.stop();
process.exit(0);
