/**
 * The "boost" money intent: `/bounty 50 XDC` in a comment by someone who is not the pool manager becomes a boost,
 * confirmed in the app (intents.ts). Registered at load (intent-kinds-all.ts imports it).
 */
import { z } from "zod";
import { CURRENCIES } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { defineIntentKind } from "./intent-kinds.ts";
import { fundableIssue } from "./issue-lookup.ts";
import { boostIssue } from "./boost-create.ts";

/** `/bounty 50 XDC` by someone who is not the pool manager: a boost, confirmed in the app (intents.ts). */
export const BoostIntentPayload = z.object({
  repoId: z.number().int().positive(),
  owner: z.string(),
  name: z.string(),
  issueNumber: z.number().int().positive(),
  title: z.string(),
  url: z.string(),
  currency: z.enum(CURRENCIES),
  amount: z.string(),
});
export type BoostIntentPayload = z.infer<typeof BoostIntentPayload>;

defineIntentKind("boost", {
  payload: BoostIntentPayload,
  describe: (p) => ({
    title: `Boost ${p.owner}/${p.name}#${p.issueNumber} with ${p.amount} ${p.currency}`,
    lines: [
      `“${p.title}”`,
      `${p.amount} ${p.currency} leaves your Issuepool wallet; 0.5 % of it is the platform fee, the rest is added to the issue's bounty as your share.`,
      "Your share goes to whoever fixes the issue, or back to you if the issue is closed as not planned. You can take it back while nobody has claimed the issue.",
    ],
  }),
  async confirm(ctx, { user, payload, idempotencyKey }) {
    // Still open, still an issue: asked again now, not trusted from when the comment was written.
    const issue = await fundableIssue(ctx, { owner: payload.owner, name: payload.name, issueNumber: payload.issueNumber, user });
    if (issue.repoId !== payload.repoId) throw new DomainError({ code: ErrorCode.REPOSITORY_CHANGED, error: "Repository changed", message: "This repository is no longer the one the comment was written in." });
    const done = await boostIssue(ctx, {
      user,
      issue,
      currency: payload.currency,
      amount: payload.amount,
      idempotencyKey,
    });
    return { result: `boost:${done.boost.id}`, message: `Your boost of ${payload.amount} ${payload.currency} is on its way to the bounty.`, link: payload.url };
  },
});
