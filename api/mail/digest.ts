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

/** A saved search the digest could not run (issue 36): told to its owner, whose other searches are sent. */
export interface SkippedSearch {
  name: string;
  /** Why, as a sentence ("q: control characters … are not allowed in a search."). */
  reason: string;
}

/** A bountied pull request of the pool manager's repositories waiting past the review deadline (issue 39). */
export interface DigestReview {
  repository: string;
  pullNumber: number;
  title: string | null;
  author: string;
  url: string;
  waitingDays: number;
  releaseRequested: boolean;
}

export function digestMail(input: { to: string; sections: DigestSection[]; skipped?: SkippedSearch[]; reviews?: DigestReview[]; unsubscribeUrl: string; settingsUrl: string }): MailMessage {
  const total = input.sections.reduce((n, s) => n + s.bounties.length + s.more, 0);
  const skipped = input.skipped ?? [];
  const reviews = input.reviews ?? [];
  const subject = total
    ? `${total} new ${total === 1 ? "bounty matches" : "bounties match"} your saved searches`
    : reviews.length
      ? `${reviews.length === 1 ? "A pull request waits" : `${reviews.length} pull requests wait`} for your review`
      : `${skipped.length === 1 ? "A saved search was" : `${skipped.length} saved searches were`} skipped in your digest`;
  const reviewLine = (r: DigestReview) => `${r.repository}#${r.pullNumber}${r.title ? ` ${r.title}` : ""} by ${r.author}, waiting ${r.waitingDays} ${r.waitingDays === 1 ? "day" : "days"}${r.releaseRequested ? " (release requested)" : ""}`;
  const reviewsText = reviews.length
    ? ["Pull requests waiting for your review past the deadline:", ...reviews.map((r) => `  - ${reviewLine(r)}\n    ${r.url}`), ""]
    : [];
  const skippedText = skipped.length
    ? [
        `Skipped (the digest of ${skipped.length === 1 ? "this search is" : "these searches is"} now off; change or delete ${skipped.length === 1 ? "it" : "them"}: ${input.settingsUrl}):`,
        ...skipped.map((s) => `  - ${s.name}: ${s.reason}`),
        "",
      ]
    : [];
  const text = [
    ...reviewsText,
    ...(total ? [`New bounties on Issuepool since your last digest:`, ""] : []),
    ...skippedText,
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
  const skippedHtml = skipped.length
    ? `<p style="margin:0 0 8px">Skipped: the digest of ${skipped.length === 1 ? "this search is" : "these searches is"} now off. <a href="${escape(input.settingsUrl)}">Change or delete ${skipped.length === 1 ? "it" : "them"}</a>.</p><ul style="padding-left:20px;margin:0 0 12px">${skipped
        .map((s) => `<li style="margin:0 0 6px"><strong>${escape(s.name)}</strong>: ${escape(s.reason)}</li>`)
        .join("")}</ul>`
    : "";
  const reviewsHtml = reviews.length
    ? `<h2 style="font-size:16px;margin:0 0 8px">Pull requests waiting for your review past the deadline</h2><ul style="padding-left:20px;margin:0 0 12px">${reviews
        .map((r) => `<li style="margin:0 0 6px"><a href="${escape(r.url)}">${escape(reviewLine(r))}</a></li>`)
        .join("")}</ul>`
    : "";
  const html = `<!doctype html><html><body style="font:15px/1.5 system-ui,sans-serif;color:#1f2328;max-width:560px;margin:24px auto;padding:0 16px">${reviewsHtml}${total ? `<p style="margin:0 0 12px">New bounties on Issuepool since your last digest:</p>` : ""}${skippedHtml}${sections}<p style="color:#59636e;font-size:13px;margin-top:24px"><a href="${escape(input.settingsUrl)}">Change your saved searches</a> · <a href="${escape(input.unsubscribeUrl)}">Unsubscribe</a></p><p style="color:#59636e;font-size:13px">Issuepool</p></body></html>`;
  return {
    to: input.to,
    subject,
    text,
    html,
    headers: { "List-Unsubscribe": `<${input.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  };
}
