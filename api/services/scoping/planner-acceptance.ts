/** The built-in planner's acceptance criteria and actors of a task: the document's criteria matched to it, and who it names. */
import { canonicalId, idsIn } from "./document-text.ts";
import type { ReadDocument } from "./requirements-reader.ts";
import type { Section } from "./document-sections.ts";
import type { Draft } from "./planner-draft.ts";
import { clip } from "./planner-titles.ts";
import { escapeRegExp, overlap, stems } from "./planner-words.ts";

// ---------- acceptance criteria, actors ----------

export function attachAcceptance(drafts: Draft[], read: ReadDocument): void {
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

export function actorsOf(draft: Draft, read: ReadDocument): string[] {
  const text = draft.requirements.map((r) => `${r.text} ${r.details.join(" ")}`).join(" ").toLowerCase();
  return read.actors
    .filter((a) => {
      const name = a.name.toLowerCase().replace(/s$/, "");
      return name.length >= 3 && new RegExp(`\\b${escapeRegExp(name)}`).test(text);
    })
    .map((a) => (a.about ? `${a.name} (${clip(a.about, 80)})` : a.name));
}
