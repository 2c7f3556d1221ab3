import type { AppContext } from "../../context.ts";
import type { Repository, User } from "../../../db/schema/index.ts";
import type { WebhookOutcome } from "../../workers/webhooks.ts";
import { isRefusal } from "../../errors.ts";
import { claimRefusal, claimRefusalText } from "../../../lib/claim-rule.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { startAttempt, stopAttempt } from "../attempts/attempts.ts";
import { checkAudience, isBotAccount } from "../attempts/eligibility.ts";
import { effectiveSettings } from "../attempts/settings.ts";

/**
 * `/attempt [note]` and `/unattempt` on an issue (issue 39): the bounty's mode decides whether the commenter holds
 * it, queues (and is told their place), applies with the note, or simply works on it (attempts/attempts.ts). Who may
 * attempt is checked first, so a bot account on a humans-only bounty hears that reason (and what lifts it) rather
 * than "register first"; every refusal is the service's own sentence.
 */
export async function handleAttemptCommand(
  ctx: Pick<AppContext, "env" | "database" | "chain" | "outbox" | "changes" | "log" | "mailer">,
  input: {
    repository: Repository;
    issueNumber: number;
    comment: { user: { id: number; login: string; type?: string } };
    user: User | undefined;
    command: { kind: "attempt"; note?: string } | { kind: "unattempt" };
    reply: (text: string) => Promise<WebhookOutcome>;
  },
): Promise<WebhookOutcome> {
  const { repository, issueNumber, comment, user, command, reply } = input;
  const who = { githubUserId: comment.user.id, login: comment.user.login, githubType: comment.user.type };
  try {
    if (command.kind === "unattempt") {
      if (!user) return reply(`You have no attempt on issue #${issueNumber} to drop.`);
      return reply((await stopAttempt(ctx, { repository, issueNumber, user })).message);
    }
    if (isBotAccount(who)) await checkAudience(ctx, repository.githubRepoId, await effectiveSettings(ctx, repository.githubRepoId, issueNumber), who);
    const hasWallet = Boolean(user && (await walletOfUser(ctx.database.db, user.id)));
    const refusal = claimRefusal(user ? { role: user.role, hasWallet } : null);
    if (refusal) return reply(claimRefusalText(refusal, ctx.env.PUBLIC_URL));
    const outcome = await startAttempt(ctx, { repository, issueNumber, user: user!, who, note: command.note });
    // Open mode says nothing (the bot's comment lists who works on it), as before; a lock, a queue or an application is answered.
    if (outcome.status === "working") return "done";
    return reply(outcome.message);
  } catch (err) {
    if (isRefusal(err)) return reply(err.message);
    throw err;
  }
}
