import type { MailMessage } from "./mailer.ts";

/**
 * The mails of rewards and cash-outs (issue 40): a reward arrived (with its "Cash out to UPI" link), and how a
 * cash-out ended. Amounts arrive formatted; links are the platform's own pages.
 */
const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function html(paragraphs: string[], link?: { href: string; label: string }): string {
  const body = paragraphs.map((p) => `<p style="margin:0 0 12px">${escape(p)}</p>`).join("");
  const button = link
    ? `<p style="margin:20px 0"><a href="${escape(link.href)}" style="display:inline-block;background:#0f3d91;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none;font-weight:600">${escape(link.label)}</a></p>`
    : "";
  return `<!doctype html><html><body style="font:15px/1.5 system-ui,sans-serif;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px">${body}${button}<p style="color:#59636e;font-size:13px;margin-top:24px">Issuepool</p></body></html>`;
}

export function rewardArrivedMail(input: {
  to: string;
  amount: string;
  currency: string;
  what: string;
  transactionUrl: string | null;
  /** The wallet's "Cash out to UPI" for this reward; null where the currency cannot be cashed out (ROXN). */
  cashoutUrl: string | null;
  walletUrl: string;
  /** Set when the reward is being cashed out automatically. */
  autoCashout?: boolean;
}): MailMessage {
  const lines = [
    `You were paid ${input.amount} ${input.currency} for ${input.what}. It is in your Issuepool wallet now.`,
    ...(input.transactionUrl ? [`Transaction: ${input.transactionUrl}`] : []),
    input.autoCashout
      ? "You asked for rewards like this one to be cashed out to your UPI id: that has started. Your wallet's Transactions tab shows how it goes."
      : input.cashoutUrl
        ? `To receive it in rupees, cash it out to your UPI account: ${input.cashoutUrl}`
        : "ROXN cannot be cashed out directly to INR; it stays in your wallet.",
  ];
  const link = input.autoCashout ? { href: input.walletUrl, label: "Open your wallet" } : input.cashoutUrl ? { href: input.cashoutUrl, label: "Cash out to UPI" } : { href: input.walletUrl, label: "Open your wallet" };
  return { to: input.to, subject: `You were paid ${input.amount} ${input.currency}`, text: lines.join("\n\n"), html: html(lines, link) };
}

export function cashoutEndedMail(input: { to: string; outcome: "completed" | "refunded" | "cancelled"; amount: string; currency: string; fiat: string; upiId: string; reason: string | null; walletUrl: string }): MailMessage {
  const lines =
    input.outcome === "completed"
      ? [`Your cash-out of ${input.amount} ${input.currency} is complete: INR ${input.fiat} was paid to ${input.upiId}.`]
      : input.outcome === "refunded"
        ? [
            `Your cash-out of ${input.amount} ${input.currency} to ${input.upiId} failed${input.reason ? ` (${input.reason})` : ""}.`,
            `The ${input.currency} came back to your Issuepool wallet: nothing was lost. You can try again from your wallet.`,
          ]
        : [
            `Your cash-out of ${input.amount} ${input.currency} to ${input.upiId} did not go ahead${input.reason ? ` (${input.reason})` : ""}.`,
            `Nothing left your wallet: the ${input.currency} is still there.`,
          ];
  const subject = input.outcome === "completed" ? `INR ${input.fiat} paid to ${input.upiId}` : input.outcome === "refunded" ? "Your cash-out failed: the crypto is back in your wallet" : "Your cash-out did not go ahead";
  return { to: input.to, subject, text: lines.join("\n\n"), html: html(lines, { href: input.walletUrl, label: "Open your wallet" }) };
}
