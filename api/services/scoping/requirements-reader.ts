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

export type SectionKind = "work" | "context" | "actors" | "outOfScope" | "milestones" | "acceptance";

export interface Section {
  title: string;
  level: number;
  kind: SectionKind;
  paragraphs: string[];
  items: Item[];
  rows: string[][];
  children: Section[];
  parent?: Section;
}

export interface Item {
  text: string;
  /** The identifier leading it (FR-1, 3.2.1), if any. */
  id?: string;
  /** Sub-bullets and the paragraph under a labelled requirement. */
  details: string[];
  indent: number;
}

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

// ---------- identifiers and sentences ----------

/** FR-1, NFR-2, F1, REQ-12, US-3, R1, BR-4.2, SEC 3; or a dotted number 3.2.1 (three parts at least). */
const ID = String.raw`(?:[A-Z][A-Za-z]{0,5}[- ]?\d{1,4}(?:\.\d{1,3})*[a-z]?|\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})*)`;
const ID_LINE = new RegExp(String.raw`^(?:[-*+•◦▪‣]\s+)?(?:\*\*|__)?\[?(${ID})\]?(?:\*\*|__)?\s*(?:[:.)\]–—-]|\s)\s*(?:\*\*|__)?\s*(\S.*)$`);
const ID_ANYWHERE = new RegExp(String.raw`\b(${ID})\b`, "g");
/** Words that look like identifiers but are not (A4, Q3, MP3, WCAG 2.1 is caught by the dot rule). */
const NOT_ID = /^(?:A[3-5]|Q[1-4]|H[1-6]|MP[34]|P[0-4]|V\d+|Page ?\d+|Step ?\d+|Phase ?\d+|Release ?\d+|Sprint ?\d+|M\d+|ISO ?\d+|WCAG.*|TLS ?\d.*|HTTP ?\d.*|IPv\d|Android ?\d+|iOS ?\d+|Windows ?\d+)$/i;

export const MODAL = /\b(must|shall|should|will|needs? to|has to|have to|is required to|are required to|required to)\b/i;
const STORY = /^(?:as an?|as the)\s+([^,]{2,60}?),?\s+I\s+(?:want|need|would like|can|should be able)\b/i;
const FEATURE_SENTENCE = /\b(must|shall|should|will|can|lets?|allows?|enables?|needs?|wants?|gets?|receives?|sees?|keeps?|sends?|shows?)\b/i;

export function normalizeId(id: string): string {
  return id.replace(/\s+/g, "-").toUpperCase();
}

const WHOLE_ID = new RegExp(`^${ID}$`);
const RANGE = new RegExp(String.raw`\b([A-Z]{1,6})-?(\d{1,4})\s*(?:[–—-]|\.\.\.?|…|to)\s*(?:\1-?)?(\d{1,4})\b`, "g");

export function isIdentifier(token: string): boolean {
  return !NOT_ID.test(token) && WHOLE_ID.test(token) && (/\d\.\d+\.\d/.test(token) || /^[A-Z]/.test(token));
}

/** Every identifier a text names, ranges expanded ("FR-1 – FR-3", "FR-1…FR-3"). */
export function idsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(RANGE)) {
    const [from, to] = [Number(m[2]), Number(m[3])];
    if (to > from && to - from < 60) for (let n = from; n <= to; n++) out.push(`${m[1]}-${n}`);
  }
  for (const m of text.matchAll(ID_ANYWHERE)) if (isIdentifier(m[1]!)) out.push(normalizeId(m[1]!));
  return [...new Set(out.map(canonicalId))];
}

/** FR1, FR-1 and FR 1 are the same identifier. */
export function canonicalId(id: string): string {
  return normalizeId(id).replace(/^([A-Z]+)-?(\d)/, "$1-$2");
}

export function sentences(paragraph: string): string[] {
  return paragraph
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"“(])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

// ---------- mending the text ----------

export function mendText(text: string): string[] {
  let t = text
    .normalize("NFKC")
    .replace(/\r\n?/g, "\n")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>])/g, "$1")
    .replace(/\t/g, "    ")
    .replace(/[\u00a0\u2000-\u200b]/g, " ")
    .replace(/[\u2010\u2011]/g, "-");
  // Identifiers broken across lines: "NFR-\n2", "NFR\n-2", "FR-1\n.2".
  t = t.replace(/\b([A-Z]{1,6})-[ \t]*\n[ \t]*(\d{1,4}\b)/g, "$1-$2").replace(/\b([A-Z]{1,6})[ \t]*\n[ \t]*-(\d{1,4}\b)/g, "$1-$2");
  // Words hyphenated at a line end ("sched-\nuled").
  t = t.replace(/([a-z]{2,})-\n[ \t]*([a-z]{2,})/g, "$1$2");
  // An identifier run into the previous sentence by the mending above starts its own line.
  t = t.replace(new RegExp(String.raw`(?<!\.)([.;!?])[ \t]+(?=(?:${ID})(?:[:.]|[ \t]+[A-Z]))`, "g"), (m, p) => `${p}\n`);
  const lines = t.split("\n").map((line) => line.replace(/\s+$/, ""));
  const title = lines.find((l) => l.trim())?.trim();
  let seenTitle = false;
  return lines.filter((line) => {
    const s = line.trim();
    if (/^(?:page\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$/i.test(s) || /^page\s+\d+/i.test(s)) return false;
    if (/\b(confidential|all rights reserved|copyright|©)\b/i.test(s) && s.length < 100) return false;
    if (title && s === title && title.length > 12) {
      if (seenTitle) return false; // the running header
      seenTitle = true;
    }
    return true;
  });
}

// ---------- structure ----------

const HASH_HEADING = /^(#{1,6})\s+(.+?)\s*#*$/;
const NUMBERED_HEADING = /^(\d{1,2}(?:\.\d{1,2})*)\.?\s+(\S.{0,100})$/;
const LIST_ITEM = /^(\s*)(?:[-*+•◦▪‣]|\d{1,3}[.)]|[a-zA-Z][.)]|\(\w{1,3}\))\s+(.+)$/;
const TABLE_ROW = /^\s*\|(.+)\|\s*$/;

const titleLikeSeen = new Map<string, boolean>();

function isTitleLike(line: string): boolean {
  let known = titleLikeSeen.get(line);
  if (known === undefined) {
    if (titleLikeSeen.size > 5000) titleLikeSeen.clear();
    known = titleLike(line);
    titleLikeSeen.set(line, known);
  }
  return known;
}

function titleLike(line: string): boolean {
  const s = line.trim().replace(/[*_]/g, "");
  const words = s.split(/\s+/);
  return (
    words.length <= 10 &&
    s.length <= 90 &&
    /^[A-Z0-9"“(]/.test(s) &&
    !/[.,;:!?]$/.test(s) &&
    !MODAL.test(s) &&
    !STORY.test(s) &&
    /[A-Za-z]{2}/.test(s)
  );
}

function cleanHeading(title: string): string {
  return title
    .replace(/[*_`]/g, "")
    .replace(/^(\d+(\.\d+)*\.?|[A-Z]\.|[IVX]+\.)\s+/, "")
    .replace(/\s+/g, " ")
    .trim();
}

const WORDS: [SectionKind, RegExp][] = [
  ["acceptance", /^(acceptance( criteria| tests?)?|definition of done|success criteria|done when|test(ing)? (plan|cases?)|verification)$/],
  ["outOfScope", /^(out of scope|not in scope|not in (?:this|the first) (?:version|release)|outside (the )?scope|non-?goals?|exclusions?|excluded|won'?t have|will not be built|not included|later|future (work|releases?|ideas?))$/],
  ["milestones", /^(milestones?|release plan|releases?|roadmap|time ?line|schedule|phases?|phasing|delivery( plan| schedule)?|iterations?|sprints?|plan|rollout( plan)?|implementation plan|project plan|mvp scope)$/],
  ["actors", /^(users?|user (types|groups|roles|classes|profiles)|roles?( and permissions)?|personas?|actors?|stakeholders?|audience|target (users|audience)|who it is for|customers)$/],
  [
    "context",
    /^(background|purpose|overview|introduction|intro|summary|about|context|problem( statement)?|vision|goals?|objectives?|motivation|executive summary|scope|document( control| history| information)?|revision( history)?|version( history)?|change ?log|approvals?|sign-?off|contacts?|team|glossary|definitions?|terms|terminology|abbreviations|acronyms|references?|appendix( \w+)?|assumptions?|dependencies|risks?|open (questions|issues)|questions|notes|table of contents|contents|budget|costs?|business case|current (situation|state|process)|success metrics|kpis|metrics|this document|conventions)$/,
  ],
];

/** The kind a heading names; work when it names none of the others. */
export function kindOfHeading(heading: string): SectionKind {
  const parts = heading
    .toLowerCase()
    .replace(/\(.*?\)/g, "")
    .replace(/[“”"':]/g, "")
    .split(/\s*(?:,|&|\/|\band\b|\bor\b)\s*/)
    .map((p) => p.replace(/^(the|project|product|business|document|key|target|general|system|initial|proposed|high[- ]level)\s+/, "").replace(/^(the)\s+/, "").trim())
    .filter(Boolean);
  if (!parts.length) return "work";
  let kind: SectionKind | undefined;
  for (const part of parts) {
    const k = WORDS.find(([, re]) => re.test(part))?.[0];
    if (!k) return "work";
    kind ??= k;
  }
  return kind ?? "work";
}

function parseTableRow(line: string): string[] | undefined {
  const m = line.match(TABLE_ROW);
  if (!m) return undefined;
  const cells = m[1]!.split("|").map((c) => c.trim());
  if (cells.every((c) => /^:?-{2,}:?$/.test(c) || c === "")) return [];
  return cells;
}

export function parseSections(text: string): { root: Section; title: string | undefined } {
  const lines = mendText(text);
  const root: Section = { title: "", level: 0, kind: "context", paragraphs: [], items: [], rows: [], children: [] };
  let current = root;
  let paragraph: string[] = [];
  let item: Item | undefined;
  /** A labelled requirement ("FR-1 Appointment import") takes the paragraph below it. */
  let labelled: Item | undefined;
  let lastWasHeading = false;
  let title: string | undefined;
  const flush = () => {
    if (paragraph.length) {
      const p = paragraph.join(" ").replace(/\s+/g, " ").trim();
      if (labelled && labelled.details.length === 0) labelled.details.push(p);
      else if (current.kind === "actors" || current.kind === "outOfScope" || current.kind === "milestones") current.paragraphs.push(...paragraph.map((l) => l.trim()));
      else current.paragraphs.push(p);
    }
    if (item) {
      item.text = item.text.replace(/\s+/g, " ").trim();
      item.details = item.details.map((d) => d.replace(/\s+/g, " ").trim());
      current.items.push(item);
    }
    paragraph = [];
    item = undefined;
  };
  const open = (heading: string, level: number) => {
    flush();
    labelled = undefined;
    lastWasHeading = true;
    const cleaned = cleanHeading(heading);
    if (title === undefined && root.children.length === 0 && !current.paragraphs.length && current === root) {
      title = heading.replace(/[*_`]/g, "").trim();
      // The document's own title is context, its sections its children.
      const section: Section = { title: cleaned, level, kind: "context", paragraphs: [], items: [], rows: [], children: [], parent: root };
      root.children.push(section);
      current = section;
      return;
    }
    let parent = current;
    while (parent !== root && parent.level >= level) parent = parent.parent!;
    const inherited = parent.kind !== "work" && parent !== root && parent.parent !== root ? parent.kind : undefined;
    const own = kindOfHeading(cleaned);
    const section: Section = { title: cleaned, level, kind: own === "work" && inherited ? inherited : own, paragraphs: [], items: [], rows: [], children: [], parent };
    parent.children.push(section);
    current = section;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const next = lines[i + 1]?.trim() ?? "";
    const previous = lines[i - 1]?.trim() ?? "";
    const previousBlank = i === 0 || previous === "";
    const headingBefore = lastWasHeading;
    lastWasHeading = false;
    if (trimmed === "" || /^(-{3,}|\*{3,}|_{3,})$/.test(trimmed)) {
      flush();
      continue;
    }
    let m: RegExpMatchArray | null;
    if ((m = trimmed.match(HASH_HEADING))) {
      const idLed = m[2]!.replace(/[*_]/g, "").match(ID_LINE);
      if (idLed && isIdentifier(idLed[1]!) && !/^\d/.test(idLed[1]!) && current.kind === "work" && current !== root) {
        // "### FR-1 Appointment import": a requirement, not a section.
        flush();
        item = { text: idLed[2]!, id: normalizeId(idLed[1]!), details: [], indent: 0 };
        labelled = item;
        continue;
      }
      open(m[2]!, m[1]!.length);
      continue;
    }
    if (/^(=+|-+)$/.test(next) && next.length >= 3 && isTitleLike(trimmed)) {
      open(trimmed, next.startsWith("=") ? 1 : 2);
      i++;
      continue;
    }
    const row = parseTableRow(trimmed);
    if (row) {
      flush();
      if (row.length) current.rows.push(row);
      continue;
    }
    if (title === undefined && root.children.length === 0 && current === root && !root.paragraphs.length && !item && paragraph.length === 0 && isTitleLike(trimmed) && !LIST_ITEM.test(line)) {
      open(trimmed, 1);
      continue;
    }
    if ((m = trimmed.match(NUMBERED_HEADING)) && isTitleLike(m[2]!) && !(m[1]!.split(".").length >= 3 && !isTitleLike(m[2]!))) {
      const depth = m[1]!.split(".").filter(Boolean).length;
      const looksListed = depth === 1 && LIST_ITEM.test(next) && /^\d/.test(next) && current.kind !== "context";
      const isShort = m[2]!.split(/\s+/).length <= 8;
      if (isShort && !looksListed && (depth > 1 || previousBlank || /[.!?:]$/.test(previous) || headingBefore || !!item || current === root || i > 0)) {
        open(m[2]!, 1 + depth);
        continue;
      }
    }
    const idLed = trimmed.match(ID_LINE);
    if (idLed && isIdentifier(idLed[1]!) && !(trimmed.match(NUMBERED_HEADING) && isTitleLike(idLed[2]!) && /^\d/.test(idLed[1]!))) {
      flush();
      labelled = undefined;
      item = { text: idLed[2]!.replace(/^(?:\*\*|__)|(?:\*\*|__)$/g, ""), id: normalizeId(idLed[1]!), details: [], indent: 0 };
      if (isTitleLike(item.text)) labelled = item;
      continue;
    }
    // A short title-like line standing alone (PDF and plain text carry no heading marks; PDF text has no blank lines).
    const afterBreak = previousBlank || /[.!?:]$/.test(previous) || headingBefore || (item !== undefined && !/[,;]$/.test(previous));
    const beforeContent = next === "" || LIST_ITEM.test(lines[i + 1] ?? "") || /^[A-Z"“|]/.test(next) || ID_LINE.test(next);
    // In a list-like context section (out of scope, roles, milestones) short lines are its entries, unless they name a section or lead one.
    const listLike = (current.kind === "outOfScope" || current.kind === "actors" || current.kind === "milestones") && kindOfHeading(cleanHeading(trimmed)) === "work" && !LIST_ITEM.test(lines[i + 1] ?? "") && !(next.split(/\s+/).length > 10);
    if (afterBreak && isTitleLike(trimmed) && !LIST_ITEM.test(line) && beforeContent && trimmed.length <= 70 && !(labelled && labelled === item) && !listLike) {
      const upper = trimmed === trimmed.toUpperCase();
      open(trimmed, upper ? 2 : current.level >= 2 && current.kind === "work" && kindOfHeading(cleanHeading(trimmed)) === "acceptance" ? current.level + 1 : 2);
      continue;
    }
    if ((m = line.match(LIST_ITEM))) {
      const indent = m[1]!.length;
      if (item && indent >= item.indent + 2) {
        item.details.push(m[2]!);
        continue;
      }
      flush();
      labelled = undefined;
      item = { text: m[2]!, details: [], indent };
      continue;
    }
    if (item && (/^\s{2,}\S/.test(line) || /^[a-z0-9(]/.test(trimmed) || !/[.!?:]$/.test(item.details.at(-1) ?? item.text) || labelled === item)) {
      if (labelled === item && /[.!?:]$/.test(item.details.at(-1) ?? "x.") && item.details.length === 0) item.details.push(trimmed);
      else if (item.details.length) item.details[item.details.length - 1] += ` ${trimmed}`;
      else if (labelled === item) item.details.push(trimmed);
      else item.text += ` ${trimmed}`;
      continue;
    }
    if (item) flush();
    paragraph.push(trimmed);
  }
  flush();
  return { root, title };
}

export function flatten(section: Section): Section[] {
  return [section, ...section.children.flatMap(flatten)];
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
