/**
 * The built-in planner's task titles: an imperative title from a requirement's sentence ("Readers sign in with
 * email" -> "Let readers sign in with email"), with the document's own roles as subjects. docs/ai-scoping.md.
 */
import { PLAN_LIMITS } from "./plan.ts";
import { sentences } from "./document-text.ts";

// ---------- titles ----------

/** The roles the document being planned names (its Users/Roles section): subjects that are people. */
let documentRoles: string[] = [];

/** Set for the length of one plan (planDocument), emptied after it. */
export function setDocumentRoles(roles: string[]): void {
  documentRoles = roles;
}

export const VERB_START =
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

export function isRole(subject: string): boolean {
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

export const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
export const lowerFirst = (s: string) => (/^[A-Z][a-z]*\b/.test(s) && !/^I\b/.test(s) && !/^[A-Z][a-z]+[A-Z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.(-]+$/, "")}…`;
}
