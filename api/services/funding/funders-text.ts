import { and, asc, eq, inArray } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { bountyBoosts, users, type RefundReason } from "../../../db/schema/index.ts";
import { formatFull } from "../../../lib/money-format.ts";
import { mention } from "../bot/markdown.ts";

/**
 * The funders of an issue in words, for the bot's one comment (and any other text): each boost with its
 * funder (or "anonymous"), amount and date, and what happened to it when it left the bounty, so the comment
 * says where every funder's money went. Empty when nobody boosted the issue.
 */
const WHY: Record<RefundReason, string> = { expired: "its expiry passed", cancelled: "its funder took it back", not_planned: "the issue was closed as not planned" };

export async function fundersLines(db: Database, repoId: number, issueNumber: number): Promise<{ boosted: bigint; active: number; lines: string[] }> {
  const rows = await db
    .select({ boost: bountyBoosts, login: users.username })
    .from(bountyBoosts)
    .innerJoin(users, eq(users.id, bountyBoosts.userId))
    .where(and(eq(bountyBoosts.githubRepoId, repoId), eq(bountyBoosts.issueNumber, issueNumber), inArray(bountyBoosts.status, ["active", "refunding", "refunded", "paid"])))
    .orderBy(asc(bountyBoosts.createdAt), asc(bountyBoosts.id));
  if (!rows.length) return { boosted: 0n, active: 0, lines: [] };
  let boosted = 0n;
  let active = 0;
  const lines = rows.map(({ boost, login }) => {
    const who = boost.anonymous ? "an anonymous funder" : mention(login);
    const what = `${formatFull(boost.amount, boost.currency)} ${boost.currency}`;
    const when = boost.createdAt.toISOString().slice(0, 10);
    if (boost.status === "active") {
      boosted += boost.amount;
      active++;
    }
    const state =
      boost.status === "refunded"
        ? ` — refunded to its funder (${WHY[boost.refundReason ?? "cancelled"]})`
        : boost.status === "refunding"
          ? ` — being refunded (${WHY[boost.refundReason ?? "cancelled"]})`
          : boost.status === "paid"
            ? " — paid with the bounty"
            : boost.expiresAt
              ? ` — returns to its funder on ${boost.expiresAt.toISOString().slice(0, 10)} unless a fix is merged first`
              : "";
    return `- ${who}: ${what} (${when})${state}`;
  });
  return { boosted, active, lines: ["**Funders** (anyone can add to this bounty: comment `/bounty <amount> <currency>`):", ...lines] };
}
