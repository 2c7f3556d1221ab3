import { CURRENCIES, type Currency } from "../../../db/schema/columns.ts";
import { isGitHubLogin } from "../splits/co-authors.ts";
import { inlineCode } from "../bot/markdown.ts";

export type TipCommand = { kind: "tip"; amount: string; currency: Currency; login: string } | { kind: "invalid"; reason: string };

export const TIP_USAGE = "Usage: `/tip <amount> <XDC|ROXN|USDC> @login`, for example `/tip 10 XDC @bob`.";

/**
 * `/tip 10 XDC @login` (first line of a comment; the currency may be left
 * out for XDC, the login may come first). undefined: not a /tip comment.
 * The amount stays text: the confirmation page parses it with the token's
 * decimals, like every amount a person types.
 */
export function parseTipCommand(body: string): TipCommand | undefined {
  const line = body.trim().split(/\r?\n/)[0]?.trim() ?? "";
  if (!/^\/tip(?:\s|$)/i.test(line)) return undefined;
  const words = line.split(/\s+/).slice(1);
  const login = words.filter((w) => w.startsWith("@"));
  const rest = words.filter((w) => !w.startsWith("@"));
  if (login.length !== 1 || rest.length < 1 || rest.length > 2) return { kind: "invalid", reason: TIP_USAGE };
  const name = login[0]!.slice(1);
  if (!isGitHubLogin(name)) return { kind: "invalid", reason: `${inlineCode(login[0]!, 40)} is not a GitHub login. ${TIP_USAGE}` };
  if (!/^\d{1,12}(?:\.\d{1,18})?$/.test(rest[0]!)) return { kind: "invalid", reason: TIP_USAGE };
  const currency = (rest[1] ?? "XDC").toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) return { kind: "invalid", reason: `Unknown currency ${inlineCode(rest[1]!, 10)}: use XDC, ROXN or USDC.` };
  if (/^0+(?:\.0+)?$/.test(rest[0]!)) return { kind: "invalid", reason: "A tip must be more than zero." };
  return { kind: "tip", amount: rest[0]!, currency: currency as Currency, login: name };
}
