import { and, desc, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bountyAttempts, pullPreviews } from "../../../db/schema/index.ts";
import { lockDaysText, utcMinute } from "../../../lib/attempt-rules.ts";
import { mention } from "../bot/markdown.ts";
import { attemptsOn } from "./attempts.ts";
import { attemptStatusOf } from "./preview.ts";
import { effectiveSettings } from "./settings.ts";

/**
 * The attempts' part of the bot's one comment on a bountied issue (api/services/bot/bounty-comment.ts, issue 39):
 * the bounty's mode and audience, who holds it and until when, the queue in order, the applications, the open pull
 * requests that close the issue (when they compete, or the bounty is not open to all) with their authors' attempt
 * status, and, when someone else's merge overtook a holder, that the merge pays as usual. Nothing for an open bounty
 * with nothing of these to say (the comment reads as before issue 39).
 */
export async function attemptLines(ctx: Pick<AppContext, "database">, repoId: number, issueNumber: number, open: boolean): Promise<string[]> {
  const lines: string[] = [];
  const db = ctx.database.db;
  const [overtaken] = await db
    .select()
    .from(bountyAttempts)
    .where(and(eq(bountyAttempts.githubRepoId, repoId), eq(bountyAttempts.issueNumber, issueNumber), eq(bountyAttempts.endReason, "merged_other")))
    .orderBy(desc(bountyAttempts.id))
    .limit(1);
  if (overtaken?.heldFrom && overtaken.pullNumber !== null) {
    const [merged] = await db.select({ login: pullPreviews.authorLogin }).from(pullPreviews).where(and(eq(pullPreviews.githubRepoId, repoId), eq(pullPreviews.pullNumber, overtaken.pullNumber))).limit(1);
    lines.push(
      `**Merged while held:** pull request #${overtaken.pullNumber}${merged ? ` by ${mention(merged.login)}` : ""} was merged while ${mention(overtaken.githubLogin)} held this bounty. The merge is the maintainer's decision: the bounty is paid to that pull request's author(s) as usual.`,
    );
  }
  if (!open) return lines;
  const settings = await effectiveSettings(ctx, repoId, issueNumber);
  const { holder, queue, applications } = await attemptsOn(ctx, repoId, issueNumber);
  const pulls = (await db.select().from(pullPreviews).where(and(eq(pullPreviews.githubRepoId, repoId), eq(pullPreviews.state, "open")))).filter((p) =>
    (JSON.parse(p.closes) as number[]).includes(issueNumber),
  );
  if (settings.mode !== "open" || settings.audience === "humans") {
    const mode =
      settings.mode === "exclusive"
        ? `exclusive: the first \`/attempt\` holds it for ${lockDaysText(settings.lockMs)}, later ones queue`
        : settings.mode === "application"
          ? `by application: comment \`/attempt\` with a short note on how you would fix it; the pool manager picks`
          : "open to everyone";
    lines.push(`**Attempts:** ${mode}; ${settings.audience === "humans" ? "humans only (accounts GitHub marks as bots, and accounts the pool manager flagged, are refused)" : "automated agents allowed"}.`);
  }
  if (holder) lines.push(`**Held by** ${mention(holder.githubLogin)} until **${utcMinute(holder.lockedUntil!)}**.`);
  if (queue.length) lines.push(`**Queue:** ${queue.map((q, i) => `${i + 1}. ${mention(q.githubLogin)}`).join(" ")}`);
  if (applications.length) lines.push(`**Applications:** ${applications.map((a) => mention(a.githubLogin)).join(", ")} (the pool manager picks one on Issuepool).`);
  if (pulls.length > 1 || (pulls.length === 1 && settings.mode !== "open")) {
    const listed = await Promise.all(pulls.map(async (p) => `#${p.pullNumber} by ${mention(p.authorLogin)} (${await attemptStatusOf(ctx, repoId, issueNumber, p.authorGithubId)})`));
    lines.push(`**Pull requests closing this issue:** ${listed.join(", ")}.`);
  }
  return lines;
}
