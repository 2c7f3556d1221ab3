/**
 * Reads a requirements document the way people write them into sections and
 * requirements, for the built-in planner (and the model planner's coverage
 * check). No model, no network: rules over the extracted text.
 *
 * - Text that PDF extraction breaks is mended first: identifiers split across
 *   lines ("NFR-\n2"), words hyphenated at a line end, ligatures, page
 *   numbers and running headers.
 * - Structure: Markdown headings (`#`, setext), numbered headings ("3.
 *   Functional requirements", "2.1 Payments"), short title-like lines
 *   standing alone (PDF and plain text carry no heading marks), list items,
 *   tables (`| FR-1 | … |`), paragraphs.
 * - Requirements: lines led by an identifier (FR-1, NFR-2, F1, REQ-12, US-3,
 *   R1., 3.2.1), list items of work sections, table rows, "must / shall /
 *   should / will" sentences and user stories ("As a …, I want …") in
 *   paragraphs; a document with none of these gives its feature sentences.
 * - Sections are work, or context that is never a task: background, purpose,
 *   overview, goals (kept for the summary), users and roles (the actors), out
 *   of scope (kept for the summary), assumptions, glossary, milestones and
 *   release plans (the phases), acceptance criteria (attached to the
 *   requirements they test).
 * - A constraints section (constraints, compliance, security, privacy,
 *   non-functional or quality requirements) is work in every sentence: a
 *   constraint is often written plainly ("Data is stored in the EU."), with no
 *   "must" to find it by (issue 38: a GDPR constraint written so was dropped).
 */
import { type Section, flatten, parseSections } from "./document-sections.ts";
import { FEATURE_SENTENCE, MODAL, STORY, canonicalId, isIdentifier, normalizeId, sentences } from "./document-text.ts";

export interface Requirement {
  /** The document's identifier, if it gives one. */
  id?: string;
  /** The requirement as written (identifier removed). */
  text: string;
  details: string[];
  acceptance: string[];
  /** The work section it is in (its heading), for grouping. */
  section: Section;
  order: number;
}

export interface ReadDocument {
  title: string | undefined;
  root: Section;
  sections: Section[];
  requirements: Requirement[];
  actors: { name: string; about: string }[];
  outOfScope: string[];
  /** What the project is for (a Goals or Objectives section): the plan's summary says it. */
  goals: string[];
  milestones: { name: string; text: string }[];
  /** Acceptance criteria of their own sections, with the work section they sit under (if any). */
  acceptance: { text: string; under?: Section }[];
  context: string[];
}

// ---------- requirements ----------

const PRIORITY_TAIL = /\s{2,}(?:must|should|could|won'?t|high|medium|low|p[0-3])\s*$/i;
const HEADER_CELL = /^(id|#|no\.?|ref|requirement|description|priority|type|status|owner|source|notes?|title|feature|story|user story|acceptance( criteria)?|rationale|moscow)$/i;

function tableRequirements(section: Section): { id?: string; text: string; details: string[]; acceptance: string[] }[] {
  const rows = section.rows;
  if (!rows.length) return [];
  let header: string[] | undefined;
  let body = rows;
  if (rows[0]!.filter((c) => HEADER_CELL.test(c)).length >= Math.min(2, rows[0]!.length)) [header, ...body] = rows;
  const col = (re: RegExp) => header?.findIndex((c) => re.test(c)) ?? -1;
  const acceptanceCol = col(/acceptance/i);
  const priorityCol = col(/priority|moscow/i);
  return body.flatMap((cells) => {
    const idCell = cells.findIndex((c) => isIdentifier(c.replace(/[*_]/g, "")));
    const textCells = cells.map((c, i) => ({ c, i })).filter(({ i }) => i !== idCell && i !== acceptanceCol && i !== priorityCol && !(header && /^(status|owner|type|source)$/i.test(header[i] ?? "")));
    const main = textCells.reduce((best, x) => (x.c.length > best.c.length ? x : best), { c: "", i: -1 });
    if (!main.c || main.c.length < 8) return [];
    const others = textCells.filter((x) => x.i !== main.i && x.c && x.c.length > 2).map((x) => (header?.[x.i] ? `${header[x.i]}: ${x.c}` : x.c));
    const details = [...others, ...(priorityCol >= 0 && cells[priorityCol] ? [`Priority: ${cells[priorityCol]}`] : [])];
    const acceptance = acceptanceCol >= 0 && cells[acceptanceCol] ? [cells[acceptanceCol]!] : [];
    return [{ id: idCell >= 0 ? normalizeId(cells[idCell]!.replace(/[*_]/g, "")) : undefined, text: main.c, details, acceptance }];
  });
}

const ACCEPTANCE_LABEL = /^(?:acceptance(?: criteria)?|done when|verified when|test)\s*:\s*(.*)$/i;

/** The requirements a work section states itself (not its subsections'). */
/** A section of constraints: each of its sentences is a requirement, with or without a modal verb. */
const CONSTRAINTS = /\b(constraints?|compliance|regulatory|regulations?|legal|security|privacy|data protection|non-?functional|quality (?:attributes|requirements)|technical requirements|limitations)\b/i;
/** A section of goals: context, said in the plan's summary. */
const GOALS = /^(?:\d+(?:\.\d+)*\.?\s+)?(?:project |business |product |key )?(goals?|objectives?|aims?|success metrics|kpis)(?:\s+and\s+(?:goals?|objectives?|aims?|non-?goals?))?$/i;

function ownRequirements(section: Section, loose: boolean | "every sentence"): Omit<Requirement, "section" | "order">[] {
  const out: Omit<Requirement, "section" | "order">[] = [];
  let inAcceptance = false;
  for (const p of section.paragraphs) {
    const label = p.match(ACCEPTANCE_LABEL);
    if (label) {
      inAcceptance = true;
      if (label[1] && out.length) out.at(-1)!.acceptance.push(label[1]);
      continue;
    }
    for (const s of sentences(p)) {
      const every = loose === "every sentence" && s.split(/\s+/).length >= 3;
      if (every || MODAL.test(s) || STORY.test(s) || (loose && FEATURE_SENTENCE.test(s) && s.split(/\s+/).length >= 5)) {
        if (/^(this|the following|these|below|the table)\b.*\b(section|document|lists?|describes?|table)\b/i.test(s)) continue;
        out.push({ text: s, details: [], acceptance: [] });
        inAcceptance = false;
      }
    }
  }
  for (const item of section.items) {
    const label = item.text.match(ACCEPTANCE_LABEL);
    if (label && out.length) {
      out.at(-1)!.acceptance.push(...[label[1]!, ...item.details].filter(Boolean));
      continue;
    }
    if (inAcceptance && !item.id && out.length) {
      out.at(-1)!.acceptance.push(item.text);
      continue;
    }
    const text = item.text.replace(PRIORITY_TAIL, "").trim();
    if (!text || (text.length < 4 && !item.details.length)) continue;
    const acceptance: string[] = [];
    const details: string[] = [];
    let detailAcceptance = false;
    for (const d of item.details) {
      const l = d.match(ACCEPTANCE_LABEL);
      if (l) {
        detailAcceptance = true;
        if (l[1]) acceptance.push(l[1]);
      } else (detailAcceptance ? acceptance : details).push(d);
    }
    out.push({ id: item.id, text, details, acceptance });
  }
  for (const r of tableRequirements(section)) out.push(r);
  return out;
}

/** Reads the document into its requirements and the context around them. */
export function readDocument(text: string): ReadDocument {
  const { root, title } = parseSections(text);
  const sections = flatten(root);
  const work = sections.filter((s) => s.kind === "work" && s !== root);
  let requirements: Requirement[] = [];
  let order = 0;
  const take = (loose: boolean, from: Section[]) => {
    for (const section of from) for (const r of ownRequirements(section, !loose && CONSTRAINTS.test(section.title) ? "every sentence" : loose)) requirements.push({ ...r, section, order: order++ });
  };
  take(false, work);
  // Paragraph requirements that merely restate an identified one's line are dropped.
  if (!requirements.length) {
    // Prose only: the feature sentences of the work sections, else of every section but the context ones.
    take(true, work.length ? work : sections.filter((s) => s.kind === "context" && s.parent === root));
    if (!work.length) {
      // A document of paragraphs without headings: its first paragraph introduces it.
      const intro = sentences(root.children[0]?.paragraphs[0] ?? root.paragraphs[0] ?? "");
      const rest = requirements.filter((r) => !intro.includes(r.text));
      if (rest.length) requirements = rest;
    }
  }
  // The same requirement twice (a table repeating a list): keep the first.
  const seen = new Set<string>();
  requirements = requirements.filter((r) => {
    const key = r.id ? canonicalId(r.id) : r.text.toLowerCase().replace(/\W+/g, " ").trim();
    if (seen.has(key)) {
      if (r.id) {
        const first = requirements.find((x) => x.id && canonicalId(x.id) === canonicalId(r.id!))!;
        if (first !== r && !first.text.includes(r.text)) first.details.push(r.text);
      }
      return false;
    }
    seen.add(key);
    return true;
  });
  const actors = sections
    .filter((s) => s.kind === "actors")
    .flatMap((s) => [...s.items.map((i) => i.text), ...s.paragraphs.filter((p) => /^[^:]{2,40}:/.test(p)), ...s.rows.slice(1).map((r) => r.join(": ")), ...s.children.filter((c) => c.kind === "actors").map((c) => `${c.title}: ${c.paragraphs[0] ?? ""}`)])
    .map((line) => {
      const m = line.match(/^\*{0,2}([^:–—(]{2,40}?)\*{0,2}\s*(?:[:–—(]|\s-\s)\s*(.*)$/);
      return m ? { name: m[1]!.trim(), about: m[2]!.replace(/\)$/, "").trim() } : { name: line.split(/\s+/).slice(0, 3).join(" "), about: line };
    })
    .filter((a) => a.name.split(/\s+/).length <= 4);
  const outOfScope = sections
    .filter((s) => s.kind === "outOfScope")
    .flatMap((s) => [...s.items.map((i) => (i.id ? `${i.id} ${i.text}` : i.text)), ...s.paragraphs, ...s.rows.map((r) => r.join(" "))]);
  const milestones = sections
    .filter((s) => s.kind === "milestones")
    .flatMap((s) => {
      if (s.children.length && !s.items.length) return s.children.map((c) => ({ name: c.title, text: [...c.paragraphs, ...c.items.map((i) => `${i.id ?? ""} ${i.text} ${i.details.join(" ")}`)].join(" ") }));
      const entries = [
        ...s.items.map((i) => (i.id ? `${i.id}: ${i.text}` : i.text)),
        ...s.rows.filter((r) => !r.every((c) => HEADER_CELL.test(c) || /^(milestone|release|phase|date|when|scope|contents?|includes?|deliverables?)$/i.test(c))).map((r) => r.join(": ")),
        ...(s.items.length || s.rows.length ? [] : s.paragraphs),
      ];
      return entries.map((e) => {
        const m = e.match(/^([^:–—]{2,60}?)\s*(?:[:–—]|\s-\s)\s*(.+)$/);
        return m ? { name: m[1]!.trim(), text: m[2]! } : { name: e.split(/\s+/).slice(0, 6).join(" "), text: e };
      });
    });
  const acceptance = sections
    .filter((s) => s.kind === "acceptance")
    .flatMap((s) => {
      let under = s.parent;
      while (under && under.kind === "acceptance") under = under.parent;
      return [...s.items.map((i) => [i.id ? `${i.id} ${i.text}` : i.text, ...i.details].join(" ")), ...s.paragraphs.flatMap(sentences), ...s.rows.map((r) => r.join(" "))].map((text) => ({
        text,
        under: under?.kind === "work" ? under : undefined,
      }));
    });
  const context = sections.filter((s) => s.kind === "context" && s !== root).flatMap((s) => s.paragraphs);
  const goals = sections
    .filter((s) => s.kind === "context" && GOALS.test(s.title))
    .flatMap((s) => [...s.items.map((i) => i.text), ...s.paragraphs.flatMap(sentences), ...s.rows.slice(1).map((r) => r.join(": "))])
    .map((g) => g.trim())
    .filter(Boolean);
  return { title, root, sections, requirements, actors, outOfScope, goals, milestones, acceptance, context };
}
