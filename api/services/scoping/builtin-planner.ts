import type { Complexity, Plan, PlanTask } from "../../../lib/scoping.ts";
import { PLAN_LIMITS, type Planner } from "./plan.ts";
import { canonicalId, idsIn, readDocument, sentences, type ReadDocument, type Requirement, type Section } from "./requirements-reader.ts";

/**
 * The embedded default's planner: no network, no model. It reads the
 * document's requirements (requirements-reader.ts) and makes one task per
 * requirement (per section when there are more than a plan holds), with an
 * imperative title, the requirement's text and identifier, its acceptance
 * criteria and the actors it names; complexity from signals in the text,
 * with the reasons; dependencies and phases that follow the work (sign-in,
 * data import and the data model first, reports last, the document's
 * milestones when it has them). The same text always gives the same plan.
 * docs/ai-scoping.md describes the rules.
 */
export const builtinPlanner: Planner = {
  name: "builtin",
  plan: async (document) => planDocument(document),
};

interface Draft {
  title: string;
  requirements: Requirement[];
  /** The section a grouped task stands for. */
  section?: Section;
  acceptance: string[];
  milestone: number;
  tier: number;
  order: number;
}

export function planDocument(document: { fileName: string; text: string }): Plan {
  const read = readDocument(document.text);
  documentRoles = read.actors.map((a) => a.name.toLowerCase().replace(/^(the|an?)\s+/, ""));
  try {
    return planRead(document, read);
  } finally {
    documentRoles = [];
  }
}

function planRead(document: { fileName: string; text: string }, read: ReadDocument): Plan {
  const projectName = findProjectName(document, read);
  let drafts = makeDrafts(read);
  attachAcceptance(drafts, read);
  let fallback = false;
  if (!drafts.length) {
    fallback = true;
    drafts = [{ title: clip(`Scope and build ${projectName}`, PLAN_LIMITS.title), requirements: [], acceptance: [], milestone: 0, tier: 3, order: 0 }];
  }
  const tasks = orderAndLink(drafts, read, fallback ? document.text : undefined);
  return { projectName, summary: summarize(read, tasks, drafts), tasks };
}

// ---------- drafts: one per requirement, or per section when there are too many ----------

function makeDrafts(read: ReadDocument): Draft[] {
  const requirements = read.requirements;
  const single = (r: Requirement): Draft => ({ title: requirementTitle(r.text), requirements: [r], acceptance: [...r.acceptance], milestone: 0, tier: 3, order: r.order });
  if (requirements.length <= PLAN_LIMITS.tasks) {
    const drafts = requirements.map(single);
    // A bullet that bundles several features splits when the plan has room.
    const out: Draft[] = [];
    let room = PLAN_LIMITS.tasks - drafts.length;
    for (const draft of drafts) {
      const parts = room > 0 ? bundled(draft.requirements[0]!) : [];
      if (parts.length > 1 && parts.length - 1 <= room) {
        room -= parts.length - 1;
        parts.forEach((text, i) => {
          const r = draft.requirements[0]!;
          const part: Requirement = { ...r, id: r.id ? `${r.id}${String.fromCharCode(97 + i)}` : undefined, text, details: i === parts.length - 1 ? r.details : [], acceptance: i === parts.length - 1 ? r.acceptance : [] };
          out.push({ ...draft, title: requirementTitle(text), requirements: [part], acceptance: [...part.acceptance], order: draft.order + i / 10 });
        });
      } else out.push(draft);
    }
    return out;
  }
  // Too many for one task each: group by the section they are in, then merge sections until the plan holds them.
  let groups = new Map<Section, Requirement[]>();
  for (const r of requirements) groups.set(r.section, [...(groups.get(r.section) ?? []), r]);
  while (groups.size > PLAN_LIMITS.tasks) {
    const deepest = Math.max(...[...groups.keys()].map((s) => s.level));
    const merged = new Map<Section, Requirement[]>();
    let changed = false;
    for (const [section, rs] of groups) {
      const up = section.level === deepest && section.parent && section.parent.kind === "work" && section.parent.level > 0 ? section.parent : section;
      if (up !== section) changed = true;
      merged.set(up, [...(merged.get(up) ?? []), ...rs]);
    }
    groups = merged;
    if (!changed) break;
  }
  let list = [...groups].map(([section, rs]) => ({ section, rs }));
  if (list.length > PLAN_LIMITS.tasks) {
    // Still too many: neighbouring sections share a task.
    const per = Math.ceil(list.length / PLAN_LIMITS.tasks);
    const chunks: { section: Section; rs: Requirement[]; titles: string[] }[] = [];
    for (let i = 0; i < list.length; i += per) {
      const chunk = list.slice(i, i + per);
      chunks.push({ section: chunk[0]!.section, rs: chunk.flatMap((c) => c.rs), titles: chunk.map((c) => c.section.title) });
    }
    return chunks.map((c) => ({ title: sectionTitle(c.titles.join(" and "), c.rs), requirements: c.rs, section: c.section, acceptance: c.rs.flatMap((r) => r.acceptance), milestone: 0, tier: 3, order: c.rs[0]!.order }));
  }
  return list.map(({ section, rs }) =>
    rs.length === 1 ? single(rs[0]!) : { title: sectionTitle(section.title, rs), requirements: rs, section, acceptance: rs.flatMap((r) => r.acceptance), milestone: 0, tier: 3, order: rs[0]!.order },
  );
}

/** "Patients can book appointments; staff can see the day's schedule" is two features. */
function bundled(r: Requirement): string[] {
  if (r.text.length < 60) return [];
  const parts = r.text.split(/;\s+(?:and\s+)?/).map((p) => p.trim().replace(/[.;]+$/, ""));
  if (parts.length < 2 || parts.length > 4) return [];
  if (!parts.every((p) => p.split(/\s+/).length >= 5 && /^(?:the\s+)?[\w-]+(?:\s[\w-]+){0,2}\s+(can|must|shall|should|will|may)\s/i.test(p) && !/^(?:the\s+)?(?:first|second|last|it|this|that|each|a|an)\b/i.test(p))) return [];
  return parts.map((p) => `${p}.`);
}

const GENERIC_SECTION = /^(functional|non-?functional|technical|system|business|user|other|general|additional|quality|performance)?\s*(requirements?|features?|stories|user stories|capabilities|needs|constraints|specifications?)$/i;

function sectionTitle(heading: string, rs: Requirement[]): string {
  const text = heading.replace(/[.:]+$/, "").trim();
  const ids = rs.map((r) => r.id).filter(Boolean) as string[];
  const range = ids.length >= 2 ? ` (${ids[0]}–${ids.at(-1)})` : "";
  if (!text || GENERIC_SECTION.test(text)) return clip(`${requirementTitle(rs[0]!.text)}, and ${rs.length - 1} more${range}`, PLAN_LIMITS.title);
  if (VERB_START.test(text)) return clip(capitalize(text) + range, PLAN_LIMITS.title);
  return clip(`Build ${lowerFirst(text)}${range}`, PLAN_LIMITS.title);
}

// ---------- titles ----------

/** The roles the document being planned names (its Users/Roles section): subjects that are people. */
let documentRoles: string[] = [];

const VERB_START =
  /^(add|allow|archive|assign|automate|book|build|calculate|cancel|capture|check|collect|configure|connect|create|delete|deploy|design|detect|display|document|edit|email|e-mail|enable|encrypt|enforce|ensure|estimate|export|fetch|filter|flag|generate|give|handle|hide|import|integrate|invite|keep|let|limit|list|log|make|manage|mark|match|migrate|monitor|notify|pay|prevent|print|process|provide|publish|push|rate|record|redact|refund|reject|release|remind|remove|render|replace|report|request|reserve|reset|restore|retry|review|run|save|schedule|search|send|set|share|show|sign|sort|split|store|submit|suggest|support|suspend|sync|synchronise|synchronize|take|track|translate|update|upload|validate|verify|view|warn|write)\b/i;
const SYSTEM_SUBJECT = /^(?:the\s+)?(?:system|application|app|platform|service|api|software|product|server|backend|back end|website|web site|site|tool|portal|solution|web app|mobile app|frontend|front end)\s+/i;
const MODAL_PHRASE = /^(must|shall|should|will|can|may|needs? to|has to|have to|is required to|are required to|is able to|are able to)\s+(?:be able to\s+)?(not\s+)?/i;
const ROLE_WORDS =
  /^(users?|admins?|administrators?|customers?|visitors?|members?|managers?|contributors?|maintainers?|owners?|buyers?|sellers?|operators?|developers?|students?|teachers?|patients?|staff|guests?|nurses?|doctors?|clinicians?|dispatchers?|technicians?|drivers?|riders?|volunteers?|coordinators?|agents?|employees?|editors?|authors?|reviewers?|residents?|tenants?|landlords?|parents?|coaches?|players?|clients?|accountants?|auditors?|approvers?|requesters?|moderators?|organisers?|organizers?|attendees?|vendors?|suppliers?|planners?|supervisors?|field staff|front desk|couriers?|recipients?|engineers?|librarians?|contractors?|leaders?|passengers?|travell?ers?|shoppers?|subscribers?|applicants?|candidates?|recruiters?|learners?|instructors?|tutors?|mentors?|inspectors?|citizens?|caregivers?|carers?|families|pharmacists?|cashiers?|analysts?|donors?|hosts?|partners?|reps?|officers?|treasurers?|trustees?|readers?|secretar(?:y|ies)|chairs?|clerks?|bookkeepers?|directors?|therapists?|counsell?ors?|lawyers?|solicitors?|receptionists?|coordinators?|bands?)$/i;

/** An imperative title for a requirement: "The system shall import X" -> "Import X", "Nurses must be able to see Y" -> "Let nurses see Y". */
export function requirementTitle(requirement: string): string {
  return titleOf(requirement).replace(/^(Let .+?) and can /, "$1 and ");
}

function titleOf(requirement: string): string {
  let text = requirement.replace(/\s+/g, " ").replace(/^[*_\s]+|[*_\s]+$/g, "").trim();
  // A label before the requirement ("Offline check-in: nurses can …").
  const label = text.match(/^([A-Z][^:.;!?]{2,50}):\s+(\S.+)$/);
  if (label && label[1]!.split(/\s+/).length <= 6) {
    const fromRest = requirementTitle(label[2]!);
    return fromRest.length <= 90 ? fromRest : clip(`Support ${lowerFirst(label[1]!)}`, PLAN_LIMITS.title);
  }
  text = (sentences(text)[0] ?? text).replace(/[.;:!]+$/, "");
  const story = text.match(/^as (?:an?|the)\s+([^,]{2,60}?),?\s+I\s+(?:want|need|would like|wish)\s+(?:to be able\s+)?(to\s+)?(.+?)(?:,?\s+so that\b.*|,?\s+in order to\b.*)?$/i);
  if (story) {
    const role = story[1]!.trim();
    const goal = story[3]!.replace(/\bmy\b/gi, "their").replace(/\bI\b/g, "they").replace(/\bme\b/gi, "them");
    return clip(story[2] ? `Let ${theRole(role)} ${goal}` : `Give ${theRole(role)} ${goal}`, PLAN_LIMITS.title);
  }
  text = text.replace(/,?\s+(?:so that|in order to|so they can|so it can)\b.*$/i, "");
  const clause = text.match(/^((?:after|when|if|once|before|during|upon|whenever|while)\b[^,]{2,60}),\s*(\S.+)$/i);
  if (clause) return clip(`${requirementTitle(clause[2]!).replace(/…$/, "")} ${lowerFirst(clause[1]!)}`, PLAN_LIMITS.title);
  if (SYSTEM_SUBJECT.test(text) && MODAL_PHRASE.test(text.replace(SYSTEM_SUBJECT, ""))) {
    const rest = text.replace(SYSTEM_SUBJECT, "");
    const not = rest.match(MODAL_PHRASE)![2];
    const verbPhrase = rest.replace(MODAL_PHRASE, "");
    if (/^be\s+/i.test(verbPhrase)) return clip(`Make the system ${verbPhrase.replace(/^be\s+/i, "")}`, PLAN_LIMITS.title);
    return clip(not ? `Never ${verbPhrase}` : capitalize(verbPhrase), PLAN_LIMITS.title);
  }
  // "We would like a website where members can post …", "The committee wants to see …".
  const wish = text.match(/^(we|i|the [\w -]{2,30}?)\s+(?:would like|wants?|needs?|want|expects?)\s+(.+)$/i);
  if (wish) {
    const rest = wish[2]!;
    const where = rest.match(/^(?:an?|the|some)\s+[\w\s-]{2,40}?\s+(?:where|that|which|in which|so that)\s+(.+)$/i);
    if (where) return requirementTitle(where[1]!);
    if (/^to\s/i.test(rest)) return clip(/^(we|i)$/i.test(wish[1]!) ? capitalize(rest.slice(3)) : `Let ${lowerFirst(wish[1]!)} ${rest.slice(3)}`, PLAN_LIMITS.title);
  }
  // "Every Sunday evening the site should send …", "…, and the site will use that login".
  const systemLater = text.match(/^(.{0,120}?)(?:,?\s*(?:and|but)\s+)?\b(?:the\s+)?(?:system|site|website|app|application|platform|portal|service|tool)\s+(?:must|shall|should|will|can|needs? to|has to)\s+(?:be able to\s+)?(\w.+)$/i);
  if (systemLater && systemLater[1]!.trim()) {
    const lead = systemLater[1]!.trim().replace(/[,;]$/, "");
    const rest = systemLater[2]!;
    if (!/^be\s/i.test(rest) && lead.split(/\s+/).length <= 5 && !/[,;]/.test(lead)) return clip(`${capitalize(rest)} ${lowerFirst(lead)}`, PLAN_LIMITS.title);
    if (!/^be\s/i.test(rest)) return clip(capitalize(rest), PLAN_LIMITS.title);
  }
  // A long sentence whose first clause says it all ("X falls under the GDPR: a donor can …"): titled by that clause.
  const firstClause = text.match(/^([^:]{20,90}):\s+\S/);
  if (firstClause && text.length > 70 && firstClause[1]!.split(/\s+/).length >= 4) return requirementTitle(firstClause[1]!);
  const person = /\b(must|shall|should|will|can|may|needs? to|has to|have to|is required to|are required to)\b/i.test(text.split(" ").slice(0, 8).join(" ")) ? undefined : roleSubject(text);
  if (person && !MODAL_PHRASE.test(person[1])) {
    const [verb, ...rest] = person[1].split(" ");
    if (!/^(is|are|was|were|has|have|do|does|already|often|usually)$/i.test(verb!)) return clip(`Let ${lowerFirst(person[0])} ${baseVerb(verb!)} ${rest.join(" ")}`.trim(), PLAN_LIMITS.title);
  }
  if (SYSTEM_SUBJECT.test(text)) {
    const [verb, ...rest] = text.replace(SYSTEM_SUBJECT, "").split(" ");
    if (/^[a-z-]+s$/.test(verb!) && !/^(is|has|does|was)$/.test(verb!)) return clip(`${capitalize(baseVerb(verb!))} ${rest.join(" ")}`, PLAN_LIMITS.title);
  }
  const passive = text.match(/^(.{2,50}?)\s+(is|are)\s+(\w+(?:ed|en)|sent|kept|shown|paid|held|built|made|sold|told|read|set|put|run|shut|split|cut|spent|left|lost|found|bought|brought|caught|taught|won|dealt|meant|sent|felt|met|led|fed|spread|sunk|stuck|struck|hung|spun|swept|kept)\b\s*(.*)$/i);
  if (passive && !SYSTEM_SUBJECT.test(`${passive[1]} `)) return clip(`Ensure ${lowerFirst(passive[1]!)} ${passive[2]!.toLowerCase()} ${passive[3]} ${passive[4]}`.trim(), PLAN_LIMITS.title);
  const modal = text.match(/^(.{2,60}?)\s+(must|shall|should|will|can|may|needs? to|has to|have to|is required to|are required to)\s+(?:be able to\s+)?(not\s+)?(.+)$/i);
  if (modal && modal[1]!.split(/\s+/).length <= 6) {
    const subject = modal[1]!.replace(/^(?:the|an?|each|every|all|any)\s+/i, (m) => m.toLowerCase());
    const [, , , not, rest] = modal;
    const bare = subject.replace(/^(?:the|an?|each|every|all|any)\s+/i, "");
    if (isRole(bare)) {
      if (!/^be\s/i.test(rest!)) return clip(not ? `Stop ${lowerFirst(subject)} from ${ing(rest!)}` : `Let ${lowerFirst(subject)} ${rest}`, PLAN_LIMITS.title);
    }
    const plural = /s$/i.test(bare.split(" ").at(-1)!) && !/ss$/i.test(bare) && !/\b(status|data|this)$/i.test(bare);
    // An ability ("Treasurers can import …") is given to whoever has it.
    if (/^(can|may)$/i.test(modal[2]!) && !not && !/^be\s/i.test(rest!)) return clip(`Let ${lowerFirst(subject)} ${rest}`, PLAN_LIMITS.title);
    if (/^be\s/i.test(rest!)) {
      const complement = rest!.replace(/^be\s+/i, "");
      return clip(`Ensure ${lowerFirst(subject)} ${plural ? "are" : "is"} ${not ? "not " : ""}${complement}`, PLAN_LIMITS.title);
    }
    return clip(not ? `Ensure ${lowerFirst(subject)} ${plural ? "do" : "does"} not ${rest}` : `Make ${lowerFirst(subject)} ${rest}`, PLAN_LIMITS.title);
  }
  const role = text.match(/^(?:the\s+)?(\w+(?:\s\w+)?)\s+(lets?|allows?|enables?)\s+(.+?)\s+(?:to\s+)?(\w+.*)$/i);
  if (role && SYSTEM_SUBJECT.test(`${role[1]} `)) return clip(`Let ${role[3]} ${role[4]}`, PLAN_LIMITS.title);
  if (VERB_START.test(text)) return clip(capitalize(text), PLAN_LIMITS.title);
  // "A README explains how …": the thing to provide, and what it does.
  const thing = text.match(/^((?:a|an|the)\s+[\w-]+(?:\s[\w-]+){0,3}?)\s+(explains|shows|lists|describes|covers|tells|gives|says|holds|keeps|sends|lets|helps)\s+(.+)$/i);
  if (thing) return clip(`Provide ${lowerFirst(thing[1]!)} that ${thing[2]!.toLowerCase()} ${thing[3]}`, PLAN_LIMITS.title);
  if (/^(a|an|the)\s/i.test(text)) return clip(`Provide ${lowerFirst(text)}`, PLAN_LIMITS.title);
  const actorVerb = text.match(/^(?:the\s+)?([A-Za-z]+(?:\s[A-Za-z]+)?)\s+([a-z]+s)\s+(.+)$/);
  if (actorVerb && ROLE_WORDS.test(actorVerb[1]!)) return clip(`Let ${lowerFirst(actorVerb[1]!)} ${actorVerb[2]!.replace(/(?<=[^s])s$/, "").replace(/ie$/, "y")} ${actorVerb[3]}`, PLAN_LIMITS.title);
  // A sentence, not a feature's name (issue 38: "Support balances are read from …"): said as a goal to meet.
  if (CLAUSE.test(text)) return clip(`Make sure ${lowerFirst(text)}`, PLAN_LIMITS.title);
  return clip(`Support ${lowerFirst(text)}`, PLAN_LIMITS.title);
}

/** A finite verb: the text is a sentence about something, not the name of a feature. */
const CLAUSE = /\s(?:is|are|was|were|has|have|falls?|goes|stays?|gets?|appears?|applies|belongs?|contains?|includes?|lives?|runs?|works?|happens?|remains?|exists?|comes?|depends?|counts?|matches?|lasts?|needs?)\s/i;

function isRole(subject: string): boolean {
  const parts = subject.split(/\s*(?:,|\band\b|\bor\b)\s*/).filter(Boolean);
  return (
    parts.length > 0 &&
    parts.every((p) => {
      const bare = p.replace(/^(?:the|an?|each|every|all|any|other)\s+/i, "").toLowerCase();
      const one = bare.replace(/(?<=[^s])s$/, "");
      return ROLE_WORDS.test(bare) || /^(?:[\w-]+\s){0,2}(users?|staff|admins?|members?|customers?|managers?|nurses?|agents?|officers?|leads?|leaders?|engineers?|owners?|reps?)$/i.test(bare) || documentRoles.some((r) => r === bare || r === one || r.replace(/s$/, "") === one);
    })
  );
}

/** Subjects of one to three words that are people: "Front-desk staff see …" -> ["Front-desk staff", "see …"]. */
function roleSubject(text: string): [string, string] | undefined {
  const words = text.split(" ");
  for (let n = 3; n >= 1; n--) {
    const subject = words.slice(0, n).join(" ");
    // The word after a role is its verb: not an adjective or a noun of a longer subject ("Donor personal data …").
    const verb = words[n]!;
    const singular = !/s$/i.test(subject) || /ss$/i.test(subject);
    const verbLike = singular ? /[a-z]s$/.test(verb) : !/(al|ic|ous|ful|less|able|ible|ed|ing|ly|data)$/i.test(verb);
    if (words.length > n + 1 && isRole(subject) && /^[a-z]/.test(verb) && verbLike && !/^(must|shall|should|will|can|may|is|are|needs?|has|have|cannot)$/i.test(words[n + 1]!)) return [subject, words.slice(n).join(" ")];
  }
  return undefined;
}

function baseVerb(verb: string): string {
  if (/ies$/.test(verb)) return verb.replace(/ies$/, "y");
  if (/(sh|ch|x|ss|zz)es$/.test(verb)) return verb.slice(0, -2);
  if (/[^s]s$/.test(verb)) return verb.slice(0, -1);
  return verb;
}

function theRole(role: string): string {
  const r = role.replace(/^(the|an?)\s+/i, "");
  return /s$/.test(r) && !/ss$/.test(r) ? r : `the ${r}`;
}

function ing(phrase: string): string {
  const [verb, ...rest] = phrase.split(" ");
  const v = verb!.toLowerCase();
  const gerund = /e$/.test(v) && !/ee$/.test(v) ? `${v.slice(0, -1)}ing` : `${v}ing`;
  return [gerund, ...rest].join(" ");
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const lowerFirst = (s: string) => (/^[A-Z][a-z]*\b/.test(s) && !/^I\b/.test(s) && !/^[A-Z][a-z]+[A-Z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.(-]+$/, "")}…`;
}

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
function complexity(draft: Draft): { value: Complexity; reasons: string[] } {
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

// ---------- acceptance criteria, actors ----------

function attachAcceptance(drafts: Draft[], read: ReadDocument): void {
  if (!read.acceptance.length) return;
  const byId = new Map<string, Draft>();
  for (const d of drafts) for (const r of d.requirements) if (r.id) byId.set(canonicalId(r.id), d);
  const stemsOf = new Map(drafts.map((d) => [d, stems(`${d.title} ${d.requirements.map((r) => r.text).join(" ")}`)]));
  for (const { text, under } of read.acceptance) {
    const named = idsIn(text)
      .map((id) => byId.get(id))
      .filter(Boolean) as Draft[];
    if (named.length) {
      for (const d of new Set(named)) d.acceptance.push(text);
      continue;
    }
    const candidates = under ? drafts.filter((d) => d.requirements.some((r) => r.section === under || isUnder(r.section, under))) : drafts;
    const words = stems(text);
    let best: Draft | undefined;
    let bestScore = 0;
    for (const d of candidates.length ? candidates : drafts) {
      const score = overlap(words, stemsOf.get(d)!);
      if (score > bestScore) [best, bestScore] = [d, score];
    }
    if (!best && candidates.length) best = candidates[0];
    best?.acceptance.push(text);
  }
}

function isUnder(section: Section, ancestor: Section): boolean {
  for (let s: Section | undefined = section; s; s = s.parent) if (s === ancestor) return true;
  return false;
}

function actorsOf(draft: Draft, read: ReadDocument): string[] {
  const text = draft.requirements.map((r) => `${r.text} ${r.details.join(" ")}`).join(" ").toLowerCase();
  return read.actors
    .filter((a) => {
      const name = a.name.toLowerCase().replace(/s$/, "");
      return name.length >= 3 && new RegExp(`\\b${escapeRegExp(name)}`).test(text);
    })
    .map((a) => (a.about ? `${a.name} (${clip(a.about, 80)})` : a.name));
}

// ---------- order, dependencies, phases ----------

const INFRA = /\b(set ?up|infrastructure|ci\/cd|pipeline|hosting|deploy\w*|architecture|scaffold\w*|environments?|monitoring|logging|backups?)\b/i;
const AUTH = /\b(sign(?:s|ed)?[- ]?(?:in|up|on)|log(?:s|ged)?[- ]?in|login|authenticat\w*|sso|single sign-on|accounts?|registration|register|identity|oauth|entra|okta|saml|passwords?)\b/i;
const DATA_MODEL = /\b(data ?model|database|schema|data store)\b/i;
const IMPORT = /\b(import\w*|sync\w*|ingest\w*|migrat\w*|feeds?|load (?:the )?(?:existing|data))\b/i;
const REPORT = /\b(dashboards?|analytics|statistics|kpis?|insights|reporting|reports? (?:of|on|per|for|by|from)|(?:monthly|weekly|daily|annual|quarterly|usage|attendance|sales|financial|end-of-\w+) reports?|(?:produce|generate|create|run|print|export)s?\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,5}reports?)\b/i;
const PERSON = /\b(users?|members?|staff|admins?|administrators?|owners?|customers?|patients?|nurses?|doctors?|clinicians?|managers?|profiles?|accounts?|sign(?:ed)?[- ]in|log(?:ged)?[- ]in|their own|my|role|roles|permissions?|technicians?|dispatchers?|students?|teachers?|volunteers?|employees?|agents?|drivers?|riders?|residents?|tenants?|reviewers?)\b/i;

/** Documentation of the work (a README, a guide): written after what it documents, never needed by it. */
const DOCS = /\b(readme|documentation|docs|user guide|manual|tutorial|document the)\b/i;

/** Who does a requirement ("Readers sign in …" -> "reader"), when its subject is a person; lower-case, singular. */
function actorOf(draft: Draft): string | undefined {
  const text = draft.requirements[0]?.text.replace(/^(?:the|an?|each|every|all|any)\s+/i, "") ?? "";
  const words = text.split(/\s+/);
  for (let n = 3; n >= 1; n--) {
    const subject = words.slice(0, n).join(" ");
    if (words.length > n && isRole(subject)) return subject.toLowerCase().replace(/(?<=[^s])s$/, "");
  }
  return undefined;
}
/** Actors that stand for everyone who signs in. */
const ANYONE = /^(user|member|person|people|everyone|account holder)$/;

function tierOf(draft: Draft): number {
  const head = draft.requirements[0] ? `${draft.title} ${draft.requirements[0].text}` : draft.title;
  const title = draft.title;
  if (DOCS.test(title)) return 5;
  if (INFRA.test(title) && !REPORT.test(title)) return 0;
  if (DATA_MODEL.test(title)) return 1;
  if (AUTH.test(title) || (AUTH.test(head) && /\b(sign|log)\b/i.test(head) && !REPORT.test(title))) return 1;
  if (IMPORT.test(title)) return 2;
  if (REPORT.test(title)) return 4;
  return 3;
}

function orderAndLink(drafts: Draft[], read: ReadDocument, fallbackText?: string): PlanTask[] {
  const n = drafts.length;
  const texts = drafts.map((d) => `${d.title} ${d.requirements.map((r) => `${r.text} ${r.details.join(" ")}`).join(" ")}`);
  drafts.forEach((d) => (d.tier = tierOf(d)));
  // Milestones: a task belongs to the first milestone naming its identifier, else the one sharing most of its words.
  const milestoneStems = read.milestones.map((m) => stems(`${m.name} ${m.text}`));
  const milestoneIds = read.milestones.map((m) => new Set(idsIn(`${m.name} ${m.text}`)));
  const df = new Map<string, number>();
  const bodyStems = texts.map((t) => stems(t));
  for (const set of bodyStems) for (const s of set) df.set(s, (df.get(s) ?? 0) + 1);
  const rare = (s: string) => (df.get(s) ?? 0) <= Math.max(2, Math.ceil(n * 0.34));
  const assigned = drafts.map((d, i) => {
    if (!read.milestones.length) return -1;
    const ids = d.requirements.map((r) => r.id && canonicalId(r.id.replace(/[a-d]$/, ""))).filter(Boolean) as string[];
    const byId = milestoneIds.findIndex((set) => ids.some((id) => set.has(id)));
    if (byId >= 0) return byId;
    let best = -1;
    let bestScore = 0;
    const titleStems = stems(d.title);
    milestoneStems.forEach((ms, m) => {
      const score = [...titleStems].filter((s) => ms.has(s) && rare(s)).length * 2 + [...bodyStems[i]!].filter((s) => ms.has(s) && rare(s)).length;
      if (score > bestScore) [best, bestScore] = [m, score];
    });
    return bestScore >= 2 ? best : -1;
  });

  // Edges a -> b (a needs b), with a weight.
  const edges = new Map<number, Map<number, number>>();
  const add = (a: number, b: number, w: number) => {
    if (a === b) return;
    const m = edges.get(a) ?? new Map<number, number>();
    m.set(b, (m.get(b) ?? 0) + w);
    edges.set(a, m);
  };
  const idOwner = new Map<string, number>();
  drafts.forEach((d, i) => d.requirements.forEach((r) => r.id && idOwner.set(canonicalId(r.id), i)));
  const primaryAuth = drafts.findIndex((d) => d.tier === 1 && AUTH.test(d.title));
  const dataModel = drafts.findIndex((d) => DATA_MODEL.test(d.title));
  const infra = drafts.findIndex((d) => d.tier === 0);
  const titleStems = drafts.map((d) => [...stems(d.title)].filter(rare));
  // What an import brings in ("Import appointments from MedDesk" -> appointments): whatever uses it comes after.
  // Only what follows the verb: the person who imports is no object (issue 38: a dark theme for treasurers "needed" their import).
  const importedObjects = drafts.map((d) => {
    if (d.tier !== 2) return [];
    const object = d.title.replace(/^.*?\b(?:import\w*|sync\w*|ingest\w*|migrat\w*|load)\b/i, "").replace(/\b(from|with|into|every|each|as)\b.*$/i, "");
    return [...stems(object)].filter((s) => !/^(import|sync|ingest|migrat|existi|open|old)/.test(s));
  });
  const explicit = /\b(depends on|requires|after|builds on|once|uses|using|based on|from the)\b/i;
  // Who signs in (issue 38: every task naming any person depended on the readers' sign-in, an SMS to customers too).
  const authActor = primaryAuth >= 0 ? actorOf(drafts[primaryAuth]!) : undefined;
  const signedIn = /\b(sign(?:ed)?[- ]in|log(?:ged)?[- ]in|their (?:own|account|profile)|my|profiles?|permissions?|roles?)\b/i;
  const needsSignIn = (d: Draft, text: string) => {
    const actor = actorOf(d);
    // Who signs in is named: the tasks that person does, or that say they are signed in.
    if (authActor && !ANYONE.test(authActor)) return actor === authActor || (actor !== undefined && ANYONE.test(actor)) || signedIn.test(text);
    return PERSON.test(text) || actor !== undefined;
  };
  drafts.forEach((d, a) => {
    const saysAfter = explicit.test(texts[a]!);
    const own = new Set(d.requirements.map((r) => r.id && canonicalId(r.id)).filter(Boolean));
    for (const id of idsIn(texts[a]!.replace(d.title, ""))) {
      const b = idOwner.get(id);
      if (b !== undefined && !own.has(id)) add(a, b, 10);
    }
    if (infra >= 0 && a !== infra) add(a, infra, 2);
    if (primaryAuth >= 0 && a !== primaryAuth && d.tier >= 2 && needsSignIn(d, texts[a]!)) add(a, primaryAuth, 3);
    if (dataModel >= 0 && a !== dataModel && d.tier >= 2 && /\b(stores?|stored|saves?|saved|records?|persist\w*|history|keeps?)\b/i.test(texts[a]!)) add(a, dataModel, 3);
    drafts.forEach((e, b) => {
      if (a === b) return;
      // Documentation comes after what it documents (issue 38: "dark mode" depended on the README task).
      if (e.tier === 5 && d.tier < 5) return;
      const shared = titleStems[b]!.filter((s) => bodyStems[a]!.has(s)).length;
      if (shared === 0 && e.tier !== 2 && d.tier !== 4) return;
      let objectShared = 0;
      for (const s of bodyStems[b]!) if ((df.get(s) ?? 0) <= 3 && bodyStems[a]!.has(s)) objectShared++;
      // Data import before what uses the imported data; reports after what produces theirs.
      if (e.tier === 2 && d.tier >= 3 && (shared > 0 || objectShared >= 2 || importedObjects[b]!.some((o) => bodyStems[a]!.has(o)))) add(a, b, 4);
      if (d.tier === 4 && e.tier === 3 && (shared > 0 || objectShared >= 2)) add(a, b, 2);
      // A report is made of the data that comes in: after the imports.
      if (d.tier === 4 && e.tier === 2) add(a, b, 2);
      if (e.tier < d.tier && e.tier >= 1 && shared > 0) add(a, b, 1);
      if (shared > 0 && saysAfter && b < a) add(a, b, 1 + shared);
      if (shared >= 2 && b < a) add(a, b, shared);
    });
  });

  // Phases: a task is in its milestone, or later if what it needs is later.
  const milestone = assigned.map((m) => Math.max(0, m));
  // Order: the work's own order (foundations first, reports last, then the document's order), within the milestones.
  const order: number[] = [];
  const placed = new Set<number>();
  const strong = (a: number) => [...(edges.get(a) ?? [])].filter(([, w]) => w >= 2).map(([b]) => b);
  const key = (i: number) => [milestone[i]!, drafts[i]!.tier, drafts[i]!.order];
  const less = (x: number, y: number) => {
    const [a, b] = [key(x), key(y)];
    for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return a[k]! < b[k]!;
    return x < y;
  };
  // Greedy topological order over strong edges that do not go against the milestones (a cycle falls back to the key).
  while (order.length < n) {
    let pick = -1;
    for (let i = 0; i < n; i++) {
      if (placed.has(i)) continue;
      const ready = strong(i).every((b) => placed.has(b) || milestone[b]! > milestone[i]!);
      if (ready && (pick < 0 || less(i, pick))) pick = i;
    }
    if (pick < 0) for (let i = 0; i < n; i++) if (!placed.has(i) && (pick < 0 || less(i, pick))) pick = i;
    placed.add(pick);
    order.push(pick);
  }
  const position = new Map(order.map((d, p) => [d, p]));
  return order.map((d, p) => {
    const draft = drafts[d]!;
    const dependencies = [...(edges.get(d) ?? [])]
      .filter(([b]) => position.get(b)! < p)
      .sort((x, y) => y[1] - x[1] || position.get(x[0])! - position.get(y[0])!)
      .slice(0, 4)
      .map(([b]) => position.get(b)! + 1)
      .sort((x, y) => x - y);
    const { value, reasons } = complexity(draft);
    const phaseName = read.milestones.length ? clip(read.milestones[milestone[d]!]!.name, 80) : undefined;
    return {
      id: p + 1,
      title: draft.title,
      description: describe(draft, read, fallbackText),
      estimatedComplexity: value,
      complexityReasons: reasons,
      ...(phaseName ? { phase: phaseName } : {}),
      dependencies,
    };
  });
}

// ---------- descriptions ----------

function describe(draft: Draft, read: ReadDocument, fallbackText?: string): string {
  if (fallbackText !== undefined) return clip(`The document names no requirements to plan from; scope it first.\n\n${fallbackText.replace(/\s+/g, " ").trim()}`, PLAN_LIMITS.description);
  const actors = actorsOf(draft, read);
  const tail: string[] = [];
  if (actors.length) tail.push(`Who: ${actors.join("; ")}`);
  const acceptance = [...new Set(draft.acceptance)];
  if (acceptance.length) tail.push(`Acceptance criteria:\n${acceptance.map((a) => `- ${a}`).join("\n")}`);
  const sectionName = (draft.section ?? draft.requirements[0]?.section)?.title.replace(/\s*\(.*?\)\s*$/, "");
  const where = sectionName ? `From "${sectionName}".` : "";
  const line = (r: Requirement, budget: number) => {
    const head = r.id ? `${r.id}: ` : "";
    const body = [r.text, ...r.details].join(" ");
    return `- ${head}${clip(body, Math.max(60, budget - head.length))}`;
  };
  const render = (budget: number) => {
    const reqs = draft.requirements.length === 1 ? [`Requirement:\n${line(draft.requirements[0]!, budget)}`] : [`Requirements:\n${draft.requirements.map((r) => line(r, budget)).join("\n")}`];
    return [where, ...reqs, ...tail].filter(Boolean).join("\n\n");
  };
  const fixed = where.length + tail.join("\n\n").length + 40;
  let budget = Math.min(1200, Math.max(60, Math.floor((PLAN_LIMITS.description - fixed) / Math.max(1, draft.requirements.length)) - 12));
  let out = render(budget);
  while (out.length > PLAN_LIMITS.description && budget > 60) {
    budget = Math.max(60, Math.floor(budget * 0.7));
    out = render(budget);
  }
  if (out.length > PLAN_LIMITS.description) {
    // Keep every requirement; the criteria give way.
    const reqs = render(budget).split("\n\nWho:")[0]!.split("\n\nAcceptance criteria:")[0]!;
    out = clip(reqs, PLAN_LIMITS.description);
  }
  return out;
}

// ---------- words ----------

const STOP = new Set(
  "the a an and or of to for in on at by with from as is are be been being it its this that these those must shall should will can may need needs has have had not no all any each every other such than then there their them they we our you your user users system application app platform service feature features page pages data able when where which who what how also into out over under more most some only own same so very just support implement allow provide make new use using used based via per within without let ensure".split(
    " ",
  ),
);

function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9-]+/g) ?? []) {
    if (word.length < 4 || STOP.has(word)) continue;
    out.add(word.slice(0, 6));
  }
  return out;
}

function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// ---------- name and summary ----------

/** The document's whole title: its first heading or title line, else a "Project:" line, else the file name. */
function findProjectName(document: { fileName: string; text: string }, read: ReadDocument): string {
  if (read.title && read.title.length >= 2) return clip(read.title.replace(/^#+\s*/, "").trim(), PLAN_LIMITS.projectName);
  const labelled = document.text.match(/^\s*(?:project(?: name)?|product(?: name)?|title|name)\s*:\s*(.{2,100})$/im);
  if (labelled) return clip(labelled[1]!.replace(/[*_`#]/g, "").trim(), PLAN_LIMITS.projectName);
  const firstLine = document.text.split("\n").find((l) => l.trim().length > 1)?.trim() ?? "";
  if (firstLine && firstLine.length <= 80 && !/[.!?]$/.test(firstLine)) return clip(firstLine.replace(/^#+\s*/, ""), PLAN_LIMITS.projectName);
  const base = document.fileName.replace(/\.[^.]+$/, "").replace(/[-_]+/g, " ").trim();
  return clip(base ? capitalize(base) : "Untitled project", PLAN_LIMITS.projectName);
}

function summarize(read: ReadDocument, tasks: PlanTask[], drafts: Draft[]): string {
  // The goals are said on their own (issue 38: a Goals section was ignored); the opening is what introduces the project.
  const goalSentences = new Set(read.goals);
  const opening = (read.context.find((p) => p.length > 40 && !sentences(p).every((s) => goalSentences.has(s))) ?? read.root.children[0]?.paragraphs.find((p) => p.length > 40) ?? "").trim();
  const goals = read.goals.length ? clip(` Goals: ${read.goals.map((g) => g.replace(/[.;]+$/, "")).join("; ")}.`, 400) : "";
  const count = (c: Complexity) => tasks.filter((t) => t.estimatedComplexity === c).length;
  const requirements = drafts.reduce((s, d) => s + d.requirements.length, 0);
  const phaseCount = read.milestones.length ? new Set(tasks.map((t) => t.phase)).size : layers(tasks);
  const shape =
    `${tasks.length} task${tasks.length === 1 ? "" : "s"}` +
    (requirements ? ` from ${requirements} requirement${requirements === 1 ? "" : "s"}` : "") +
    ` in ${phaseCount} phase${phaseCount === 1 ? "" : "s"}${read.milestones.length ? " (the document's milestones)" : ""}` +
    ` (${count("High")} high, ${count("Medium")} medium, ${count("Low")} low complexity).`;
  const out = read.outOfScope.length ? ` Out of scope, not planned: ${read.outOfScope.map((o) => o.replace(/[.;]+$/, "")).join("; ")}.` : "";
  const outClipped = clip(out, 500);
  const room = PLAN_LIMITS.summary - shape.length - outClipped.length - goals.length - 2;
  const lead = opening ? clip(sentences(opening).slice(0, 3).join(" "), Math.max(0, room)) : "";
  return `${lead ? `${lead}` : ""}${goals} ${capitalize(shape)}${outClipped}`.trim();
}

function layers(tasks: PlanTask[]): number {
  const phase = new Map<number, number>();
  for (const t of tasks) phase.set(t.id, 1 + Math.max(0, ...t.dependencies.map((d) => phase.get(d) ?? 0)));
  return Math.max(1, ...phase.values());
}
