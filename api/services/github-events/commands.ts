import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { repositories, users, CURRENCIES, type Currency, type Repository } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { isRefusal } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { GitHubApiError } from "../../github/client.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { openIssue } from "../money/bounty-lookups.ts";
import { submitAllocation } from "../money/bounty-allocate.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { claimRefusalText } from "../../../lib/claim-rule.ts";
import { parseSplitCommand } from "../splits/split-command.ts";
import { parseTipCommand } from "../tips/tip-command.ts";
import { handleSplitComment, handleTipComment } from "./reward-commands.ts";
import { boostIntentReply } from "../funding/boost-command.ts";
import { inlineCode, mention } from "../bot/markdown.ts";
import { handleAttemptCommand } from "./attempt-commands.ts";

interface CommentPayload {
  id: number;
  body: string;
  user: { id: number; login: string; type?: string };
}

export type BountyCommand =
  | { kind: "bounty"; amount: string; currency: Currency }
  | { kind: "attempt"; note?: string }
  | { kind: "unattempt" }
  | { kind: "invalid"; reason: string };

/**
 * Reads a command from the first line of a comment: `/bounty 50 XDC` (ROXN,
 * USDC; XDC when no currency is given), `/attempt` (what follows it, on its
 * line and the next ones, is an application's note) or `/unattempt`.
 * Anything else is not a command.
 */
export function parseCommand(body: string): BountyCommand | undefined {
  const text = body.trim();
  const line = text.split(/\r?\n/)[0]?.trim() ?? "";
  if (/^\/unattempt\b/i.test(line)) return { kind: "unattempt" };
  if (/^\/attempt\b/i.test(line)) {
    const note = text.replace(/^\/attempt\b/i, "").trim();
    return note ? { kind: "attempt", note } : { kind: "attempt" };
  }
  if (!/^\/bounty\b/i.test(line)) return undefined;
  const match = /^\/bounty\s+(\d+(?:\.\d+)?)(?:\s+([A-Za-z]+))?\s*$/i.exec(line);
  if (!match) return { kind: "invalid", reason: "Usage: `/bounty <amount> <XDC|ROXN|USDC>`, for example `/bounty 50 XDC`." };
  const currency = (match[2] ?? "XDC").toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) return { kind: "invalid", reason: `Unknown currency ${inlineCode(match[2]!, 20)}: use XDC, ROXN or USDC.` };
  return { kind: "bounty", amount: match[1]!, currency: currency as Currency };
}

/**
 * Whether a GitHub login is the App's own bot account (`<slug>[bot]`): its comments never command anything, and
 * the webhook route acknowledges deliveries about them without storing them (routes/webhooks/github.ts).
 */
export function isAppLogin(login: unknown, appSlug: string): boolean {
  return typeof login === "string" && login.toLowerCase() === `${appSlug.toLowerCase()}[bot]`;
}

/**
 * issue_comment created: `/bounty` from a pool manager of the repository (a
 * registered pool manager who is an admin on GitHub) allocates a bounty from
 * the pool, under the same rules as the site; `/attempt` registers the
 * commenter to work on the issue. Bots are ignored. A command that cannot be
 * carried out gets a short reply saying why.
 */
export async function handleIssueComment(ctx: Pick<AppContext, "env" | "database" | "chain" | "outbox" | "changes" | "log" | "appSecret" | "mailer">, payload: Record<string, unknown>, deliveryId: string): Promise<WebhookOutcome> {
  if (payload.action !== "created") return "ignored";
  const comment = payload.comment as CommentPayload | undefined;
  const issue = payload.issue as { number: number; pull_request?: unknown } | undefined;
  const repo = payload.repository as { id: number } | undefined;
  if (!comment || !issue || !repo) return "ignored";
  // The app's own comments never command anything; other bots may only ask to attempt (refused on humans-only bounties).
  if (isAppLogin(comment.user.login, ctx.env.GITHUB_APP_SLUG)) return "ignored";
  const fromBot = comment.user.type === "Bot" || comment.user.login.endsWith("[bot]");
  if (fromBot && !/^\/(un)?attempt\b/i.test((comment.body ?? "").trim())) return "ignored";
  // `/split` and `/tip` work on issues and pull requests alike (reward-commands.ts).
  const split = parseSplitCommand(comment.body ?? "");
  const tip = split ? undefined : parseTipCommand(comment.body ?? "");
  if (split || tip) {
    const [registered] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
    if (!registered?.installationId) return "ignored";
    const on = {
      repository: registered,
      number: issue.number,
      isPullRequest: Boolean(issue.pull_request),
      comment,
      reply: (text: string) => replyTo(ctx, registered, issue.number, `${mention(comment.user.login)} ${text}`) as Promise<"done">,
    };
    return split ? handleSplitComment(ctx, on, split, (login) => isAdmin(ctx, registered, login)) : handleTipComment(ctx, on, tip!);
  }
  const command = parseCommand(comment.body ?? "");
  if (!command) return "ignored";
  const [repository] = await ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, repo.id)).limit(1);
  if (!repository?.installationId) return "ignored";

  // The commenter is answered by a mention (markdown.ts: only a real login pings; anything else is a code span).
  const reply = (text: string) => replyTo(ctx, repository, issue.number, `${mention(comment.user.login)} ${text}`);
  if (issue.pull_request) return reply("Bounties go on issues, not pull requests.");
  if (command.kind === "invalid") return reply(command.reason);

  const [user] = await ctx.database.db.select().from(users).where(eq(users.githubId, comment.user.id)).limit(1);
  if (command.kind === "attempt" || command.kind === "unattempt") return handleAttemptCommand(ctx, { repository, issueNumber: issue.number, comment, user, command, reply });
  // `/bounty 50 XDC` by anyone but the repository's pool manager is a boost, confirmed in the app (issue 29).
  if (command.kind === "bounty" && !(user?.role === "poolmanager" && (await isAdmin(ctx, repository, comment.user.login)))) {
    return reply(await boostIntentReply(ctx, { repository, issueNumber: issue.number, comment, currency: command.currency, amount: command.amount }));
  }
  const hasWallet = Boolean(user && (await walletOfUser(ctx.database.db, user.id)));
  if (!user || !hasWallet) return reply(claimRefusalText("not_registered", ctx.env.PUBLIC_URL));

  if (user.role !== "poolmanager" || !(await isAdmin(ctx, repository, comment.user.login))) {
    return reply("Only a pool manager who administers this repository can set a bounty.");
  }
  const client = await installationClient(ctx, repository.installationId);
  try {
    const found = await openIssue(client, repository.fullName, issue.number);
    const tx = await submitAllocation(ctx, {
      userId: user.id,
      // The comment is the request: its delivery is processed once, and a retry replays it.
      idempotencyKey: `comment:${comment.id}`,
      request: { deliveryId, commentId: comment.id },
      repoId: repository.githubRepoId,
      issueNumber: issue.number,
      currency: command.currency,
      amount: command.amount,
      issue: found,
    });
    const settled = await ctx.outbox.waitForSettled(tx, 30_000);
    if (settled.status === "failed" || settled.status === "reverted") return reply("The bounty could not be set on-chain. Please try again from Issuepool.");
    return "done";
  } catch (err) {
    if (isRefusal(err)) return reply(err.message);
    throw err;
  }
}

async function isAdmin(ctx: Pick<AppContext, "env">, repository: Repository, login: string): Promise<boolean> {
  const client = await installationClient(ctx, repository.installationId!);
  try {
    const { permission } = await client.get<{ permission: string }>(`/repos/${encodeFullName(repository.fullName)}/collaborators/${encodeURIComponent(login)}/permission`);
    return permission === "admin";
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) return false;
    throw err;
  }
}

async function replyTo(ctx: Pick<AppContext, "env">, repository: Repository, issueNumber: number, body: string): Promise<WebhookOutcome> {
  const client = await installationClient(ctx, repository.installationId!);
  await client.post(`/repos/${encodeFullName(repository.fullName)}/issues/${issueNumber}/comments`, { body });
  return "done";
}

