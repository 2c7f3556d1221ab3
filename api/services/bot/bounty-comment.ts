import { and, eq, lt } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { botComments, bounties, repositories, users, wallets, type Bounty, type Repository } from "../../../db/schema/index.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { issueContributors } from "../money/bounty-read.ts";
import { heldFor } from "../github-events/held-payouts.ts";
import { isAwaiting } from "../money/awaiting.ts";
import { splitOf, splitView, type SplitView } from "../splits/open.ts";
import { bountyText } from "../../../lib/money-format.ts";
import { fundersLines } from "../funding/funders-text.ts";
import { ATTEMPT_COMMAND, CLAIM_STEPS } from "../../../lib/claiming.ts";
import { inlineCode, mention, profileLink } from "./markdown.ts";
import { attemptLines } from "../attempts/comment-lines.ts";
import { cashoutLink } from "../cashout/links.ts";

/** A placeholder row (comment id -1) older than this is taken to be a crashed creation and retried. */
const CREATION_TIMEOUT_MS = 60_000;
const MARKER = "<!-- issuepool:bounty -->";

/**
 * The bot keeps ONE comment per bountied issue: created the first time,
 * edited when something changes (who works on it, payment, cancellation),
 * never duplicated. Creation is claimed with a placeholder row first, so two
 * processes cannot both create one. `known`: the repository, if the caller
 * has just read it.
 */
export async function syncBountyComment(ctx: Pick<AppContext, "env" | "database" | "chain">, repoId: number, issueNumber: number, known?: Repository): Promise<void> {
  const db = ctx.database.db;
  const repository = known ?? (await db.select().from(repositories).where(eq(repositories.githubRepoId, repoId)).limit(1))[0];
  if (!repository?.installationId) return; // without the app the bot cannot write
  const [bounty] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber))).limit(1);
  if (!bounty) return;
  const body = await commentBody(ctx, repository, bounty);
  const bodyHash = hashToken(body);
  const client = await installationClient(ctx, repository.installationId);
  const issuePath = `/repos/${encodeFullName(repository.fullName)}/issues`;

  const [existing] = await db.select().from(botComments).where(and(eq(botComments.githubRepoId, repoId), eq(botComments.issueNumber, issueNumber))).limit(1);
  if (existing && existing.commentId > 0) {
    if (existing.bodyHash === bodyHash) return;
    await client.patch(`${issuePath}/comments/${existing.commentId}`, { body });
    await db.update(botComments).set({ bodyHash, updatedAt: new Date() }).where(and(eq(botComments.githubRepoId, repoId), eq(botComments.issueNumber, issueNumber)));
    return;
  }
  // Claim the creation: insert a placeholder, or take over one left by a crash.
  const claimed = existing
    ? await db
        .update(botComments)
        .set({ updatedAt: new Date() })
        .where(and(eq(botComments.githubRepoId, repoId), eq(botComments.issueNumber, issueNumber), lt(botComments.updatedAt, new Date(Date.now() - CREATION_TIMEOUT_MS))))
        .returning()
    : await db.insert(botComments).values({ githubRepoId: repoId, issueNumber, commentId: -1, bodyHash: "" }).onConflictDoNothing().returning();
  if (claimed.length === 0) return; // another worker is creating it
  const comment = await client.post<{ id: number }>(`${issuePath}/${issueNumber}/comments`, { body });
  await db
    .update(botComments)
    .set({ commentId: comment.id, bodyHash, updatedAt: new Date() })
    .where(and(eq(botComments.githubRepoId, repoId), eq(botComments.issueNumber, issueNumber)));
}

async function commentBody(ctx: Pick<AppContext, "env" | "database" | "chain">, repository: Repository, bounty: Bounty): Promise<string> {
  const funders = await fundersLines(ctx.database.db, repository.githubRepoId, bounty.issueNumber);
  // Open: the pool's share (the mirror) plus the active boosts; paid, the chain's BountyPaid already counts them (the
  // boosts are paid, no longer active). The same figure and breakdown as every page (lib/money-format.ts, issue 38).
  const figures = bountyText({ currency: bounty.currency, pool: bounty.amount, funders: funders.boosted, funderCount: funders.active });
  const amount = figures.total;
  const page = `${ctx.env.PUBLIC_URL}/repos/${repository.fullName}`;
  const contributors = await issueContributors(ctx, repository.githubRepoId, bounty.issueNumber);
  // Every login and text people chose goes through markdown.ts: a mention only when it is a login, else a code span.
  const working = contributors.length ? contributors.map((c) => `${mention(c.username)} (since ${c.since.toISOString().slice(0, 10)})`).join(", ") : "Nobody yet.";
  // The latest to take it on (with /attempt or Contribute) is answered here, in the one comment (issue 38): no reply
  // of its own, so the issue's thread stays readable.
  const newest = contributors.at(-1);
  const acknowledgement = newest
    ? `> ${mention(newest.username)}: you are down for this issue. ${CLAIM_STEPS.pullRequest(bounty.issueNumber)} ${CLAIM_STEPS.paid}`
    : undefined;
  const split = await splitOf(ctx, repository.githubRepoId, bounty.issueNumber);
  const sharing = split && split.allocatedTx === bounty.allocatedTx && split.status !== "superseded" ? await splitView(ctx, split) : undefined;
  const held = bounty.status === "open" && !sharing ? await heldFor(ctx, repository.githubRepoId, bounty.issueNumber) : undefined;
  const awaiting = bounty.status === "open" && !held ? await isAwaiting(ctx, repository.githubRepoId, bounty.issueNumber) : false;
  const plainOpen = bounty.status === "open" && !held && !awaiting && !sharing;
  // The contributor by their GitHub name, with the address the money went to.
  const recipientLogin = bounty.recipient ? await loginOfWallet(ctx, bounty.recipient) : undefined;
  // Their public profile (/@login) is linked beside the address (issue 30).
  const profile = recipientLogin ? profileLink(ctx.env.PUBLIC_URL, recipientLogin) : undefined;
  const recipient = bounty.recipient
    ? recipientLogin
      ? `${mention(recipientLogin)} (${inlineCode(bounty.recipient)}${profile ? `, ${profile}` : ""})`
      : inlineCode(bounty.recipient)
    : "";
  const txLink = (hash: string | null) => {
    if (!hash) return "";
    const url = explorerTxUrl(ctx.chain.config.network, hash);
    return url ? `[${hash.slice(0, 10)}…](${url})` : inlineCode(hash);
  };
  const status = sharing
    ? sharedStatus(sharing, txLink)
    : bounty.status === "paid"
      ? `**Paid** ${amount} to ${recipient} (transaction ${txLink(bounty.paidTx)}).${paidCashout(ctx.env.PUBLIC_URL, bounty.currency, BigInt(bounty.amount) + funders.boosted, recipientLogin)}`
      : bounty.status === "cancelled"
        ? "**Cancelled**: the amount went back to the repository's pool."
        : held
          ? `**Held for ${mention(held.githubLogin)}**: ${held.pullNumber === null ? "the pool manager released this bounty to" : `pull request #${held.pullNumber} fixed this issue, but`} ${mention(held.githubLogin)}${held.pullNumber === null ? ", who" : ""} has no Issuepool wallet yet. Sign in to [Issuepool](${ctx.env.PUBLIC_URL}/auth) with GitHub and register: the bounty is paid to your new wallet automatically.`
          : awaiting
            ? "**Awaiting decision**: this issue was closed without a merged pull request paying its bounty. The pool manager decides whether to release it to the contributor who did the work or to return it to the pool; reopening the issue makes it open again."
            : contributors.length
              ? `**Working on it**: ${working} (bounty set in transaction ${txLink(bounty.allocatedTx)}).`
              : `**Open**: ${amount} (set in transaction ${txLink(bounty.allocatedTx)}).`;
  // Who holds it, the queue, competing pull requests (issue 39): while open; a merge that overtook a holder, always.
  const attempts = await attemptLines(ctx, repository.githubRepoId, bounty.issueNumber, bounty.status === "open" && !held && !sharing);
  return [
    MARKER,
    `### Issuepool bounty: ${amount}`,
    "",
    `This issue carries a bounty of **${amount}**${figures.breakdown ? ` (${figures.breakdown})` : ""} on [Issuepool](${page}), paid on-chain on the XDC network.`,
    "",
    plainOpen
      ? [
          // The same steps as the repository page (lib/claiming.ts): /attempt for contributors, Contribute for the rest.
          "**How to claim**",
          `1. Already an Issuepool contributor? Comment \`${ATTEMPT_COMMAND}\` here.`,
          `   New to Issuepool? Choose *Contribute* on this issue on [Issuepool](${page}): you sign in with GitHub, pick the contributor role and are put down for it.`,
          `2. ${CLAIM_STEPS.pullRequest(bounty.issueNumber)}`,
          `3. ${CLAIM_STEPS.paid}`,
          "",
        ].join("\n")
      : "",
    // Who works on it matters while it is open; once paid or cancelled the status says all.
    ...(plainOpen ? [`**Working on it:** ${working}`, ...(acknowledgement ? ["", acknowledgement] : []), ""] : []),
    `**Status:** ${status}`,
    ...(attempts.length ? ["", ...attempts] : []),
    // Boosts (issue 29): who added what, and where each funder's money went.
    ...(funders.lines.length ? ["", ...funders.lines] : []),
  ].join("\n");
}

/**
 * A bounty shared among a merged pull request's people (splits/): each share with its amount, the release time
 * while the window is open (and how the pool manager changes it), then each payout.
 */
function sharedStatus(split: SplitView, txLink: (hash: string | null) => string): string {
  const when = `${split.releaseAt.slice(0, 16).replace("T", " ")} UTC`;
  const shares = split.shares
    .map((s) => {
      const state = s.status === "paid" ? ` paid (transaction ${txLink(s.transactionHash)})` : s.status === "held" ? " held until they register on Issuepool" : s.status === "paying" ? " being paid" : s.status === "queued" ? " queued by the contract (paid after its delay)" : s.status === "returned" ? " unclaimed for 30 days, returned to the repository's pool" : "";
      return `- ${mention(s.login)}${s.isAuthor ? " (author)" : ""}: ${s.percent} %, ${s.amount} ${split.currency}${state}`;
    })
    .join("\n");
  // A trailer's name and address are whatever the commit says: shown as code, never as markdown.
  const unresolved = split.unresolved.length
    ? `\n\nCo-authors not found on GitHub (not paid unless the pool manager names them): ${split.unresolved.map((u) => inlineCode(u.name ? `${u.name} <${u.email}>` : `<${u.email}>`)).join(", ")}.`
    : "";
  if (split.status === "window") {
    return `**Shared reward**: pull request #${split.pullNumber} by ${mention(split.author)} has co-authors, so this bounty is shared${split.custom ? " as the pool manager set it" : " in equal shares"}. It is paid after the release window, at **${when}**; until then the pool manager can change the shares on Issuepool or with \`/split @login 60 @login 40\`.\n\n${shares}${unresolved}`;
  }
  return `**Shared reward** of pull request #${split.pullNumber} (the rounding remainder goes to its author):\n\n${shares}${unresolved}`;
}

/** The paid contributor's way to rupees (issue 40): their wallet's "Cash out to UPI", prefilled. */
function paidCashout(publicUrl: string, currency: Bounty["currency"], amount: bigint, login: string | undefined): string {
  const link = login ? cashoutLink(publicUrl, currency, amount) : null;
  return link ? ` ${mention(login!)}: [cash out to UPI](${link}).` : "";
}

/** The GitHub login of the user whose custodial wallet this is, if it is one of ours. */
async function loginOfWallet(ctx: DatabaseDeps, address: string): Promise<string | undefined> {
  const [row] = await ctx.database.db
    .select({ username: users.username })
    .from(wallets)
    .innerJoin(users, eq(users.id, wallets.userId))
    .where(eq(wallets.address, address))
    .limit(1);
  return row?.username;
}
