/**
 * The pool manager's shares of a split being edited (issue 29, item 4): percentages with at most two decimals,
 * summed exactly in basis points. Saved only when they make the whole bounty (issue 38: "Save shares" was enabled at
 * any total, and the server refused the request).
 */
export interface ShareRow {
  login: string;
  percent: string;
}

/** A percentage as basis points ("33.33" -> 3333); null when it is not one. */
export function percentToBasisPoints(text: string): number | null {
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  const points = Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  return points <= 10_000 ? points : null;
}

/** The total of the named rows (in percent) and whether they can be saved: each a percentage, together exactly 100 %. */
export function sharesTotal(rows: ShareRow[]): { percent: number; saveable: boolean } {
  const named = rows.filter((r) => r.login.trim());
  const points = named.map((r) => percentToBasisPoints(r.percent));
  const sum = points.reduce<number>((total, p) => total + (p ?? 0), 0);
  return { percent: sum / 100, saveable: named.length > 0 && points.every((p) => p !== null) && sum === 10_000 };
}
