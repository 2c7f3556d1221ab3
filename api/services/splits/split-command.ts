import { isGitHubLogin, MAX_CO_AUTHORS } from "./co-authors.ts";
import { percentToBps, WHOLE_BPS } from "./shares.ts";
import { inlineCode } from "../bot/markdown.ts";

export interface SplitEntry {
  login: string;
  bps: bigint;
}

export type SplitCommand = { kind: "split"; entries: SplitEntry[] } | { kind: "invalid"; reason: string };

export const SPLIT_USAGE = "Usage: `/split @login percent @login percent …`, percentages summing to 100, for example `/split @bob 60 @carol 40`.";
/** The author and up to MAX_CO_AUTHORS others, as the default split allows. */
export const MAX_SPLIT_PEOPLE = MAX_CO_AUTHORS + 1;

/**
 * `/split @a 60 @b 40` (first line of a comment; percentages with at most
 * two decimals, `%` allowed, summing to exactly 100; each login once).
 * undefined: not a /split comment. Who may split, and whom, is checked by
 * the caller (splits/service.ts).
 */
export function parseSplitCommand(body: string): SplitCommand | undefined {
  const line = body.trim().split(/\r?\n/)[0]?.trim() ?? "";
  if (!/^\/split(?:\s|$)/i.test(line)) return undefined;
  const words = line.split(/\s+/).slice(1);
  if (words.length === 0 || words.length % 2 !== 0) return { kind: "invalid", reason: SPLIT_USAGE };
  const entries: SplitEntry[] = [];
  for (let i = 0; i < words.length; i += 2) {
    const login = words[i]!.replace(/^@/, "");
    if (!words[i]!.startsWith("@") || !isGitHubLogin(login)) return { kind: "invalid", reason: `${inlineCode(words[i]!, 40)} is not a GitHub login. ${SPLIT_USAGE}` };
    const bps = percentToBps(words[i + 1]!.replace(/%$/, ""));
    if (bps === undefined) return { kind: "invalid", reason: `${inlineCode(words[i + 1]!, 20)} is not a percentage between 0.01 and 100. ${SPLIT_USAGE}` };
    if (entries.some((e) => e.login.toLowerCase() === login.toLowerCase())) return { kind: "invalid", reason: `@${login} is named twice.` };
    entries.push({ login, bps });
  }
  return validateSplit(entries);
}

/** The rules every split passes, from a comment or from the repository page. */
export function validateSplit(entries: SplitEntry[]): SplitCommand {
  if (entries.length === 0) return { kind: "invalid", reason: SPLIT_USAGE };
  if (entries.length > MAX_SPLIT_PEOPLE) return { kind: "invalid", reason: `A split names at most ${MAX_SPLIT_PEOPLE} people.` };
  const seen = new Set<string>();
  for (const e of entries) {
    if (!isGitHubLogin(e.login)) return { kind: "invalid", reason: `${e.login.slice(0, 40)} is not a GitHub login.` };
    if (seen.has(e.login.toLowerCase())) return { kind: "invalid", reason: `@${e.login} is named twice.` };
    seen.add(e.login.toLowerCase());
    if (e.bps <= 0n || e.bps > WHOLE_BPS) return { kind: "invalid", reason: "Every share must be between 0.01 and 100 percent." };
  }
  const sum = entries.reduce((s, e) => s + e.bps, 0n);
  if (sum !== WHOLE_BPS) return { kind: "invalid", reason: `The percentages add up to ${Number(sum) / 100}, not 100.` };
  return { kind: "split", entries };
}
