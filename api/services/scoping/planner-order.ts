/**
 * The built-in planner's order: each task's tier (set-up, data model and sign-in first, reports last), its
 * dependencies and phases (the document's milestones when it has them), and its description.
 */
import type { PlanTask } from "../../../lib/scoping.ts";
import { PLAN_LIMITS } from "./plan.ts";
import { canonicalId, idsIn } from "./document-text.ts";
import { type ReadDocument, type Requirement } from "./requirements-reader.ts";
import { actorsOf } from "./planner-acceptance.ts";
import { complexity } from "./planner-complexity.ts";
import type { Draft } from "./planner-draft.ts";
import { clip, isRole } from "./planner-titles.ts";
import { stems } from "./planner-words.ts";

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

export function orderAndLink(drafts: Draft[], read: ReadDocument, fallbackText?: string): PlanTask[] {
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
