/**
 * Issue references in pull request bodies, by GitHub's rules: a closing
 * keyword (close/closes/closed, fix/fixes/fixed, resolve/resolves/resolved,
 * any case, optionally followed by a colon) directly before `#N`,
 * `owner/repo#N` or an issue URL closes that issue on merge. Any reference,
 * keyword or not, is a mention (a cross-reference on the issue's timeline).
 * Code blocks and inline code are ignored, as on GitHub. Titles never count.
 */
export interface IssueRef {
  owner: string;
  name: string;
  number: number;
}

const NAME = "[A-Za-z0-9_.-]+";
const KEYWORD = "(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)";

function stripCode(body: string): string {
  return body.replace(/```[\s\S]*?(?:```|$)/g, " ").replace(/`[^`\n]*`/g, " ");
}

/** `#N`, `owner/repo#N` or `<webUrl>/owner/repo/issues/N` as a regex source; groups: owner, name, number, owner/name, number. */
function referenceSource(webUrl: string | undefined): string {
  const short = `(?:(${NAME})\\/(${NAME}))?#(\\d+)`;
  if (!webUrl) return short;
  const base = webUrl.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  return `(?:${short}|${base}\\/(${NAME}\\/${NAME})\\/issues\\/(\\d+))`;
}

function collect(body: string, pattern: RegExp, owner: string, name: string): IssueRef[] {
  const seen = new Set<string>();
  const refs: IssueRef[] = [];
  for (const m of stripCode(body).matchAll(pattern)) {
    const [refOwner, refName, shortNumber, urlRepo, urlNumber] = m.slice(1);
    const [o, n] = urlRepo ? urlRepo.split("/") : [refOwner ?? owner, refName ?? name];
    const number = Number(shortNumber ?? urlNumber);
    const key = `${o}/${n}#${number}`.toLowerCase();
    if (!o || !n || !Number.isSafeInteger(number) || seen.has(key)) continue;
    seen.add(key);
    refs.push({ owner: o, name: n, number });
  }
  return refs;
}

/** Issues a pull request body would close on merge, in order of appearance. */
export function closingReferences(body: string, owner: string, name: string, webUrl?: string): IssueRef[] {
  const pattern = new RegExp(`(?<![A-Za-z0-9_])${KEYWORD}:?\\s+${referenceSource(webUrl)}(?![A-Za-z0-9_])`, "gi");
  return collect(body, pattern, owner, name);
}

/** Every issue a body refers to, closing keyword or not. */
export function mentionedIssues(body: string, owner: string, name: string, webUrl?: string): IssueRef[] {
  const pattern = new RegExp(`(?<![A-Za-z0-9_/#])${referenceSource(webUrl)}(?![A-Za-z0-9_])`, "g");
  return collect(body, pattern, owner, name);
}
