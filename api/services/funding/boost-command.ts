import type { AppContext } from "../../context.ts";
import type { Currency, Repository } from "../../../db/schema/index.ts";
import { createMoneyIntent, intentUrl, INTENT_TTL_MS } from "./intents.ts";
import { MIN_BOOST } from "./boost-rules.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import type { BoostIntentPayload } from "./boosts.ts";
import { formatExact } from "../../../lib/money-format.ts";

/**
 * `/bounty 50 XDC` in an issue comment by anyone who is not the repository's pool manager: a boost. A comment
 * cannot carry consent to move money, so the bot answers with a link to the confirmation in the app
 * (intents.ts: the commenter's GitHub account only, 30 minutes, once). The text of the reply, without the
 * @mention the caller adds.
 */
export async function boostIntentReply(
  ctx: Pick<AppContext, "database" | "appSecret" | "env">,
  input: { repository: Repository; issueNumber: number; comment: { id: number; user: { id: number; login: string } }; currency: Currency; amount: string },
): Promise<string> {
  const parsed = parseAmount(input.amount, DECIMALS[input.currency]);
  if (!parsed.ok || parsed.value < MIN_BOOST[input.currency]) {
    return `The minimum boost is ${input.currency === "XDC" ? "1 XDC" : `0.0001 ${input.currency}`}.`;
  }
  const [owner, name] = input.repository.fullName.split("/") as [string, string];
  const payload: BoostIntentPayload = {
    repoId: input.repository.githubRepoId,
    owner,
    name,
    issueNumber: input.issueNumber,
    title: `#${input.issueNumber}`,
    url: `${input.repository.htmlUrl}/issues/${input.issueNumber}`,
    currency: input.currency,
    amount: input.amount,
  };
  const intent = await createMoneyIntent(ctx, { kind: "boost", githubUserId: input.comment.user.id, source: `comment:${input.comment.id}`, payload });
  const minutes = Math.round(INTENT_TTL_MS / 60_000);
  return [
    // The amount as the platform reads it (formatted from the parsed value), never the text as typed.
    `to add **${formatExact(parsed.value, input.currency)} ${input.currency}** to this issue's bounty from your Issuepool wallet, confirm it here: ${intentUrl(ctx.env.PUBLIC_URL, intent.token)}`,
    "",
    `The link is yours only, works once and expires in ${minutes} minutes. 0.5 % of the amount is the platform fee; your share goes to whoever fixes the issue, or back to you if it is closed as not planned.`,
  ].join("\n");
}
