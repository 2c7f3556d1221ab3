import { z } from "zod";
import { CURRENCIES } from "../../../db/schema/columns.ts";
import { defineIntentKind } from "../funding/intent-kinds.ts";
import { giveTip } from "./tips.ts";

/**
 * `/tip 10 XDC @login` in a comment becomes this intent (github-events/reward-commands.ts): its author
 * confirms it in the app, and only then does the tip leave their wallet, once (the intent's key).
 */
export const TipPayload = z.object({
  login: z.string().min(1).max(39),
  amount: z.string().min(1).max(40),
  currency: z.enum(CURRENCIES),
  repoId: z.number().int(),
  issueNumber: z.number().int(),
  repoFullName: z.string(),
  commentId: z.number().int(),
});

export const tipIntent = defineIntentKind("tip", {
  payload: TipPayload,
  describe: (p) => ({
    title: `Tip ${p.amount} ${p.currency} to @${p.login}`,
    lines: [
      `From your Issuepool wallet to @${p.login}'s, as you asked on ${p.repoFullName}#${p.issueNumber}.`,
      `If @${p.login} has no Issuepool wallet yet, the tip is held and sent when they register; it stays reserved in your wallet until then.`,
    ],
  }),
  async confirm(ctx, { user, payload, idempotencyKey }) {
    const tip = await giveTip(ctx, {
      user,
      login: payload.login,
      amount: payload.amount,
      currency: payload.currency,
      source: `comment:${payload.commentId}`,
      repoId: payload.repoId,
      issueNumber: payload.issueNumber,
      idempotencyKey,
    });
    return { result: `tip:${tip.id}`, message: tip.message, link: tip.explorerUrl };
  },
});
