/** The built-in planner's complexity of a task: signals in its text (integrations, money, rules, scale), with the reasons. */
import type { Complexity } from "../../../lib/scoping.ts";
import type { Draft } from "./planner-draft.ts";
import { clip } from "./planner-titles.ts";

// ---------- complexity ----------

interface Signal {
  label: string;
  weight: number;
  test: RegExp;
  /** Another way the text may show it. */
  also?: (text: string) => boolean;
  /** A name worth showing beside the label (the system, the law, the target). */
  detail?: (text: string) => string | undefined;
}

const KNOWN_SYSTEMS =
  /\b(Stripe|PayPal|Adyen|Mollie|Twilio|SendGrid|Mailgun|Mailchimp|Postmark|Slack|Teams|Google(?: Calendar| Maps| Drive)?|Outlook|Microsoft 365|Entra ID|Azure AD|Okta|Auth0|Keycloak|Salesforce|HubSpot|Zendesk|Jira|GitHub|GitLab|QuickBooks|Xero|SAP|Shopify|WooCommerce|Epic|Cerner|FHIR|HL7|DATEV|Zoom|WhatsApp|Firebase|S3|OpenAI)\b/;
const NAMED_AFTER = /\b(?:from|with|via|through|using|into|to|in|by)\s+(?:the\s+)?([A-Z][a-z]+[A-Z]\w*|[A-Z]{2,}[a-z]*\w*(?:\s[A-Z]{2,})?)\b/;

function systemName(text: string): string | undefined {
  const known = text.match(KNOWN_SYSTEMS)?.[1];
  if (known) return known;
  const named = text.match(NAMED_AFTER)?.[1];
  if (named && !/^(API|APIs|CSV|PDF|JSON|XML|SMS|URL|UI|UX|GDPR|HIPAA|PCI|WCAG|AA|AAA|SLA|ID|IDs|FR|NFR|US|UTC|PHI|PII|TLS|HTTPS|MFA|SSO|OS|iOS|KPI|KPIs|RTL|QR|CRM|ERP|EHR|PWA|MVP|FAQ|IT|HR|EU|UK|USA)$/.test(named)) return named;
  return undefined;
}

const SIGNALS: Signal[] = [
  {
    label: "external API",
    weight: 1,
    test: /\b(api|apis|integrat\w*|third[- ]party|webhooks?|import\w* (?:[\w-]+ ){0,5}from|sync\w* (?:\w+ ){0,4}(?:with|from|to)|external system|provider|feed from|from the [\w -]{2,30} (?:system|export|inbox)|csv)\b/i,
    also: (t) => !!systemName(t),
    detail: systemName,
  },
  { label: "payments", weight: 1.5, test: /\b(payments?|pay|paid|refund\w*|card numbers?|by card|credit cards?|checkout|subscriptions?|deposits?|charg(?:e|es|ed|ing)|payouts?|payroll|stripe|paypal)\b/i },
  {
    label: "security and compliance",
    weight: 1.5,
    test: /\b(hipaa|gdpr|pci(?:[- ]dss)?|soc ?2|iso ?27001|audit (?:log|trail)|encrypt\w*|phi|pii|personal data|consent|compliance|compliant|retention|mfa|2fa|two-factor|multi-factor|access control|role-based|rbac|permissions?|redact\w*|anonymi[sz]\w*|penetration|vulnerab\w*)\b/i,
    detail: (t) => t.match(/\b(HIPAA|GDPR|PCI(?:[- ]DSS)?|SOC ?2|ISO ?27001)\b/i)?.[1]?.toUpperCase(),
  },
  { label: "single sign-on", weight: 1, test: /\b(sso|single sign-on|oauth\w*|openid|saml|entra|azure ad|okta|auth0|ldap|active directory)\b/i },
  { label: "offline sync", weight: 2, test: /\b(offline|without (?:a |an )?(?:connection|signal|network|internet)|no (?:connection|signal|coverage)|poor connectivity)\b/i },
  { label: "real-time updates", weight: 1.5, test: /\b(real[- ]?time|live (?:updates?|location|tracking|status|map)|instantly|push notifications?|websockets?|within \d+ seconds? of|as it happens|(?:told|notified|updated|shown) at once|updated live)\b/i },
  { label: "concurrency", weight: 1.5, test: /\b(overlap\w*|double[- ]book\w*|concurren\w*|simultaneous\w*|atomic\w*|at the same (?:time|moment)|race conditions?|locking|exactly once|idempoten\w*|conflict\w*|twice|same (?:slot|seat|tool|room|item|compartment|shift)|never (?:\w+ ){0,4}two|cannot (?:\w+ ){0,6}at once)\b/i },
  { label: "scheduled job", weight: 1, test: /\b(every \d+ (?:minutes?|hours?|days?)|every (?:minute|hour|day|night|morning|week|month)|(?:daily|nightly|hourly|weekly|monthly) (?:at|import|sync|job|run|report|summary|digest|backup|export|e-?mail|reminder)|(?:runs?|sent|send|import\w*|sync\w*|export\w*|backed up|checked|refresh\w*) (?:\w+ ){0,3}(?:daily|nightly|hourly|weekly|monthly)|every (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|night|evening)|the evening before|within \d+ (?:minutes|hours) of|at the end of (?:the|each) (?:day|week|month)|not (?:\w+ ){0,2}within \d+ (?:hours|days)|cron|scheduled|\d+ (?:hours?|days?|minutes?) (?:before|after)|automatically (?:after|at|when)|expires? after|reminders?)\b/i },
  { label: "internationalisation", weight: 1, test: /\b(?:in|into) (?:English|German|French|Spanish|Dutch|Italian|Portuguese|Polish|Arabic|Chinese|Japanese|Welsh)\b|\b(languages?|locales?|translat\w*|i18n|internationali[sz]\w*|locali[sz]\w*|multilingual|currencies|time ?zones?|right-to-left|rtl)\b/i },
  {
    label: "performance target",
    weight: 1,
    test: /\b(under|within|below|less than|at most|in) (?:\d+(?:[.,]\d+)?|one|two|three|five|ten) ?(?:ms|milliseconds?|s|seconds?)\b|\bp9[59]\b|\b\d[\d,]* (?:concurrent|simultaneous) users\b|\b\d[\d,]* (?:requests|transactions) (?:per|a) (?:second|minute)\b|\b99\.\d+ ?%|\buptime\b|\bload (?:test|time)s?\b/i,
    detail: (t) => t.match(/\b(?:under|within|below|less than|at most) ((?:\d+(?:[.,]\d+)?|one|two|three|five|ten) ?(?:ms|milliseconds?|s|seconds?))\b/i)?.[1]?.replace(/ ?seconds?/, " s"),
  },
  { label: "data migration", weight: 1.5, test: /\b(migrat\w*|legacy|existing (?:data|records|spreadsheets?)|backfill\w*|import (?:the )?(?:historic|history|old|existing))\b/i },
  { label: "notifications", weight: 0.5, test: /\b(sms|text messages?|e-?mails?|notif\w*)\b/i, detail: (t) => (/\bsms|text messages?\b/i.test(t) ? "SMS" : /\be-?mails?\b/i.test(t) ? "e-mail" : undefined) },
  { label: "search", weight: 0.5, test: /\b(search\w*|full[- ]text)\b/i },
  { label: "file handling", weight: 0.5, test: /\b(uploads? (?:a|an|the|files?|photos?|documents?)|attachments?|photos?|images?|pdfs?|signatures?)\b/i },
  { label: "accessibility", weight: 0.5, test: /\b(wcag|accessib\w*|screen readers?)\b/i },
];

function signalsOf(text: string): { label: string; weight: number }[] {
  const found: { label: string; weight: number }[] = [];
  for (const signal of SIGNALS) {
    if (!signal.test.test(text) && !signal.also?.(text)) continue;
    const detail = signal.detail?.(text);
    found.push({ label: detail ? `${signal.label} (${detail})` : signal.label, weight: signal.weight });
  }
  return found;
}

/** A requirement's signals add up; a task of several counts its most complex one and how many there are. */
export function complexity(draft: Draft): { value: Complexity; reasons: string[] } {
  const units = draft.requirements.length ? draft.requirements.map((r) => `${r.text} ${r.details.join(" ")}`) : [draft.title];
  const per = units.map((u) => signalsOf(u));
  const scores = per.map((f) => f.reduce((s, x) => s + x.weight, 0));
  let score = Math.max(...scores);
  const labels = new Map<string, number>();
  for (const f of per) for (const x of f) labels.set(x.label, Math.max(labels.get(x.label) ?? 0, x.weight));
  const reasons = [...labels].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label]) => label);
  if (units.length > 1) {
    score += Math.min(2, (units.length - 1) * 0.15);
    reasons.unshift(`${units.length} requirements`);
  }
  const criteria = draft.acceptance.length + draft.requirements.reduce((n, r) => n + r.details.length, 0);
  if (criteria >= 3) {
    score += 0.5;
    reasons.push(`${criteria} criteria or details`);
  }
  if (units.length === 1 && `${units[0]} ${draft.acceptance.join(" ")}`.length > 600) score += 0.5;
  const value: Complexity = score < 1 ? "Low" : score < 2.5 ? "Medium" : "High";
  if (!reasons.length) reasons.push("no external systems or risky parts named");
  return { value, reasons: reasons.slice(0, 6).map((r) => clip(r, 80)) };
}
