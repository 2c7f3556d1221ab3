import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bounties, bountyShares, repositories, users, wallets, type Currency } from "../../../db/schema/index.ts";
import { bountyText, formatFull } from "../../../lib/money-format.ts";
import { notFound } from "../../errors.ts";
import { describeSearch, matchingBounties, matchedAmountText, parseSearch, canonicalQuery } from "./search.ts";

/**
 * Atom feeds (RFC 4287) of an explore search, a repository and a contributor (issue 30): public data only
 * (public, active repositories), every text escaped, ids stable (`tag:` URIs, RFC 4151) so a reader never shows
 * an entry twice.
 */
type Deps = Pick<AppContext, "database" | "env">;

interface Entry {
  id: string;
  title: string;
  link: string;
  updated: Date;
  summary: string;
}

const FEED_SIZE = 50;

export function escapeXml(value: string): string {
  // Characters XML 1.0 does not allow at all are dropped; the five specials escaped.
  return value
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]!);
}

function tagUri(publicUrl: string, specific: string): string {
  return `tag:${new URL(publicUrl).hostname},2026:${specific}`;
}

export function atomFeed(input: { id: string; title: string; selfUrl: string; htmlUrl: string; entries: Entry[]; publicUrl: string }): string {
  const updated = input.entries.reduce((latest, e) => (e.updated > latest ? e.updated : latest), new Date(0));
  const entries = input.entries
    .map(
      (e) =>
        `<entry><id>${escapeXml(e.id)}</id><title>${escapeXml(e.title)}</title><link rel="alternate" type="text/html" href="${escapeXml(e.link)}"/><updated>${e.updated.toISOString()}</updated><summary type="text">${escapeXml(e.summary)}</summary></entry>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><id>${escapeXml(input.id)}</id><title>${escapeXml(input.title)}</title><updated>${(input.entries.length ? updated : new Date(0)).toISOString()}</updated><author><name>Issuepool</name><uri>${escapeXml(input.publicUrl)}</uri></author><link rel="self" type="application/atom+xml" href="${escapeXml(input.selfUrl)}"/><link rel="alternate" type="text/html" href="${escapeXml(input.htmlUrl)}"/><generator>Issuepool</generator>
${entries}
</feed>
`;
}

const amountText = (amount: bigint, currency: Currency) => `${formatFull(amount, currency)} ${currency}`;

export async function exploreFeed(deps: Deps, query: string): Promise<string> {
  // Like the explore page, the feed leaves parameters it does not read alone (utm_*, …).
  const search = parseSearch(query, { strict: false });
  const canonical = canonicalQuery(search);
  const { PUBLIC_URL: base } = deps.env;
  const matches = await matchingBounties(deps.database.db, search, { limit: FEED_SIZE });
  return atomFeed({
    id: tagUri(base, `explore?${canonical}`),
    title: `Issuepool bounties: ${describeSearch(search)}`,
    selfUrl: `${base}/api/feeds/explore${canonical ? `?${canonical}` : ""}`,
    htmlUrl: `${base}/explore${canonical ? `?${canonical}` : ""}`,
    publicUrl: base,
    entries: matches.map((b) => ({
      id: tagUri(base, `bounty/${b.repoId}/${b.issueNumber}/${b.allocatedAt.getTime()}`),
      title: `${bountyText({ currency: b.currency, pool: b.amount - b.boosted, funders: b.boosted, funderCount: b.funders }).total}: ${b.fullName}#${b.issueNumber} ${b.issueTitle ?? ""}`.trim(),
      link: `${base}/${b.fullName}`,
      updated: b.allocatedAt,
      summary: `A bounty of ${matchedAmountText(b)} on ${b.fullName}#${b.issueNumber}${b.issueTitle ? ` "${b.issueTitle}"` : ""}.`,
    })),
  });
}

/** A repository's bounties, newest change first: set, paid, returned to the pool. */
export async function repositoryFeed(deps: Deps, owner: string, name: string): Promise<string> {
  const db = deps.database.db;
  const { PUBLIC_URL: base } = deps.env;
  const [repository] = await db
    .select()
    .from(repositories)
    .where(and(eq(repositories.fullNameKey, `${owner}/${name}`.toLowerCase()), eq(repositories.isPrivate, false)))
    .limit(1);
  if (!repository) throw notFound("Repository not found.");
  const rows = await db
    .select()
    .from(bounties)
    .where(eq(bounties.githubRepoId, repository.githubRepoId))
    .orderBy(desc(bounties.updatedAt))
    .limit(FEED_SIZE);
  const verb = { open: "Bounty", queued: "Being paid", paid: "Paid", cancelled: "Returned to the pool" } as const;
  return atomFeed({
    id: tagUri(base, `repo/${repository.githubRepoId}`),
    title: `Issuepool bounties of ${repository.fullName}`,
    selfUrl: `${base}/api/feeds/repos/${repository.fullName}`,
    htmlUrl: `${base}/${repository.fullName}`,
    publicUrl: base,
    entries: rows.map((b) => ({
      // One entry per state of an allocation: a payout is news after the bounty was.
      id: tagUri(base, `bounty/${b.githubRepoId}/${b.issueNumber}/${b.allocatedTx}/${b.status}`),
      title: `${verb[b.status]} ${amountText(b.amount, b.currency)}: #${b.issueNumber} ${b.issueTitle ?? ""}`.trim(),
      link: `${base}/${repository.fullName}`,
      updated: b.closedAt ?? b.allocatedAt,
      summary: `${verb[b.status]}: ${amountText(b.amount, b.currency)} on ${repository.fullName}#${b.issueNumber}${b.issueTitle ? ` "${b.issueTitle}"` : ""}.`,
    })),
  });
}

/** What a contributor was paid, newest first (public repositories only); a split payout with their share (bounty_shares). */
export async function contributorFeed(deps: Deps, login: string): Promise<string> {
  const db = deps.database.db;
  const { PUBLIC_URL: base } = deps.env;
  const [user] = await db.select({ id: users.id, username: users.username }).from(users).where(sql`lower(${users.username}) = ${login.toLowerCase()}`).limit(1);
  if (!user) throw notFound("Contributor not found.");
  const addresses = (await db.select({ address: wallets.address }).from(wallets).where(eq(wallets.userId, user.id))).map((w) => w.address);
  const notSplit = sql`not exists (select 1 from ${bountyShares} s where s.github_repo_id = ${bounties.githubRepoId} and s.issue_number = ${bounties.issueNumber})`;
  const whole = addresses.length
    ? await db
        .select({ bounty: bounties, fullName: repositories.fullName })
        .from(bounties)
        .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
        .where(and(eq(bounties.status, "paid"), inArray(bounties.recipient, addresses), eq(repositories.isPrivate, false), notSplit))
        .orderBy(desc(bounties.closedAt))
        .limit(FEED_SIZE)
    : [];
  const shared = addresses.length
    ? (
        await db
          .select({ bounty: bounties, fullName: repositories.fullName, share: bountyShares.amount })
          .from(bountyShares)
          .innerJoin(bounties, and(eq(bounties.githubRepoId, bountyShares.githubRepoId), eq(bounties.issueNumber, bountyShares.issueNumber)))
          .innerJoin(repositories, eq(repositories.githubRepoId, bounties.githubRepoId))
          .where(and(eq(bounties.status, "paid"), inArray(bountyShares.recipient, addresses), eq(repositories.isPrivate, false)))
          .orderBy(desc(bounties.closedAt))
          .limit(FEED_SIZE)
      ).map(({ bounty, fullName, share }) => ({ bounty: { ...bounty, amount: share }, fullName }))
    : [];
  const rows = [...whole, ...shared].sort((a, b) => (b.bounty.closedAt?.getTime() ?? 0) - (a.bounty.closedAt?.getTime() ?? 0)).slice(0, FEED_SIZE);
  return atomFeed({
    id: tagUri(base, `contributor/${user.id}`),
    title: `Bounties earned by ${user.username} on Issuepool`,
    selfUrl: `${base}/api/feeds/contributors/${encodeURIComponent(user.username)}`,
    htmlUrl: `${base}/@${encodeURIComponent(user.username)}`,
    publicUrl: base,
    entries: rows.map(({ bounty: b, fullName }) => ({
      id: tagUri(base, `paid/${b.githubRepoId}/${b.issueNumber}/${b.allocatedTx}`),
      title: `${amountText(b.amount, b.currency)} for ${fullName}#${b.issueNumber} ${b.issueTitle ?? ""}`.trim(),
      link: `${base}/${fullName}`,
      updated: b.closedAt ?? b.updatedAt,
      summary: `${user.username} was paid ${amountText(b.amount, b.currency)} for ${fullName}#${b.issueNumber}${b.issueTitle ? ` "${b.issueTitle}"` : ""}.`,
    })),
  });
}
