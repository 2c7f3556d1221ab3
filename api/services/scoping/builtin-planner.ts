import type { Complexity, Plan, PlanTask } from "../../../lib/scoping.ts";
import { PLAN_LIMITS, type Planner } from "./plan.ts";
import { readDocument, type ReadDocument, type Requirement } from "./requirements-reader.ts";
import { sentences } from "./document-text.ts";
import type { Section } from "./document-sections.ts";
import { attachAcceptance } from "./planner-acceptance.ts";
import type { Draft } from "./planner-draft.ts";
import { orderAndLink } from "./planner-order.ts";
import { VERB_START, capitalize, clip, lowerFirst, requirementTitle, setDocumentRoles } from "./planner-titles.ts";

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

export function planDocument(document: { fileName: string; text: string }): Plan {
  const read = readDocument(document.text);
  setDocumentRoles(read.actors.map((a) => a.name.toLowerCase().replace(/^(the|an?)\s+/, "")));
  try {
    return planRead(document, read);
  } finally {
    setDocumentRoles([]);
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
