import type { BountyEvent, WebhookEndpoint } from "../../../db/schema/index.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { isCurrency } from "../../../lib/money.ts";

/**
 * What an endpoint receives, by kind. Standard endpoints get the Standard Webhooks shape
 * `{ type, timestamp, data }` (amounts as decimal strings in the smallest unit, plus a formatted one); Slack's
 * incoming webhooks `{ text }` in mrkdwn, Discord's `{ content, embeds }`. Bodies are fixed at fan-out: a retry
 * sends the same bytes.
 */
export interface EventContext {
  repository: { id: number; fullName: string; url: string };
  issue: { number: number; title: string | null; url: string };
  contributorLogin: string | null;
  pageUrl: string;
}

const SENTENCES: Record<string, string> = {
  "bounty.created": "New bounty",
  "bounty.boosted": "Bounty boosted",
  "bounty.claimed": "Contributor registered",
  "bounty.awaiting_decision": "Bounty awaits the pool manager's decision",
  "bounty.paid": "Bounty paid",
  "bounty.refunded": "Bounty returned to the pool",
  "webhook.test": "Test event",
};

export function standardPayload(event: BountyEvent, context: EventContext) {
  const data = JSON.parse(event.data) as Record<string, unknown>;
  const currency = isCurrency(data.currency) ? data.currency : null;
  const amount = typeof data.amount === "string" ? data.amount : null;
  return {
    type: event.type,
    timestamp: event.occurredAt.toISOString(),
    data: {
      ...data,
      eventId: `evt_${event.id}`,
      repository: context.repository,
      issue: context.issue,
      ...(currency && amount ? { amountFormatted: `${formatExact(BigInt(amount), currency)} ${currency}` } : {}),
      contributor: context.contributorLogin ? { login: context.contributorLogin } : null,
      url: context.pageUrl,
    },
  };
}

function summary(type: string, payload: ReturnType<typeof standardPayload>["data"]): { title: string; line: string } {
  const issue = `${payload.repository.fullName}#${payload.issue.number}${payload.issue.title ? ` ${payload.issue.title}` : ""}`;
  const amount = typeof payload.amountFormatted === "string" ? ` (${payload.amountFormatted})` : "";
  const who = payload.contributor ? ` by @${payload.contributor.login}` : "";
  return { title: `${SENTENCES[type] ?? type}${amount}`, line: `${issue}${who}` };
}

const slackEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Discord renders markdown and pings on @everyone/@here: neutralise both. */
const discordEscape = (text: string) => text.replace(/([\\*_`~|>[\]()])/g, "\\$1").replace(/@/g, "@\u200b");

export function bodyFor(kind: WebhookEndpoint["kind"], event: BountyEvent, context: EventContext): string {
  const payload = standardPayload(event, context);
  if (kind === "standard") return JSON.stringify(payload);
  const { title, line } = summary(event.type, payload.data);
  if (kind === "slack") {
    return JSON.stringify({ text: `*${slackEscape(title)}*: <${context.pageUrl}|${slackEscape(line)}>` });
  }
  return JSON.stringify({
    content: discordEscape(title),
    allowed_mentions: { parse: [] },
    embeds: [{ title: line.slice(0, 256), url: context.pageUrl, description: discordEscape(title).slice(0, 4096) }],
  });
}

/** The "send test event" message: the endpoint's own format, with sample data that says it is a test. */
export function testEventBody(endpoint: WebhookEndpoint, publicUrl: string, at: Date): string {
  const sample: BountyEvent = {
    id: 0,
    eventKey: "test",
    type: "bounty.created",
    githubRepoId: 0,
    issueNumber: 1,
    userId: null,
    data: JSON.stringify({ test: true, currency: "XDC", amount: "1000000000000000000" }),
    occurredAt: at,
    fannedOutAt: null,
  };
  const context: EventContext = {
    repository: { id: 0, fullName: "example/repository", url: "https://github.com/example/repository" },
    issue: { number: 1, title: "A test event from Issuepool", url: "https://github.com/example/repository/issues/1" },
    contributorLogin: null,
    pageUrl: publicUrl,
  };
  if (endpoint.kind !== "standard") return bodyFor(endpoint.kind, { ...sample, type: "webhook.test" as never }, context);
  return JSON.stringify({ ...standardPayload(sample, context), type: "webhook.test" });
}
