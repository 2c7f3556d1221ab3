/** Word stems the built-in planner compares texts by (a task and a criterion, two tasks). */

// ---------- words ----------

const STOP = new Set(
  "the a an and or of to for in on at by with from as is are be been being it its this that these those must shall should will can may need needs has have had not no all any each every other such than then there their them they we our you your user users system application app platform service feature features page pages data able when where which who what how also into out over under more most some only own same so very just support implement allow provide make new use using used based via per within without let ensure".split(
    " ",
  ),
);

export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9-]+/g) ?? []) {
    if (word.length < 4 || STOP.has(word)) continue;
    out.add(word.slice(0, 6));
  }
  return out;
}

export function overlap(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n;
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
