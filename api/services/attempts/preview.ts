/**
 * The payout preview on a pull request (issue 39, items 3 and 4). When a pull request mentions or closes a bountied
 * issue, the bot keeps ONE comment on it, written when it is opened and edited on every push (`synchronize`), on
 * `edited` and `reopened`, saying who would be paid if it were merged now and how much, and what would stop it:
 *
 * - who and how much: the pull request's author and its commits' `Co-authored-by:` co-authors (payouts/fixes.ts,
 *   the same reading as at the merge), in the equal shares a split opens with (splits/shares.ts); a person without
 *   an Issuepool wallet has their share held until they register;
 * - whether: the one payout decision (payouts/decision.ts) is asked, as it would be at the merge, with the bounty's
 *   facts now and this pull request as if merged this second (closing the issue only when it closes it and targets
 *   the default branch). Its refusal is the warning; nothing here decides on its own that money is due;
 * - the attempt warnings: the author holds no attempt on an exclusive (or application) bounty, or someone else holds
 *   its lock. Those never stop a payout (the merge is the maintainer's decision): the comment says so.
 *
 * It also records the pull request (pull_previews: author, state, the bountied issues it closes and mentions): the
 * competing pull requests of an issue, which the repository page and the issue's comment list, and the record the
 * lock pass reads ("a linked pull request keeps the lock").
 */
import { and, eq, inArray, isNull, lt } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bounties, bountyAttempts, LIVE_ATTEMPT_STATUSES, pullPreviews, type Repository } from "../../../db/schema/index.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import type { GitHubClient } from "../../github/client.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { ordinal, utcMinute } from "../../../lib/attempt-rules.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { closingIssueNumbers, fixPeople, type FixFacts } from "../payouts/fixes.ts";
import { splitAmount } from "../splits/shares.ts";
import { walletOfGitHubUser } from "../wallets/custodial.ts";
import { inlineCode, mention } from "../bot/markdown.ts";
import { effectiveSettings } from "./settings.ts";

const MARKER = "<!-- issuepool:preview -->";
/** A placeholder (comment id -1) older than this is taken to be a crashed creation and retried. */
const CREATION_TIMEOUT_MS = 60_000;

type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "changes">;

interface PullJson {
  number: number;
  state: "open" | "closed";
  merged_at: string | null;
  body: string | null;
  html_url: string;
  user: { id: number; login: string; type?: string } | null;
  base: { ref: string };
  head: { sha: string };
}

/** `#12` in a pull request's description (not `owner/repo#12`, not inside a word). */
export function mentionedNumbers(body: string): number[] {
  const found = new Set<number>();
  for (const m of body.matchAll(/(^|[^\w/#])#(\d{1,9})\b/g)) found.add(Number(m[2]));
  return [...found];
}

export interface PreviewLine {
  login: string;
  role: "author" | "co-author";
  amount: string;
  held: boolean;
}

export interface IssuePreview {
  issueNumber: number;
  amount: string;
  closes: boolean;
  /** Who would be paid now (empty: nobody, see `stops`). */
  payees: PreviewLine[];
  /** What would stop the payout. */
  stops: string[];
  /** Heads-ups that do not stop it (attempts). */
  notes: string[];
  /** Other open pull requests that close the issue. */
  competing: { number: number; login: string; attempt: string }[];
}

/** Where a person stands on an issue, for the lists of pull requests: "holds the lock", "2nd in the queue", … */
export async function attemptStatusOf(ctx: Pick<AppContext, "database">, repoId: number, issueNumber: number, githubUserId: number): Promise<string> {
  const rows = await ctx.database.db
    .select()
    .from(bountyAttempts)
    .where(and(eq(bountyAttempts.githubRepoId, repoId), eq(bountyAttempts.issueNumber, issueNumber), inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES])))
    .orderBy(bountyAttempts.id);
  const mine = rows.find((r) => r.githubUserId === githubUserId);
  if (!mine) return "no attempt";
  if (mine.status === "holding") return `holds it until ${utcMinute(mine.lockedUntil!)}`;
  if (mine.status === "queued") return `${ordinal(rows.filter((r) => r.status === "queued").findIndex((r) => r.id === mine.id) + 1)} in the queue`;
  if (mine.status === "applied") return "applied";
  return "working on it";
}

/** The preview of one bountied issue for this pull request, as if it were merged now. */
export async function previewIssue(ctx: Deps, client: GitHubClient, repository: Repository, pull: PullJson, issueNumber: number, closes: boolean, defaultBranch: string): Promise<IssuePreview> {
  const repoId = repository.githubRepoId;
  const author = { id: pull.user?.id ?? 0, login: pull.user?.login ?? "ghost", type: pull.user?.type };
  const onDefault = pull.base.ref === defaultBranch;
  const now = new Date();
  const facts = await bountyFacts(ctx, repoId, issueNumber, { withMoney: true });
  // As the merge would be judged: merged this second; the issue closed by it only when it closes it from the default branch.
  const fix: FixFacts = { number: pull.number, url: pull.html_url, author, merged: true, mergedAt: now, closesIssue: closes, issueState: closes && onDefault ? "closed" : "open", reopenedAfterMerge: false };
  const people = await fixPeople(client, repository, { number: pull.number, author });
  const decision = decide(facts, { kind: "merge", fix, people: people.people });
  const currency = facts.chain.currency;
  const amount = `${formatExact(facts.chain.amount, currency)} ${currency}`;
  const stops: string[] = [];
  if (!closes) stops.push(`This pull request mentions #${issueNumber} but does not close it: write \`Fixes #${issueNumber}\` in its description.`);
  if (!onDefault) stops.push(`It targets \`${pull.base.ref}\`, not the default branch \`${defaultBranch}\`: merging it there does not close #${issueNumber}.`);
  let payees: PreviewLine[] = [];
  if (decision.ok) {
    const who = decision.payees ?? people.people;
    const shares = splitAmount(facts.chain.amount, who.map((p) => ({ key: p.id, weight: 1n })), author.id);
    payees = await Promise.all(
      who.map(async (p, i) => ({
        login: p.login,
        role: i === 0 ? ("author" as const) : ("co-author" as const),
        amount: `${formatExact(shares.find((s) => s.key === p.id)!.amount, currency)} ${currency}`,
        held: !(await walletOfGitHubUser(ctx.database.db, p.id)),
      })),
    );
  } else if (closes && onDefault) {
    stops.push(decision.refusal.message);
  }
  const notes: string[] = [];
  const settings = await effectiveSettings(ctx, repoId, issueNumber);
  const attempts = await ctx.database.db
    .select()
    .from(bountyAttempts)
    .where(and(eq(bountyAttempts.githubRepoId, repoId), eq(bountyAttempts.issueNumber, issueNumber), inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES])));
  const holder = attempts.find((a) => a.status === "holding");
  if (holder && holder.githubUserId !== author.id) {
    notes.push(`${mention(holder.githubLogin)} holds this bounty until ${utcMinute(holder.lockedUntil!)}. A merge of this pull request still pays its authors (the merge is the maintainer's decision), but the bounty was promised to ${mention(holder.githubLogin)} for now.`);
  } else if (settings.mode !== "open" && !attempts.some((a) => a.githubUserId === author.id && a.status === "holding")) {
    notes.push(`${mention(author.login)} holds no attempt on this ${settings.mode === "exclusive" ? "exclusive" : "application-only"} bounty: ${settings.mode === "exclusive" ? `comment \`/attempt\` on #${issueNumber} to hold it` : "the pool manager picks who works on it"}.`);
  }
  const others = await ctx.database.db.select().from(pullPreviews).where(and(eq(pullPreviews.githubRepoId, repoId), eq(pullPreviews.state, "open")));
  const competing = [];
  for (const other of others) {
    if (other.pullNumber === pull.number || !(JSON.parse(other.closes) as number[]).includes(issueNumber)) continue;
    competing.push({ number: other.pullNumber, login: other.authorLogin, attempt: await attemptStatusOf(ctx, repoId, issueNumber, other.authorGithubId) });
  }
  return { issueNumber, amount, closes, payees, stops, notes, competing };
}

export function previewBody(previews: IssuePreview[], pull: { state: "open" | "closed" | "merged"; headSha: string }, page: string): string {
  const lines = [MARKER, "### Issuepool payout preview", ""];
  if (pull.state !== "open") {
    lines.push(pull.state === "merged" ? "This pull request was merged: the payout is shown in the bot's comment on each issue it fixed." : "This pull request was closed without a merge: it pays nothing.");
    return lines.join("\n");
  }
  if (!previews.length) {
    lines.push("This pull request no longer references an issue with a bounty.");
    return lines.join("\n");
  }
  lines.push(`Who would be paid on [Issuepool](${page}) if this pull request were merged now:`, "");
  for (const p of previews) {
    lines.push(`**Issue #${p.issueNumber}: ${p.amount}**`, "");
    if (p.payees.length) {
      for (const payee of p.payees) lines.push(`- ${mention(payee.login)} (${payee.role}): ${payee.amount}${payee.held ? ", held until they register on Issuepool" : ", to their Issuepool wallet"}`);
    } else lines.push("- Nobody, as things stand.");
    if (p.stops.length) lines.push("", "Would stop the payout:", ...p.stops.map((s) => `- ${s}`));
    if (p.notes.length) lines.push("", "Note:", ...p.notes.map((s) => `- ${s}`));
    if (p.competing.length) lines.push("", `Other open pull requests closing #${p.issueNumber}: ${p.competing.map((c) => `#${c.number} by ${mention(c.login)} (${c.attempt})`).join(", ")}.`);
    lines.push("");
  }
  lines.push(`Updated for commit ${inlineCode(pull.headSha.slice(0, 7))}; every push updates this comment.`);
  return lines.join("\n");
}

/**
 * The pull_request webhook (opened, synchronize, edited, reopened, closed): records the pull request and keeps its
 * preview comment in step. Asks GitHub fresh (the payload may be old by the time a retried delivery runs).
 */
export async function syncPullPreview(
  ctx: Deps,
  repository: Repository,
  pullNumber: number,
  /** `closing`: its closing references, when this delivery asked GitHub for them a moment ago (the merge's). */
  known: { closing?: number[] } = {},
): Promise<{ closes: number[]; state: "open" | "closed" | "merged" } | undefined> {
  if (!repository.installationId) return undefined;
  const client = await installationClient(ctx, repository.installationId);
  const path = `/repos/${encodeFullName(repository.fullName)}`;
  const pull = await client.get<PullJson>(`${path}/pulls/${pullNumber}`);
  const state = pull.merged_at ? "merged" : pull.state === "open" ? "open" : "closed";
  const closingNumbers = known.closing ?? (await closingIssueNumbers(client, repository, pullNumber)) ?? [];
  const candidates = [...new Set([...closingNumbers, ...mentionedNumbers(pull.body ?? "")])];
  const bountied = candidates.length
    ? (await ctx.database.db.select({ n: bounties.issueNumber }).from(bounties).where(and(eq(bounties.githubRepoId, repository.githubRepoId), inArray(bounties.issueNumber, candidates), eq(bounties.status, "open")))).map((b) => b.n)
    : [];
  const closes = closingNumbers.filter((n) => bountied.includes(n)).sort((a, b) => a - b);
  const mentions = bountied.filter((n) => !closes.includes(n)).sort((a, b) => a - b);
  const db = ctx.database.db;
  const [existing] = await db.select().from(pullPreviews).where(and(eq(pullPreviews.githubRepoId, repository.githubRepoId), eq(pullPreviews.pullNumber, pullNumber))).limit(1);
  // A merged or closed pull request keeps the issues it referenced while open (the merge's record is the decision's).
  const record = state === "open" || !existing ? { closes: JSON.stringify(closes), mentions: JSON.stringify(mentions) } : {};
  await db
    .insert(pullPreviews)
    .values({ githubRepoId: repository.githubRepoId, pullNumber, authorGithubId: pull.user?.id ?? 0, authorLogin: pull.user?.login ?? "ghost", state, closes: JSON.stringify(closes), mentions: JSON.stringify(mentions) })
    .onConflictDoUpdate({ target: [pullPreviews.githubRepoId, pullPreviews.pullNumber], set: { state, ...record } });
  // The issues' own comments list their open pull requests: each issue it closes now or closed before is told of the change.
  const touched = new Set([...closes, ...(existing ? (JSON.parse(existing.closes) as number[]) : [])]);
  if (touched.size) ctx.changes.publish([`repo:${repository.githubRepoId}`, ...[...touched].map((n) => `bounty:${repository.githubRepoId}:${n}`)]);
  if (!bountied.length && !existing?.commentId) return { closes, state };
  let previews: IssuePreview[] = [];
  if (state === "open") {
    // The default branch only matters for an open pull request's preview (a merged or closed one's comment says so).
    const defaultBranch = repository.defaultBranch ?? (await client.get<{ default_branch: string }>(path)).default_branch;
    const issues = [...closes.map((n) => ({ n, c: true })), ...mentions.map((n) => ({ n, c: false }))].sort((a, b) => a.n - b.n);
    previews = await Promise.all(issues.map(({ n, c }) => previewIssue(ctx, client, repository, pull, n, c, defaultBranch)));
  }
  const body = previewBody(previews, { state, headSha: pull.head.sha }, `${ctx.env.PUBLIC_URL}/repos/${repository.fullName}`);
  await writeComment(ctx, client, repository, pullNumber, body);
  return { closes, state };
}

async function writeComment(ctx: Deps, client: GitHubClient, repository: Repository, pullNumber: number, body: string): Promise<void> {
  const db = ctx.database.db;
  const key = and(eq(pullPreviews.githubRepoId, repository.githubRepoId), eq(pullPreviews.pullNumber, pullNumber));
  const bodyHash = hashToken(body);
  const [row] = await db.select().from(pullPreviews).where(key).limit(1);
  const path = `/repos/${encodeFullName(repository.fullName)}/issues`;
  if (row?.commentId && row.commentId > 0) {
    if (row.bodyHash === bodyHash) return;
    await client.patch(`${path}/comments/${row.commentId}`, { body });
    await db.update(pullPreviews).set({ bodyHash }).where(key);
    return;
  }
  // Claim the creation (a placeholder), or take over one a crash left behind.
  const claimed =
    row?.commentId === -1
      ? await db.update(pullPreviews).set({ updatedAt: new Date() }).where(and(key, eq(pullPreviews.commentId, -1), lt(pullPreviews.updatedAt, new Date(Date.now() - CREATION_TIMEOUT_MS)))).returning()
      : await db.update(pullPreviews).set({ commentId: -1, updatedAt: new Date() }).where(and(key, isNull(pullPreviews.commentId))).returning();
  if (!claimed.length) return;
  const comment = await client.post<{ id: number }>(`${path}/${pullNumber}/comments`, { body });
  await db.update(pullPreviews).set({ commentId: comment.id, bodyHash }).where(key);
}
