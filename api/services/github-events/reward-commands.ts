import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { payoutSplits, users, type Repository } from "../../../db/schema/index.ts";
import { isRefusal } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { createMoneyIntent, INTENT_TTL_MS, intentUrl } from "../funding/intents.ts";
import { setSplitShares } from "../splits/set-shares.ts";
import { githubLookup } from "../splits/pull-people.ts";
import type { SplitCommand } from "../splits/split-command.ts";
import type { TipCommand } from "../tips/tip-command.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { claimRefusalText } from "../../../lib/claim-rule.ts";
import { mention } from "../bot/markdown.ts";

export interface CommentContext {
  repository: Repository;
  /** The issue or pull request the comment is on. */
  number: number;
  isPullRequest: boolean;
  comment: { id: number; user: { id: number; login: string } };
  reply: (text: string) => Promise<"done">;
}

/**
 * `/split @a 60 @b 40` in a comment on the issue or on the merged pull
 * request: the pool manager of the repository (a registered pool manager who
 * administers it on GitHub) sets the shares of the split in its release
 * window (splits/set-shares.ts, the same rules as the repository page).
 */
export async function handleSplitComment(ctx: Pick<AppContext, "database" | "env" | "log" | "changes" | "chain" | "outbox">, on: CommentContext, command: SplitCommand, isAdmin: (login: string) => Promise<boolean>): Promise<"done"> {
  if (command.kind === "invalid") return on.reply(command.reason);
  const [user] = await ctx.database.db.select().from(users).where(eq(users.githubId, on.comment.user.id)).limit(1);
  if (!user || user.role !== "poolmanager" || !(await isAdmin(on.comment.user.login))) {
    return on.reply("Only a pool manager who administers this repository can change how a bounty is shared.");
  }
  const repoId = on.repository.githubRepoId;
  // On the pull request: the splits it opened; on an issue: that issue's.
  const splits = await ctx.database.db
    .select()
    .from(payoutSplits)
    .where(and(eq(payoutSplits.githubRepoId, repoId), on.isPullRequest ? eq(payoutSplits.pullNumber, on.number) : eq(payoutSplits.issueNumber, on.number), eq(payoutSplits.status, "window")));
  if (splits.length === 0) return on.reply("There is no bounty here being shared in a release window: `/split` applies between a co-authored merge and its payout.");
  const lookup = githubLookup(await installationClient(ctx, on.repository.installationId!));
  const done: string[] = [];
  for (const split of splits) {
    try {
      const view = await setSplitShares(ctx, { userId: user.id, repoId, issueNumber: split.issueNumber, entries: command.entries, lookup });
      done.push(`#${split.issueNumber}: ${view.shares.map((s) => `${mention(s.login)} ${s.percent} % (${s.amount} ${view.currency})`).join(", ")}, paid after ${view.releaseAt.slice(0, 16).replace("T", " ")} UTC`);
    } catch (err) {
      if (isRefusal(err)) return on.reply(err.message);
      throw err;
    }
  }
  return on.reply(`Shares set. ${done.join("; ")}.`);
}

/**
 * `/tip 10 XDC @login`: a comment cannot carry consent to move money, so the
 * bot answers its author with a link to confirm the tip in the app (a money
 * intent: bound to them, single use, valid INTENT_TTL_MS). A redelivered
 * comment gets the same link.
 */
export async function handleTipComment(ctx: Pick<AppContext, "database" | "env" | "appSecret">, on: CommentContext, command: TipCommand): Promise<"done"> {
  if (command.kind === "invalid") return on.reply(command.reason);
  const [user] = await ctx.database.db.select().from(users).where(eq(users.githubId, on.comment.user.id)).limit(1);
  if (!user || !(await walletOfUser(ctx.database.db, user.id))) return on.reply(claimRefusalText("not_registered", ctx.env.PUBLIC_URL));
  if (command.login.toLowerCase() === on.comment.user.login.toLowerCase()) return on.reply("You cannot tip yourself.");
  const intent = await createMoneyIntent(ctx, {
    kind: "tip",
    githubUserId: on.comment.user.id,
    source: `comment:${on.comment.id}`,
    payload: {
      login: command.login,
      amount: command.amount,
      currency: command.currency,
      repoId: on.repository.githubRepoId,
      issueNumber: on.number,
      repoFullName: on.repository.fullName,
      commentId: on.comment.id,
    },
  });
  const minutes = Math.round(INTENT_TTL_MS / 60_000);
  // The amount is digits and one dot (parseTipCommand), the login a GitHub login: neither can carry markdown.
  return on.reply(`To send your tip of ${command.amount} ${command.currency} to ${mention(command.login)}, confirm it in Issuepool: ${intentUrl(ctx.env.PUBLIC_URL, intent.token)} (for you only, valid ${minutes} minutes, once).`);
}
