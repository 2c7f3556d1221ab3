/**
 * The structure of a requirements document (requirements-reader.ts): Markdown and numbered headings, title-like
 * lines standing alone, list items, tables and paragraphs, into a tree of sections each of one kind (work,
 * context, actors, out of scope, milestones, acceptance).
 */

import { ID_LINE, MODAL, STORY, isIdentifier, mendText, normalizeId } from "./document-text.ts";

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
