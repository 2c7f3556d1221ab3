import type { MailMessage } from "./mailer.ts";

/**
 * The daily digest of saved searches (issue 30): the new bounties of each search, a link to see all, and a
 * one-click unsubscribe (RFC 8058: `List-Unsubscribe` with the https URL, `List-Unsubscribe-Post`), also as a
 * link in the body (which opens a confirm page: a GET never unsubscribes).
 */
const escape = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export interface DigestSection {
  name: string;
  searchUrl: string;
  bounties: { title: string; repository: string; issueNumber: number; amount: string; url: string }[];
  /** Matches beyond those listed. */
  more: number;
}

export function digestMail(input: { to: string; sections: DigestSection[]; unsubscribeUrl: string; settingsUrl: string }): MailMessage {
  const total = input.sections.reduce((n, s) => n + s.bounties.length + s.more, 0);
  const subject = `${total} new ${total === 1 ? "bounty matches" : "bounties match"} your saved searches`;
  const text = [
    `New bounties on Issuepool since your last digest:`,
    "",
    ...input.sections.flatMap((s) => [
      `${s.name} (${s.searchUrl})`,
      ...s.bounties.map((b) => `  - ${b.amount}: ${b.repository}#${b.issueNumber} ${b.title}\n    ${b.url}`),
      ...(s.more ? [`  and ${s.more} more: ${s.searchUrl}`] : []),
      "",
    ]),
    `Change your saved searches: ${input.settingsUrl}`,
    `Stop these e-mails: ${input.unsubscribeUrl}`,
  ].join("\n");
  const sections = input.sections
    .map(
      (s) =>
        `<h2 style="font-size:16px;margin:20px 0 8px"><a href="${escape(s.searchUrl)}">${escape(s.name)}</a></h2><ul style="padding-left:20px;margin:0">${s.bounties
          .map((b) => `<li style="margin:0 0 6px"><strong>${escape(b.amount)}</strong> <a href="${escape(b.url)}">${escape(b.repository)}#${b.issueNumber} ${escape(b.title)}</a></li>`)
          .join("")}${s.more ? `<li><a href="${escape(s.searchUrl)}">and ${s.more} more</a></li>` : ""}</ul>`,
    )
    .join("");
  const html = `<!doctype html><html><body style="font:15px/1.5 system-ui,sans-serif;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px"><p style="margin:0 0 12px">New bounties on Issuepool since your last digest:</p>${sections}<p style="color:#59636e;font-size:13px;margin-top:24px"><a href="${escape(input.settingsUrl)}">Change your saved searches</a> · <a href="${escape(input.unsubscribeUrl)}">Unsubscribe</a></p><p style="color:#59636e;font-size:13px">Issuepool</p></body></html>`;
  return {
    to: input.to,
    subject,
    text,
    html,
    headers: { "List-Unsubscribe": `<${input.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}
