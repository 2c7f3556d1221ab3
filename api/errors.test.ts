import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { codeToStatus, DomainError, ErrorCode, hasCode, httpStatusOf, isRefusal, refused } from "./errors.ts";

const ROOT = resolve(import.meta.dir, "..");

/** The codes of docs/api.md's error table (its first column: one or more `code`s per row). */
function documentedCodes(): Map<string, number> {
  const text = readFileSync(join(ROOT, "docs/api.md"), "utf8");
  const section = text.slice(text.indexOf("### Errors"), text.indexOf("### Request ids"));
  const rows = new Map<string, number>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || !/^\d{3}$/.test(cells[2]!)) continue;
    for (const [, code] of cells[1]!.matchAll(/`([a-z_]+)`/g)) rows.set(code!, Number(cells[2]));
  }
  return rows;
}

describe("the error catalogue", () => {
  test("every code is snake_case, has its HTTP status and a row in docs/api.md with that status; the table names no other code", () => {
    const codes = Object.values(ErrorCode);
    expect(codes.filter((c) => !/^[a-z]+(_[a-z]+)*$/.test(c))).toEqual([]);
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(codeToStatus).sort()).toEqual([...codes].sort());
    const rows = documentedCodes();
    const undocumented = codes.filter((c) => !rows.has(c));
    const wrongStatus = codes.filter((c) => rows.has(c) && rows.get(c) !== codeToStatus[c]).map((c) => `${c}: docs ${rows.get(c)}, codeToStatus ${codeToStatus[c]}`);
    const unknown = [...rows.keys()].filter((c) => !(codes as string[]).includes(c));
    expect({ undocumented, wrongStatus, unknown }).toEqual({ undocumented: [], wrongStatus: [], unknown: [] });
  });

  test("the edge's status comes from the code; a refusal is a code under 500; hasCode reads the code only", () => {
    const limit = refused(ErrorCode.LIMIT_EXCEEDED, "Daily funding limit reached.", { error: "Exceeds daily funding limit" });
    expect(httpStatusOf(limit)).toBe(429);
    expect(limit.toBody("r1")).toEqual({ error: "Exceeds daily funding limit", message: "Daily funding limit reached.", code: "limit_exceeded", requestId: "r1" });
    expect(refused(ErrorCode.INVALID_URL, "url: must be an https URL.").title).toBe("Bad Request");
    expect(isRefusal(limit)).toBe(true);
    expect(isRefusal(refused(ErrorCode.CHAIN_UNAVAILABLE, "down"))).toBe(false);
    expect(hasCode(limit, ErrorCode.LIMIT_EXCEEDED)).toBe(true);
    // The same text under another code is another failure.
    expect(hasCode(new DomainError({ code: ErrorCode.RATE_LIMITED, message: limit.message }), ErrorCode.LIMIT_EXCEEDED)).toBe(false);
  });
});

/**
 * Services and workers decide from codes (issue 37, item 3): never from an HTTP status of our own errors, nor from
 * the text of an error. An upstream's answer is theirs to read (GitHub's status on a GitHubApiError, a fetch
 * Response's status), and reading the chain's or the database's words belongs to api/chain/errors.ts and
 * db/client.ts.
 */
const FORBIDDEN: { pattern: RegExp; why: string }[] = [
  { pattern: /\b[sS]tatus\s*(===|!==|==|!=|>=|<=|<|>)\s*[1-5]\d\d\b|\b[1-5]\d\d\s*(===|!==|==|!=)\s*[\w.]*[sS]tatus\b|\bcase\s+[1-5]\d\d\s*:/, why: "an HTTP status decides" },
  { pattern: /\bhttpStatusOf\(|\bcodeToStatus\b/, why: "an HTTP status decides (the edge's business)" },
  { pattern: /\.test\(\s*(String\()?\(?\s*(err|error|e|cause|message|msg)\b/, why: "a pattern over an error's text" },
  { pattern: /\.test\(.*\b(err|error|e|cause)\b.*\.(message|details|shortMessage)\b/, why: "a pattern over an error's text" },
  { pattern: /\.(message|shortMessage|details)\s*(\?\.)?\.?(includes|match|matchAll|startsWith|endsWith|search|indexOf)\(/, why: "a search in an error's text" },
  { pattern: /String\(\s*(err|error|e)\s*\)\s*\.(includes|match|startsWith|endsWith|search|indexOf)\(/, why: "a search in an error's text" },
  // The database's words (db/client.ts reads its codes: isUniqueViolation, isStorageFull).
  { pattern: /constraint failed|UNIQUE constraint|FOREIGN KEY constraint|SQLITE_[A-Z]|database is locked|no such (table|column)/, why: "the database's error text" },
];

/** A status read that is an upstream's answer: on a GitHubApiError (guarded nearby), or on a fetch Response. */
function upstreamStatus(lines: string[], i: number): boolean {
  const line = lines[i]!;
  if (/\b(res|response|answer|reply)\.status\b/.test(line)) return true;
  return lines.slice(Math.max(0, i - 6), i + 1).some((l) => /instanceof GitHubApiError/.test(l));
}

export function decisionsByStatusOrText(text: string): string[] {
  const lines = text.split("\n");
  const found: string[] = [];
  lines.forEach((line, i) => {
    const code = line.replace(/\/\/.*$/, "");
    for (const { pattern, why } of FORBIDDEN) {
      if (!pattern.test(code)) continue;
      if (why === "an HTTP status decides" && upstreamStatus(lines, i)) continue;
      found.push(`${i + 1}: ${why}: ${line.trim()}`);
      break;
    }
  });
  return found;
}

/** Every finding in the non-test .ts files under `folders` of `root`, as `file:line: why: text`. */
export async function offendersUnder(root: string, folders: string[]): Promise<string[]> {
  const offenders: string[] = [];
  for (const folder of folders) {
    for await (const file of new Bun.Glob(`${folder}/**/*.ts`).scan({ cwd: root })) {
      if (file.endsWith(".test.ts")) continue;
      for (const finding of decisionsByStatusOrText(readFileSync(join(root, file), "utf8"))) offenders.push(`${file}:${finding}`);
    }
  }
  return offenders.sort();
}

describe("deciding from codes", () => {
  test("the check sees a decision from a status or from an error's text, and lets an upstream's status through", () => {
    const caught = [
      "if (err.status === 409 || err.status === 422) return;",
      "if (error.status >= 500) retry();",
      'if (/UNIQUE constraint failed/i.test(String(err))) return true;',
      'if (/already paid/.test((err as Error).message)) return;',
      'if (err.message.includes("insufficient")) return;',
      "if (httpStatusOf(err) === 409) return;",
      "const { status } = err; if (status === 422) return;",
      "switch (err.status) { case 409: return; }",
      'if (/SQLITE_CONSTRAINT/.test(code)) return;',
    ];
    for (const line of caught) expect({ line, found: decisionsByStatusOrText(line).length }).toEqual({ line, found: 1 });
    const allowed = [
      "if (err instanceof GitHubApiError && err.status === 404) return null;",
      "if (!(err instanceof GitHubApiError)) throw err;\n      if (err.status === 404 || err.status === 451) return;",
      "if (response.status === 429 || response.status >= 500) throw new Error();",
      "if (hasCode(err, ErrorCode.ALREADY_PAID, ErrorCode.IDEMPOTENCY_CONFLICT)) return;",
      'if (job.status === "failed") return;',
    ];
    for (const text of allowed) expect({ text, found: decisionsByStatusOrText(text) }).toEqual({ text, found: [] });
  });

  test("no service or worker decides from an HTTP status or from an error's text", async () => {
    expect(await offendersUnder(ROOT, ["api/services", "api/workers"])).toEqual([]);
  });

  test("the scan fails on an offender planted in a service and in a worker (the old ways of deciding 'already paid')", async () => {
    const root = mkdtempSync(join(tmpdir(), "planted-offender-"));
    try {
      for (const folder of ["api/services/payouts", "api/workers"]) mkdirSync(join(root, folder), { recursive: true });
      writeFileSync(
        join(root, "api/services/payouts/planted.ts"),
        [
          "export async function pay(send: () => Promise<void>) {",
          "  try {",
          "    await send();",
          "  } catch (err) {",
          "    if (/UNIQUE constraint failed: chain_transactions/i.test(String((err as Error).message))) return;",
          "    throw err;",
          "  }",
          "}",
        ].join("\n"),
      );
      writeFileSync(join(root, "api/workers/planted.ts"), "export const alreadyPaid = (err: { status: number }) => err.status === 409 || err.status === 422;\n");
      // A test file may say anything.
      writeFileSync(join(root, "api/workers/planted.test.ts"), "expect(res.status === 409).toBe(true);\n");
      const found = await offendersUnder(root, ["api/services", "api/workers"]);
      expect(found.map((f) => f.split(": ")[0])).toEqual(["api/services/payouts/planted.ts:5", "api/workers/planted.ts:1"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
