import type { Complexity, Plan, PlanTask } from "../../../lib/scoping.ts";
import { PLAN_LIMITS, type Planner, type ScopingDocument } from "./plan.ts";

/**
 * The embedded default's planner: no network, no model. It reads the
 * document's structure (headings, lists, "must/should/shall" requirements,
 * acceptance criteria) into tasks, estimates complexity from how much each
 * asks for and how risky its words are, and finds dependencies where a task
 * speaks of what an earlier one builds. The same text always gives the same
 * plan. docs/ai-scoping.md describes the rules.
 */
export const builtinPlanner: Planner = {
  name: "builtin",
  plan: async (document) => planDocument(document),
};

interface Section {
  title: string;
  level: number;
  paragraphs: string[];
  items: string[];
  children: Section[];
  parent?: Section;
  /** The document's own title (the one top-level heading): context, not a task. */
  isTitle?: boolean;
}

type Kind = "context" | "skip" | "acceptance" | "feature";

const CONTEXT = /\b(overview|introduction|background|purpose|summary|about|context|problem|vision|goals?|objectives?|motivation|executive)\b/i;
const SKIP =
  /\b(glossary|definitions?|references?|appendix|revision|history|table of contents|contents|contacts?|stakeholders?|team|out of scope|non-goals?|assumptions?|open questions|risks?|budget|timeline|milestones?|approvals?|sign-?off|document control)\b/i;
const ACCEPTANCE = /\b(acceptance|definition of done|success criteria|done when)\b/i;
const REQUIREMENT = /\b(must|shall|should|will need to|needs? to|has to|have to|is required to|are required to|required)\b/i;
const MUST = /\b(must|shall|needs? to|has to|have to|required)\b/i;
const RISKY =
  /\b(integrat\w*|third[- ]party|payments?|billing|security|secure|encrypt\w*|real[- ]?time|sync\w*|migrat\w*|scal\w*|performance|concurren\w*|blockchain|smart contracts?|oauth|machine learning|ai|offline|notifications?|search|analytics|compliance|gdpr|audit|multi[- ]tenant|localization|i18n|upload|webhooks?|api)\b/gi;
const VERBS =
  /^(add|allow|build|create|design|develop|display|enable|ensure|export|implement|import|integrate|let|make|migrate|provide|send|set up|setup|show|store|support|track|update|write|automate|configure|deploy|document|handle|manage|notify|publish|record|remove|replace|report|validate|verify|test)\b/i;
const STOP = new Set(
  "the a an and or of to for in on at by with from as is are be been being it its this that these those must shall should will can may need needs has have had not no all any each every other such than then there their them they we our you your user users system application app platform service feature features page pages data able when where which who what how also into out over under more most some only own same so very just support implement allow provide make new use using used based via per within without".split(
    " ",
  ),
);

export function planDocument(document: ScopingDocument): Plan {
  const root = parseSections(document.text);
  const sections = flatten(root);
  const projectName = findProjectName(document, sections);
  const features = featureSections(root);
  const acceptance = sections.filter((s) => kindOf(s) === "acceptance");
  let drafts = features.length > 0 ? features.flatMap(draftsOfSection) : flatRequirementDrafts(sections);
  if (drafts.length > PLAN_LIMITS.tasks) drafts = collapse(root, drafts);
  attachAcceptance(drafts, acceptance);
  if (drafts.length === 0) drafts = [fallbackDraft(document, sections, projectName)];
  const tasks = finish(drafts.slice(0, PLAN_LIMITS.tasks));
  return { projectName, summary: summarize(sections, tasks, drafts.length > PLAN_LIMITS.tasks), tasks };
}

// ---------- parsing ----------

const HASH_HEADING = /^(#{1,6})\s+(.+?)\s*#*$/;
const NUMBERED_HEADING = /^(\d+(?:\.\d+)+)\.?\s+(\S.{0,100})$/;
const NUMBERED_TOP = /^(\d+)[.)]\s+(\S.{0,80})$/;
const LIST_ITEM = /^\s*(?:[-*+•◦▪‣]|\d+[.)]|[a-zA-Z][.)]|\(\w{1,3}\))\s+(.+)$/;

function normalize(text: string): string[] {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, "$1")
    .replace(/\t/g, "  ")
    .replace(/[\u00a0\u2000-\u200b]/g, " ")
    .split("\n")
    .map((line) => line.replace(/\s+$/, ""));
}

function isTitleLike(line: string): boolean {
  const words = line.trim().split(/\s+/);
  return (
    words.length >= 1 &&
    words.length <= 8 &&
    /^[A-Z0-9]/.test(line.trim()) &&
    !/[.,;:!?]$/.test(line.trim()) &&
    !REQUIREMENT.test(line) &&
    /[A-Za-z]{2}/.test(line)
  );
}

function parseSections(text: string): Section {
  const lines = normalize(text);
  const root: Section = { title: "", level: 0, paragraphs: [], items: [], children: [] };
  let current = root;
  let paragraph: string[] = [];
  let item: string | undefined;
  const flush = () => {
    if (paragraph.length) current.paragraphs.push(paragraph.join(" ").replace(/\s+/g, " ").trim());
    if (item !== undefined) current.items.push(item.replace(/\s+/g, " ").trim());
    paragraph = [];
    item = undefined;
  };
  let lastWasHeading = false;
  const open = (title: string, level: number) => {
    flush();
    lastWasHeading = true;
    let parent = current;
    while (parent !== root && parent.level >= level) parent = parent.parent!;
    const section: Section = { title: cleanHeading(title), level, paragraphs: [], items: [], children: [], parent };
    parent.children.push(section);
    current = section;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const next = lines[i + 1]?.trim() ?? "";
    const previousBlank = i === 0 || lines[i - 1]!.trim() === "";
    const headingBefore = lastWasHeading;
    lastWasHeading = false;
    if (trimmed === "" || /^(-{3,}|\*{3,}|_{3,})$/.test(trimmed)) {
      flush();
      continue;
    }
    let m: RegExpMatchArray | null;
    if ((m = trimmed.match(HASH_HEADING))) {
      open(m[2]!, m[1]!.length);
      continue;
    }
    if (/^(=+|-+)$/.test(next) && next.length >= 3 && isTitleLike(trimmed)) {
      open(trimmed, next.startsWith("=") ? 1 : 2);
      i++;
      continue;
    }
    if ((m = trimmed.match(NUMBERED_HEADING)) && isTitleLike(m[2]!)) {
      open(m[2]!, 1 + m[1]!.split(".").length);
      continue;
    }
    if ((m = trimmed.match(NUMBERED_TOP)) && isTitleLike(m[2]!) && previousBlank && (next === "" || !LIST_ITEM.test(next) || !NUMBERED_TOP.test(next))) {
      if (m[2]!.split(/\s+/).length <= 6) {
        open(m[2]!, 2);
        continue;
      }
    }
    // A short title-like line standing alone (PDF and plain text carry no heading marks; PDF text has no blank lines either).
    const previous = lines[i - 1]?.trim() ?? "";
    const afterBreak = previousBlank || /[.!?:]$/.test(previous) || headingBefore || (item !== undefined && !/[,;]$/.test(previous));
    const beforeContent = next === "" || LIST_ITEM.test(lines[i + 1] ?? "") || /^[A-Z"“]/.test(next);
    if (afterBreak && isTitleLike(trimmed) && !LIST_ITEM.test(line) && beforeContent && trimmed.length <= 60) {
      open(trimmed, trimmed === trimmed.toUpperCase() ? 2 : 3);
      continue;
    }
    if ((m = line.match(LIST_ITEM))) {
      flush();
      item = m[1]!;
      continue;
    }
    if (item !== undefined && (/^\s{2,}\S/.test(line) || /^[a-z0-9(]/.test(trimmed))) {
      item += ` ${trimmed}`;
      continue;
    }
    if (item !== undefined) flush();
    paragraph.push(trimmed);
  }
  flush();
  if (root.children.length === 1) root.children[0]!.isTitle = true;
  return root;
}

function cleanHeading(title: string): string {
  return title
    .replace(/[*_`]/g, "")
    .replace(/^(\d+(\.\d+)*\.?|[A-Z]{1,4}-\d+:?|(feature|epic|story|section|module|requirement)\s*\d*\s*[:.-])\s*/i, "")
    .replace(/\s+/g, " ")
    .trim();
}

function flatten(section: Section): Section[] {
  return [section, ...section.children.flatMap(flatten)];
}

function kindOf(section: Section): Kind {
  if (section.level === 0 || section.isTitle) return "context";
  if (ACCEPTANCE.test(section.title)) return "acceptance";
  if (SKIP.test(section.title)) return "skip";
  if (CONTEXT.test(section.title) && !REQUIREMENT.test(section.items.join(" "))) return "context";
  return "feature";
}

const hasContent = (s: Section) => s.items.length > 0 || s.paragraphs.some((p) => p.length > 0);

/** Feature sections that become tasks: leaves, and parents that say something of their own. */
function featureSections(root: Section): Section[] {
  const out: Section[] = [];
  const visit = (section: Section) => {
    const kind = kindOf(section);
    if (kind === "skip" || kind === "acceptance") return;
    const featureChildren = section.children.filter((c) => kindOf(c) === "feature" && flatten(c).some(hasContent));
    const isTop = kind === "context" && section.level <= 1;
    if (kind === "feature" && hasContent(section) && (featureChildren.length === 0 || requirementsOf(section).length > 0)) out.push(section);
    if (kind === "feature" && featureChildren.length === 0 && !hasContent(section) && section.children.length === 0) return;
    if (kind === "feature" || isTop || kind === "context") section.children.forEach(visit);
  };
  visit(root);
  return out;
}

// ---------- drafts ----------

interface Draft {
  title: string;
  context?: string;
  requirements: string[];
  acceptance: string[];
  section?: Section;
  /** Index of a draft this one continues (a long section split in parts) or belongs under. */
  follows?: Draft;
}

function requirementsOf(section: Section): string[] {
  const fromItems = section.items;
  const fromParagraphs = section.paragraphs.flatMap(sentences).filter((s) => REQUIREMENT.test(s));
  return unique([...fromItems, ...fromParagraphs]);
}

function sentences(paragraph: string): string[] {
  return paragraph
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}

const PART_SIZE = 8;

function draftsOfSection(section: Section): Draft[] {
  const requirements = requirementsOf(section);
  const context = section.paragraphs.find((p) => !REQUIREMENT.test(p) && p.length > 20);
  const title = taskTitle(section.title, requirements);
  const acceptance = section.children.filter((c) => kindOf(c) === "acceptance").flatMap((c) => [...c.items, ...c.paragraphs.flatMap(sentences)]);
  const byPriority = [...requirements.filter((r) => MUST.test(r)), ...requirements.filter((r) => !MUST.test(r))];
  if (byPriority.length <= PART_SIZE * 1.5) return [{ title, context, requirements: byPriority, acceptance, section }];
  const parts = Math.ceil(byPriority.length / PART_SIZE);
  const drafts: Draft[] = [];
  for (let p = 0; p < parts; p++) {
    drafts.push({
      title: clip(`${title} (part ${p + 1} of ${parts})`, PLAN_LIMITS.title),
      context,
      requirements: byPriority.slice(p * PART_SIZE, (p + 1) * PART_SIZE),
      acceptance: p === parts - 1 ? acceptance : [],
      section,
      follows: drafts[p - 1],
    });
  }
  return drafts;
}

/** A document with no usable headings: each requirement is a task. */
function flatRequirementDrafts(sections: Section[]): Draft[] {
  const requirements = unique(sections.filter((s) => kindOf(s) !== "skip" && kindOf(s) !== "acceptance").flatMap(requirementsOf));
  return requirements.map((r) => ({ title: requirementTitle(r), requirements: [r], acceptance: [] }));
}

/** Too many sections: one task per top-level section instead. */
function collapse(root: Section, drafts: Draft[]): Draft[] {
  const tops = new Map<Section, Draft[]>();
  for (const draft of drafts) {
    let top = draft.section;
    while (top?.parent && top.parent.level > 0 && kindOf(top.parent) === "feature") top = top.parent;
    const key = top ?? root;
    tops.set(key, [...(tops.get(key) ?? []), draft]);
  }
  if (tops.size >= drafts.length) return drafts;
  return [...tops].map(([top, group]) =>
    group.length === 1
      ? group[0]!
      : {
          title: taskTitle(top.title || group[0]!.title, []),
          context: top.paragraphs[0] ?? group[0]!.context,
          requirements: group.flatMap((d) => d.requirements.map((r) => (d.section && d.section !== top ? `${d.section.title}: ${r}` : r))),
          acceptance: group.flatMap((d) => d.acceptance),
          section: top,
        },
  );
}

/** Acceptance criteria of their own section go to the task they speak of most, else to every task of their parent. */
function attachAcceptance(drafts: Draft[], sections: Section[]): void {
  for (const section of sections) {
    const criteria = [...section.items, ...section.paragraphs.flatMap(sentences)];
    const owner = drafts.find((d) => d.section && section.parent === d.section);
    if (owner) continue; // already taken with its section
    for (const criterion of criteria) {
      const words = stems(criterion);
      let best: Draft | undefined;
      let bestScore = 0;
      for (const draft of drafts) {
        const score = overlap(words, stems(`${draft.title} ${draft.requirements.join(" ")}`));
        if (score > bestScore) [best, bestScore] = [draft, score];
      }
      if (best) best.acceptance.push(criterion);
    }
  }
}

function fallbackDraft(document: ScopingDocument, sections: Section[], projectName: string): Draft {
  const text = sections.flatMap((s) => [...s.paragraphs, ...s.items]).join(" ");
  return {
    title: clip(`Scope and build ${projectName}`, PLAN_LIMITS.title),
    context: clip(text || document.fileName, 600),
    requirements: [],
    acceptance: [],
  };
}

// ---------- titles, text ----------

const ROLE_SUBJECT = /^(?:the\s+|an?\s+|each\s+|every\s+)?(users?|admins?|administrators?|customers?|visitors?|members?|managers?|pool managers?|contributors?|maintainers?|owners?|buyers?|sellers?|operators?|developers?|students?|teachers?|patients?|staff|guests?)\s+/i;
const MODAL = /^(?:must|shall|should|will|needs? to|has to|have to|can|may|is required to|are required to)\s+(?:be able to\s+)?/i;

export function requirementTitle(requirement: string): string {
  let text = requirement.replace(/\s+/g, " ").trim().replace(/[.;:]+$/, "");
  const role = text.match(ROLE_SUBJECT);
  if (role) {
    const rest = text.slice(role[0].length);
    if (MODAL.test(rest)) return clip(`${capitalize(role[0].trim().replace(/^(the|an?|each|every)\s+/i, ""))} can ${rest.replace(MODAL, "")}`, PLAN_LIMITS.title);
  }
  text = text.replace(/^(?:the\s+)?(?:system|application|app|platform|service|api|software|product|server|website|site|tool)\s+/i, "");
  if (MODAL.test(text)) text = text.replace(MODAL, "");
  return clip(capitalize(text), PLAN_LIMITS.title);
}

function taskTitle(heading: string, requirements: string[]): string {
  const text = heading.replace(/[.:]+$/, "").trim();
  if (!text) return requirements[0] ? requirementTitle(requirements[0]) : "Untitled task";
  if (VERBS.test(text)) return clip(capitalize(text), PLAN_LIMITS.title);
  const phrase = text
    .split(" ")
    .map((word) => (/^[A-Z][a-z-]+$/.test(word) ? word.toLowerCase() : word))
    .join(" ");
  return clip(/\brequirements?$/i.test(phrase) ? `Meet the ${phrase}` : `Implement ${phrase}`, PLAN_LIMITS.title);
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, "")}…`;
}

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

// ---------- finishing: complexity, dependencies, descriptions ----------

function describe(draft: Draft): string {
  const parts: string[] = [];
  if (draft.context) parts.push(clip(draft.context, 500));
  if (draft.requirements.length) parts.push(`Requirements:\n${draft.requirements.map((r) => `- ${r}`).join("\n")}`);
  if (draft.acceptance.length) parts.push(`Acceptance criteria:\n${unique(draft.acceptance).map((r) => `- ${r}`).join("\n")}`);
  if (!parts.length) parts.push(`Build ${draft.title.replace(/^Implement /, "")} as the document describes.`);
  return clip(parts.join("\n\n"), PLAN_LIMITS.description);
}

function complexityOf(draft: Draft): Complexity {
  const text = `${draft.title} ${draft.context ?? ""} ${draft.requirements.join(" ")} ${draft.acceptance.join(" ")}`;
  const musts = draft.requirements.filter((r) => MUST.test(r)).length;
  const others = draft.requirements.length - musts;
  const risky = new Set((text.match(RISKY) ?? []).map((w) => w.toLowerCase().slice(0, 6))).size;
  const score = musts + others * 0.5 + draft.acceptance.length * 0.25 + Math.min(3, risky) * 1.5 + text.length / 800;
  return score < 3 ? "Low" : score < 7 ? "Medium" : "High";
}

function finish(drafts: Draft[]): PlanTask[] {
  const titleStems = drafts.map((d) => stems(d.title.replace(/^Implement /, "").replace(/\(part \d+ of \d+\)/, "")));
  const bodyStems = drafts.map((d) => stems(`${d.title} ${d.context ?? ""} ${d.requirements.join(" ")} ${d.acceptance.join(" ")}`));
  const documentFrequency = new Map<string, number>();
  for (const set of bodyStems) for (const s of set) documentFrequency.set(s, (documentFrequency.get(s) ?? 0) + 1);
  const common = Math.max(2, Math.ceil(drafts.length * 0.34));
  return drafts.map((draft, index) => {
    const scores = new Map<number, number>();
    const add = (id: number, score: number) => scores.set(id, (scores.get(id) ?? 0) + score);
    if (draft.follows) add(drafts.indexOf(draft.follows) + 1, 100);
    const parentSection = draft.section?.parent;
    drafts.forEach((earlier, j) => {
      if (j >= index) return;
      if (parentSection && earlier.section === parentSection) add(j + 1, 50);
      const distinctive = [...titleStems[j]!].filter((s) => (documentFrequency.get(s) ?? 0) <= common);
      const mentions = distinctive.filter((s) => bodyStems[index]!.has(s)).length;
      const explicit = new RegExp(`\\b(depends on|requires|after|builds on|once)\\b[^.]*\\b(${[...titleStems[j]!].map(escapeRegExp).join("|") || "\\b\\B"})`, "i");
      if (explicit.test(`${draft.requirements.join(" ")} ${draft.context ?? ""}`)) add(j + 1, 20);
      if (mentions > 0) add(j + 1, mentions * 2);
      const foundation = FOUNDATIONS.find((f) => f.title.test(earlier.title));
      if (foundation && foundation.mentions.test(`${draft.requirements.join(" ")} ${draft.context ?? ""}`)) add(j + 1, 3);
    });
    const dependencies = [...scores]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, Math.min(4, PLAN_LIMITS.dependencies))
      .map(([id]) => id)
      .sort((a, b) => a - b);
    return { id: index + 1, title: draft.title, description: describe(draft), estimatedComplexity: complexityOf(draft), dependencies };
  });
}

/**
 * What most other work stands on, when the document has a task for it:
 * accounts (anything that acts for a person), project setup (everything),
 * the data model (anything that stores).
 */
const FOUNDATIONS: { title: RegExp; mentions: RegExp }[] = [
  {
    title: /\b(accounts?|auth\w*|sign[- ]?(in|up)|log[- ]?in|identity|registration|users?|members?)\b/i,
    mentions: /\b(members?|users?|owners?|admins?|administrators?|profiles?|accounts?|sign(ed)?[- ]in|log(ged)?[- ]in|customers?)\b/i,
  },
  { title: /\b(set ?up|infrastructure|scaffold\w*|foundation|architecture)\b/i, mentions: /./ },
  { title: /\b(data ?model|database|schema|storage)\b/i, mentions: /\b(stores?|stored|saves?|saved|persist\w*|records?|database)\b/i },
];

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// ---------- name and summary ----------

function findProjectName(document: ScopingDocument, sections: Section[]): string {
  const labelled = document.text.match(/^\s*(?:project(?: name)?|product(?: name)?|title|name)\s*:\s*(.{2,100})$/im);
  if (labelled) return clip(labelled[1]!.replace(/[*_`#]/g, "").trim(), PLAN_LIMITS.projectName);
  const first = sections.find((s) => s.level > 0 && s.title);
  if (first && (first.level <= 2 || first === sections[1])) {
    const name = first.title
      .replace(/\b(software |product |business )?requirements?( specification| document)?( for| of)?\b/gi, "")
      .replace(/\b(PRD|SRS|BRD|spec(ification)?)\b:?/g, "")
      .replace(/^[\s:–—-]+|[\s:–—-]+$/g, "")
      .trim();
    if (name.length >= 2) return clip(name, PLAN_LIMITS.projectName);
  }
  const firstLine = normalize(document.text).find((l) => l.trim().length > 1)?.trim() ?? "";
  if (firstLine && firstLine.length <= 80 && !REQUIREMENT.test(firstLine)) return clip(firstLine.replace(/^#+\s*/, ""), PLAN_LIMITS.projectName);
  const base = document.fileName.replace(/\.[^.]+$/, "").replace(/[-_]+/g, " ").trim();
  return clip(base ? capitalize(base) : "Untitled project", PLAN_LIMITS.projectName);
}

function summarize(sections: Section[], tasks: PlanTask[], truncated: boolean): string {
  const contextual = sections.filter((s) => kindOf(s) === "context").flatMap((s) => s.paragraphs);
  const opening = (contextual.find((p) => p.length > 40) ?? sections.flatMap((s) => s.paragraphs).find((p) => p.length > 40) ?? "").trim();
  const phases = new Map<number, number>();
  for (const t of tasks) phases.set(t.id, 1 + Math.max(0, ...t.dependencies.map((d) => phases.get(d) ?? 0)));
  const count = (c: Complexity) => tasks.filter((t) => t.estimatedComplexity === c).length;
  const shape = `${tasks.length} task${tasks.length === 1 ? "" : "s"} in ${Math.max(...phases.values())} phase${Math.max(...phases.values()) === 1 ? "" : "s"} (${count("High")} high, ${count("Medium")} medium, ${count("Low")} low complexity)${truncated ? `; the document has more sections than the ${PLAN_LIMITS.tasks} tasks a plan holds, the rest is left out` : ""}.`;
  const lead = opening ? clip(sentences(opening).slice(0, 3).join(" "), PLAN_LIMITS.summary - shape.length - 2) : "";
  return lead ? `${lead} ${shape}` : shape.charAt(0).toUpperCase() + shape.slice(1);
}
