/**
 * Telling people about queue moves and merges (issue 39): a comment on GitHub that mentions them (GitHub notifies a
 * mention) and an e-mail when they gave an address. Each notice is claimed in the database before it is sent (a
 * conditional update of `notifiedAt` / `toldOfOtherMergeAt`), so a retry or a second process never sends it twice;
 * a crash between the claim and the send loses at most that one notice. Failures are logged, never thrown: a
 * notice does not undo the move it tells of.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bountyAttempts, pullPreviews, users, type BountyAttempt, type Repository } from "../../../db/schema/index.ts";
import { installationClient } from "../../github/app-auth.ts";
import { encodeFullName } from "../../github/repositories.ts";
import { mention } from "../bot/markdown.ts";
import { utcMinute } from "../../../lib/attempt-rules.ts";

type Deps = Pick<AppContext, "env" | "database" | "log" | "mailer">;
type RepositoryRef = Pick<Repository, "githubRepoId" | "fullName" | "installationId">;

/** A comment by the app on an issue or pull request of the repository (nothing without the app). */
export async function botReply(ctx: Pick<AppContext, "env">, repository: RepositoryRef, number: number, body: string): Promise<void> {
  if (!repository.installationId) return;
  const client = await installationClient(ctx, repository.installationId);
  await client.post(`/repos/${encodeFullName(repository.fullName)}/issues/${number}/comments`, { body });
}

async function mailUser(ctx: Deps, userId: number, subject: string, text: string): Promise<void> {
  const [user] = await ctx.database.db.select({ email: users.email }).from(users).where(eq(users.id, userId)).limit(1);
  if (!user?.email) return;
  await ctx.mailer.send({ to: user.email, subject, text });
}

/** The first in the queue (or a picked applicant) now holds the bounty: told once, on the issue and by mail. */
export async function tellNewHolder(ctx: Deps, repository: RepositoryRef, attempt: BountyAttempt, why: string): Promise<void> {
  const claimed = await ctx.database.db
    .update(bountyAttempts)
    .set({ notifiedAt: new Date() })
    .where(and(eq(bountyAttempts.id, attempt.id), eq(bountyAttempts.status, "holding"), isNull(bountyAttempts.notifiedAt)))
    .returning();
  if (!claimed.length) return;
  const until = utcMinute(attempt.lockedUntil!);
  const page = `${ctx.env.PUBLIC_URL}/repos/${repository.fullName}`;
  try {
    await botReply(ctx, repository, attempt.issueNumber, `${mention(attempt.githubLogin)} this bounty is yours now (${why}): you hold it until **${until}**. Open a pull request with \`Fixes #${attempt.issueNumber}\` before then; \`/unattempt\` lets it go.`);
  } catch (err) {
    ctx.log.warn("attempt notice not posted on GitHub", { repoId: repository.githubRepoId, issue: attempt.issueNumber, err: (err as Error).message });
  }
  try {
    await mailUser(
      ctx,
      attempt.userId,
      `You now hold the bounty on ${repository.fullName}#${attempt.issueNumber}`,
      `Hello ${attempt.githubLogin},\n\nThe bounty on ${repository.fullName}#${attempt.issueNumber} is yours now (${why}). You hold it until ${until}: nobody else can take it before then.\n\nOpen a pull request with "Fixes #${attempt.issueNumber}" in its description before then; comment /unattempt on the issue to let it go.\n\n${page}\n`,
    );
  } catch (err) {
    ctx.log.warn("attempt notice not mailed", { repoId: repository.githubRepoId, issue: attempt.issueNumber, err: (err as Error).message });
  }
}

/**
 * A pull request closing the issue was merged: the authors of the other open pull requests closing it are told,
 * once each, on their pull request (and by mail when they use Issuepool).
 */
export async function tellOtherAuthors(ctx: Deps, repository: RepositoryRef, merged: { pullNumber: number; authorLogin: string; issueNumber: number }): Promise<number> {
  const db = ctx.database.db;
  const others = await db
    .select()
    .from(pullPreviews)
    .where(and(eq(pullPreviews.githubRepoId, repository.githubRepoId), eq(pullPreviews.state, "open"), isNull(pullPreviews.toldOfOtherMergeAt)));
  let told = 0;
  for (const other of others) {
    if (other.pullNumber === merged.pullNumber || !(JSON.parse(other.closes) as number[]).includes(merged.issueNumber)) continue;
    const claimed = await db
      .update(pullPreviews)
      .set({ toldOfOtherMergeAt: new Date() })
      .where(and(eq(pullPreviews.githubRepoId, repository.githubRepoId), eq(pullPreviews.pullNumber, other.pullNumber), isNull(pullPreviews.toldOfOtherMergeAt)))
      .returning();
    if (!claimed.length) continue;
    told++;
    const text = `pull request #${merged.pullNumber} by @${merged.authorLogin} was merged and closed issue #${merged.issueNumber}: its bounty goes to that pull request's author(s). This pull request is no longer paid for #${merged.issueNumber}.`;
    try {
      await botReply(ctx, repository, other.pullNumber, `${mention(other.authorLogin)} ${text.replace(`@${merged.authorLogin}`, mention(merged.authorLogin))}`);
    } catch (err) {
      ctx.log.warn("competing pull request's author not told on GitHub", { repoId: repository.githubRepoId, pr: other.pullNumber, err: (err as Error).message });
    }
    const [user] = await db.select({ id: users.id }).from(users).where(eq(users.githubId, other.authorGithubId)).limit(1);
    if (user) {
      try {
        await mailUser(ctx, user.id, `Issue ${repository.fullName}#${merged.issueNumber} was fixed by another pull request`, `Hello ${other.authorLogin},\n\nOn ${repository.fullName}, ${text}\n\n${ctx.env.PUBLIC_URL}/repos/${repository.fullName}\n`);
      } catch (err) {
        ctx.log.warn("competing pull request's author not mailed", { pr: other.pullNumber, err: (err as Error).message });
      }
    }
  }
  return told;
}
