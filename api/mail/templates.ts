import type { MailMessage } from "./mailer.ts";

/**
 * The wallet's e-mails. Codes appear in the body only: subjects are logged
 * (api/mail/mailer.ts) and shown on lock screens.
 */
const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function html(paragraphs: string[], code?: string): string {
  const codeBlock = code
    ? `<p style="font:600 28px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:6px;margin:24px 0">${escape(code)}</p>`
    : "";
  const [first, ...rest] = paragraphs.map((p) => `<p style="margin:0 0 12px">${escape(p)}</p>`);
  return `<!doctype html><html><body style="font:15px/1.5 system-ui,sans-serif;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px">${first ?? ""}${codeBlock}${rest.join("")}<p style="color:#59636e;font-size:13px;margin-top:24px">Issuepool</p></body></html>`;
}

export function exportCodeMail(input: { to: string; code: string; address: string; validMinutes: number }): MailMessage {
  const lines = [
    `Use this code to export the private key of your Issuepool wallet ${input.address}:`,
    `It is valid for ${input.validMinutes} minutes and works once.`,
    "Anyone with your private key controls your wallet's funds. Never share the key or this code with anyone: Issuepool staff will never ask for them.",
    "If you did not ask to export your key, ignore this e-mail and consider signing out of Issuepool on other devices.",
  ];
  return {
    to: input.to,
    subject: "Your Issuepool key export code",
    text: [lines[0], "", `    ${input.code}`, "", ...lines.slice(1)].join("\n"),
    html: html(lines, input.code),
  };
}

export function keyExportedMail(input: { to: string; address: string; at: Date; ip?: string }): MailMessage {
  const when = `${input.at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  const lines = [
    `The private key of your Issuepool wallet ${input.address} was exported on ${when}${input.ip ? ` from ${input.ip}` : ""}.`,
    "Whoever holds the key controls the wallet's funds, also outside Issuepool.",
    "If this was not you, move your funds to a new wallet at once and contact support.",
  ];
  return { to: input.to, subject: "Your wallet's private key was exported", text: lines.join("\n\n"), html: html(lines) };
}

export function sendCodeMail(input: { to: string; code: string; amount: string; token: string; recipient: string; validMinutes: number }): MailMessage {
  const lines = [
    `Use this code to confirm sending ${input.amount} ${input.token} from your Issuepool wallet to ${input.recipient}:`,
    `It is valid for ${input.validMinutes} minutes, works once and only for this amount and recipient.`,
    "If you did not ask to send this, do not use the code and consider signing out of Issuepool on other devices.",
  ];
  return {
    to: input.to,
    subject: "Confirm your Issuepool transfer",
    text: [lines[0], "", `    ${input.code}`, "", ...lines.slice(1)].join("\n"),
    html: html(lines, input.code),
  };
}

/** The code of one cash-out to UPI (issue 40): what leaves the wallet and which UPI id the rupees go to. */
export function cashoutCodeMail(input: { to: string; code: string; amount: string; currency: string; upiId: string; validMinutes: number }): MailMessage {
  const lines = [
    `Use this code to confirm cashing out ${input.amount} ${input.currency} from your Issuepool wallet, with the rupees paid to the UPI id ${input.upiId}:`,
    `It is valid for ${input.validMinutes} minutes, works once and only for this amount and UPI id.`,
    "If you did not ask for this cash-out, do not use the code and consider signing out of Issuepool on other devices.",
  ];
  return {
    to: input.to,
    subject: "Confirm your Issuepool cash-out",
    text: [lines[0], "", `    ${input.code}`, "", ...lines.slice(1)].join("\n"),
    html: html(lines, input.code),
  };
}

/** The code that turns automatic cash-out on, or moves it to another UPI id: every future reward above the threshold goes there. */
export function autoCashoutCodeMail(input: { to: string; code: string; upiId: string; previousUpiId: string | null; validMinutes: number }): MailMessage {
  const change = input.previousUpiId
    ? `change the UPI id of your automatic cash-out from ${input.previousUpiId} to ${input.upiId}`
    : `turn on automatic cash-out to the UPI id ${input.upiId}`;
  const lines = [
    `Use this code to ${change}:`,
    `From then on, every reward above your threshold is sold for rupees paid to ${input.upiId} when it arrives. The code is valid for ${input.validMinutes} minutes, works once and only for this UPI id.`,
    "If you did not ask for this, do not use the code and consider signing out of Issuepool on other devices.",
  ];
  return {
    to: input.to,
    subject: "Confirm automatic cash-out on Issuepool",
    text: [lines[0], "", `    ${input.code}`, "", ...lines.slice(1)].join("\n"),
    html: html(lines, input.code),
  };
}

/** A bounty awaits the pool manager's decision (issue 11): what happened, what they can do, where. */
export function awaitingDecisionMail(input: {
  to: string;
  repository: string;
  issueNumber: number;
  issueTitle: string | null;
  amount: string;
  reason: "closed_completed" | "closed_not_planned";
  pageUrl: string;
}): MailMessage {
  const issue = `#${input.issueNumber}${input.issueTitle ? ` "${input.issueTitle}"` : ""}`;
  const lines = [
    input.reason === "closed_completed"
      ? `Issue ${issue} of ${input.repository} was closed as completed, but no merged pull request paid its bounty of ${input.amount}.`
      : `Issue ${issue} of ${input.repository} was closed as not planned while a contributor was registered on it; its bounty of ${input.amount} was not cancelled.`,
    "The bounty awaits your decision: release it to the contributor who did the work (a registered contributor, the pull request's author, or any GitHub user by login), or cancel it back to the repository's pool. Reopening the issue also returns it to normal.",
    `Decide on the repository's page: ${input.pageUrl}`,
  ];
  return { to: input.to, subject: `A bounty of ${input.repository} awaits your decision`, text: lines.join("\n\n"), html: html(lines) };
}
