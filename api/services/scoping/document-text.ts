/**
 * The words of a requirements document (requirements-reader.ts): identifiers (FR-1, NFR-2, 3.2.1) and their ranges,
 * sentences, and text that PDF extraction broke, mended (identifiers split across lines, hyphenated words,
 * ligatures, page numbers, running headers).
 */

// ---------- identifiers and sentences ----------

/** FR-1, NFR-2, F1, REQ-12, US-3, R1, BR-4.2, SEC 3; or a dotted number 3.2.1 (three parts at least). */
const ID = String.raw`(?:[A-Z][A-Za-z]{0,5}[- ]?\d{1,4}(?:\.\d{1,3})*[a-z]?|\d{1,2}\.\d{1,2}\.\d{1,3}(?:\.\d{1,3})*)`;
export const ID_LINE = new RegExp(String.raw`^(?:[-*+•◦▪‣]\s+)?(?:\*\*|__)?\[?(${ID})\]?(?:\*\*|__)?\s*(?:[:.)\]–—-]|\s)\s*(?:\*\*|__)?\s*(\S.*)$`);
const ID_ANYWHERE = new RegExp(String.raw`\b(${ID})\b`, "g");
/** Words that look like identifiers but are not (A4, Q3, MP3, WCAG 2.1 is caught by the dot rule). */
const NOT_ID = /^(?:A[3-5]|Q[1-4]|H[1-6]|MP[34]|P[0-4]|V\d+|Page ?\d+|Step ?\d+|Phase ?\d+|Release ?\d+|Sprint ?\d+|M\d+|ISO ?\d+|WCAG.*|TLS ?\d.*|HTTP ?\d.*|IPv\d|Android ?\d+|iOS ?\d+|Windows ?\d+)$/i;

export const MODAL = /\b(must|shall|should|will|needs? to|has to|have to|is required to|are required to|required to)\b/i;
export const STORY = /^(?:as an?|as the)\s+([^,]{2,60}?),?\s+I\s+(?:want|need|would like|can|should be able)\b/i;
export const FEATURE_SENTENCE = /\b(must|shall|should|will|can|lets?|allows?|enables?|needs?|wants?|gets?|receives?|sees?|keeps?|sends?|shows?)\b/i;

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
