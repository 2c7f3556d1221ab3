import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CURRENCIES, DECIMALS, SHOWN_DECIMALS, currencyId, isCurrency, unitOf } from "./money.ts";
import { formatAmount } from "./money-format.ts";
import { CURRENCIES as COLUMN_CURRENCIES } from "../db/schema/columns.ts";

const ROOT = resolve(import.meta.dir, "..");

describe("the one definition of money", () => {
  test("decimals, units and the shown decimals of the spec", () => {
    expect(CURRENCIES).toEqual(["XDC", "ROXN", "USDC"]);
    expect(DECIMALS).toEqual({ XDC: 18, ROXN: 18, USDC: 6 });
    expect(SHOWN_DECIMALS).toEqual({ XDC: 4, ROXN: 2, USDC: 2 });
    expect(unitOf("XDC")).toBe(10n ** 18n);
    expect(unitOf("USDC")).toBe(1_000_000n);
    expect(formatAmount(1_234_567_891n * 10n ** 9n, "XDC")).toBe("1.2345");
    expect(formatAmount(1_239_999n, "USDC")).toBe("1.23");
    expect(isCurrency("ROXN")).toBe(true);
    expect(isCurrency("xdc")).toBe(false);
    expect(isCurrency(undefined)).toBe(false);
  });

  test("a currency's index is the escrow contract's Currency enum", () => {
    const source = readFileSync(join(ROOT, "contracts/src/RepoRewardsBase.sol"), "utf8");
    const members = /enum Currency \{([^}]*)\}/.exec(source)![1]!.split(",").map((m) => m.trim()).filter(Boolean);
    expect(members).toEqual([...CURRENCIES]);
    for (const c of CURRENCIES) expect(currencyId(c)).toBe(members.indexOf(c));
  });

  test("the database's currency enum is the same list, not a copy", () => {
    expect(COLUMN_CURRENCIES).toBe(CURRENCIES);
  });

  test("no other shipped file declares a currency list, a currency type or a decimals table", async () => {
    // The shapes a copy takes: a literal union or list of the three symbols, a decimals table, 10 ** 18 / 10 ** 6 for a unit.
    const copy = [
      /["']XDC["']\s*\|\s*["']ROXN["']/,
      /\[\s*["']XDC["'],\s*["']ROXN["'],\s*["']USDC["']\s*\]/,
      /XDC:\s*18\b/,
      /USDC:\s*6\b/,
      /10n \*\* (18|6)n/,
    ];
    const shipped = ["api", "db", "lib", "site", "scripts", "vscode-extension", "node-agent"];
    const offenders: string[] = [];
    for (const folder of shipped) {
      for await (const file of new Bun.Glob(`${folder}/**/*.{ts,tsx,astro}`).scan({ cwd: ROOT })) {
        if (/\.(test|property\.test|e2e)\.tsx?$|\/node_modules\/|^scripts\/bench\/|\/dist\//.test(file) || file === "lib/money.ts") continue;
        const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
        lines.forEach((line, i) => {
          if (copy.some((pattern) => pattern.test(line))) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
      }
    }
    expect(offenders).toEqual([]);
  });
});
