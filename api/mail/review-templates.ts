import type { MailMessage } from "./mailer.ts";

/**
 * The review deadlines' e-mails to a pool manager (issue 39, item 5): a bountied pull request waits past the
 * repository's deadline (and past twice it), or its author asks for release. What happened, what they can do,
 * where. People's text (titles, logins) is escaped in the HTML part.
 */
const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const html = (paragraphs: string[]) =>
  `<!doctype html><html><body style="font:15px/1.5 system-ui,sans-serif;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px">${paragraphs
    .map((p) => `<p style="margin:0 0 12px">${escape(p)}</p>`)
    .join("")}<p style="color:#59636e;font-size:13px;margin-top:24px">Issuepool</p></body></html>`;
const day = (at: Date) => `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;

interface Pull {
  to: string;
  repository: string;
  pullNumber: number;
  pullTitle: string | null;
  pullUrl: string | null;
  author: string;
  waitingSince: Date;
  bounties: { issueNumber: number; title: string | null; amount: string }[];
  pageUrl: string;
}
const pullName = (p: Pull) => `#${p.pullNumber}${p.pullTitle ? ` "${p.pullTitle}"` : ""}`;
const bountyLine = (p: Pull) => `It closes ${p.bounties.map((b) => `#${b.issueNumber}${b.title ? ` "${b.title}"` : ""} (bounty ${b.amount})`).join(", ")}.`;

export function reviewReminderMail(input: Pull & { deadlineHours: number; level: 1 | 2 }): MailMessage {
  const lines = [
    `Pull request ${pullName(input)} by ${input.author} on ${input.repository} has waited for a review since ${day(input.waitingSince)}: ${input.level === 2 ? "twice" : "past"} the repository's review deadline of ${input.deadlineHours} hours, with no review or comment from a maintainer.`,
    bountyLine(input),
    input.level === 2
      ? "The contributor may now ask you to release the bounty. Review the pull request, comment on it, merge it (the bounty pays on merge) or close it; you can also release the bounty by hand on the repository's page."
      : "Review it or comment on it so the contributor knows where it stands. Past twice the deadline the contributor may ask you for release.",
    ...(input.pullUrl ? [`The pull request: ${input.pullUrl}`] : []),
    `The repository's page (and its review deadline): ${input.pageUrl}`,
  ];
  return {
    to: input.to,
    subject: `${input.level === 2 ? "Still waiting" : "Waiting"} for your review: ${input.repository}#${input.pullNumber}`,
    text: lines.join("\n\n"),
    html: html(lines),
  };
}

export function releaseRequestMail(input: Pull): MailMessage {
  const lines = [
    `${input.author} asks you to release the bounty of pull request ${pullName(input)} on ${input.repository}: it has waited for a review since ${day(input.waitingSince)}, more than twice the repository's review deadline.`,
    bountyLine(input),
    "Nothing is paid by this request. Merge the pull request (the bounty pays on merge), release the bounty by hand on the repository's page, or reply on the pull request with what it still needs.",
    ...(input.pullUrl ? [`The pull request: ${input.pullUrl}`] : []),
    `The repository's page: ${input.pageUrl}`,
  ];
  return { to: input.to, subject: `Release requested: ${input.repository}#${input.pullNumber}`, text: lines.join("\n\n"), html: html(lines) };
}
