import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { bpsToPercent, percentToBps, splitAmount } from "./shares.ts";
import { parseSplitCommand } from "./split-command.ts";
import { parseTipCommand } from "../tips/tip-command.ts";

describe("splitting an amount", () => {
  test("equal shares; the remainder (in wei) goes to the author", () => {
    expect(splitAmount(10n, [{ key: "bob", weight: 1n }, { key: "carol", weight: 1n }, { key: "dave", weight: 1n }], "bob")).toEqual([
      { key: "bob", amount: 4n },
      { key: "carol", amount: 3n },
      { key: "dave", amount: 3n },
    ]);
  });
  test("the remainder goes to the author wherever they are listed", () => {
    expect(splitAmount(10n, [{ key: "carol", weight: 1n }, { key: "bob", weight: 1n }, { key: "dave", weight: 1n }], "bob").find((p) => p.key === "bob")!.amount).toBe(4n);
  });
  test("the author left out: the first person listed takes the remainder", () => {
    expect(splitAmount(10n, [{ key: "carol", weight: 6000n }, { key: "dave", weight: 4000n }], "bob")).toEqual([
      { key: "carol", amount: 6n },
      { key: "dave", amount: 4n },
    ]);
    expect(splitAmount(1n, [{ key: "carol", weight: 5000n }, { key: "dave", weight: 5000n }], "bob")).toEqual([
      { key: "carol", amount: 1n },
      { key: "dave", amount: 0n },
    ]);
  });
  test("percentages of 2.5 XDC", () => {
    expect(splitAmount(2_500_000_000_000_000_000n, [{ key: "bob", weight: 6000n }, { key: "carol", weight: 4000n }], "bob")).toEqual([
      { key: "bob", amount: 1_500_000_000_000_000_000n },
      { key: "carol", amount: 1_000_000_000_000_000_000n },
    ]);
  });
  test("refuses what cannot be split", () => {
    expect(() => splitAmount(1n, [], "bob")).toThrow();
    expect(() => splitAmount(1n, [{ key: "bob", weight: 0n }], "bob")).toThrow();
    expect(() => splitAmount(-1n, [{ key: "bob", weight: 1n }], "bob")).toThrow();
  });
  test("property: the shares always sum to the whole, none negative, each within one unit of its exact part (the author within n)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.array(fc.bigInt({ min: 1n, max: 10_000n }), { minLength: 1, maxLength: 11 }),
        fc.nat(),
        (amount, weights, authorAt) => {
          const shares = weights.map((weight, i) => ({ key: i, weight }));
          const author = authorAt % (weights.length + 1); // sometimes nobody listed is the author
          const parts = splitAmount(amount, shares, author);
          const total = weights.reduce((a, b) => a + b, 0n);
          expect(parts.reduce((s, p) => s + p.amount, 0n)).toBe(amount);
          const receiver = author < weights.length ? author : 0;
          parts.forEach((p, i) => {
            const exact = (amount * weights[i]!) / total;
            expect(p.amount).toBeGreaterThanOrEqual(0n);
            if (i === receiver) expect(p.amount - exact).toBeLessThan(BigInt(weights.length));
            else expect(p.amount).toBe(exact);
          });
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("percentages", () => {
  const cases: [string, bigint | undefined][] = [["60", 6000n], ["33.33", 3333n], ["0.5", 50n], ["100", 10000n], ["0", undefined], ["100.01", undefined], ["1.234", undefined], ["-5", undefined], ["1e2", undefined], ["", undefined], ["６０", undefined]];
  for (const [text, bps] of cases) test(`${JSON.stringify(text)} -> ${bps}`, () => expect(percentToBps(text)).toBe(bps));
  test("shown back", () => {
    expect(bpsToPercent(6000n)).toBe("60");
    expect(bpsToPercent(3333n)).toBe("33.33");
    expect(bpsToPercent(50n)).toBe("0.5");
  });
});

describe("/split", () => {
  const ok = (body: string) => {
    const parsed = parseSplitCommand(body);
    if (parsed?.kind !== "split") throw new Error(`not a split: ${JSON.stringify(parsed)}`);
    return parsed.entries.map((e) => [e.login, e.bps]);
  };
  test("the usual form, and with % signs", () => {
    expect(ok("/split @bob 60 @carol 40")).toEqual([["bob", 6000n], ["carol", 4000n]]);
    expect(ok("/SPLIT  @bob 33.34%  @carol 33.33% @dave 33.33\nthanks all")).toEqual([["bob", 3334n], ["carol", 3333n], ["dave", 3333n]]);
    expect(ok("/split @bob 100")).toEqual([["bob", 10000n]]);
  });
  test("not a /split", () => {
    expect(parseSplitCommand("/splits @bob 100")).toBeUndefined();
    expect(parseSplitCommand("please /split @bob 100")).toBeUndefined();
    expect(parseSplitCommand("Thanks!\n/split @bob 100")).toBeUndefined();
  });
  const refused: [string, RegExp][] = [
    ["/split", /Usage/],
    ["/split @bob 60 @carol 30", /add up to 90/],
    ["/split @bob 60 @carol 50", /add up to 110/],
    ["/split @bob 60 @Bob 40", /named twice/],
    ["/split bob 60 carol 40", /not a GitHub login/],
    ["/split @bob sixty @carol 40", /not a percentage/],
    ["/split @bob 0 @carol 100", /not a percentage/],
    ["/split @bob 60 @carol", /Usage/],
    ["/split @-bob 60 @carol 40", /not a GitHub login/],
    ["/split @dependabot[bot] 60 @carol 40", /not a GitHub login/],
    ["/split @bob 60.001 @carol 39.999", /not a percentage/],
    [`/split ${Array.from({ length: 12 }, (_, i) => `@u${i} ${i < 4 ? "8.37" : "8.29"}`).join(" ")}`, /at most 11 people/],
  ];
  for (const [body, reason] of refused) {
    test(`refused: ${body.slice(0, 50)}`, () => {
      const parsed = parseSplitCommand(body);
      expect(parsed?.kind).toBe("invalid");
      expect(parsed?.kind === "invalid" && parsed.reason).toMatch(reason);
    });
  }
});

describe("/tip", () => {
  test("the usual forms", () => {
    expect(parseTipCommand("/tip 10 XDC @bob")).toEqual({ kind: "tip", amount: "10", currency: "XDC", login: "bob" });
    expect(parseTipCommand("/tip 2.5 usdc @carol\nthank you")).toEqual({ kind: "tip", amount: "2.5", currency: "USDC", login: "carol" });
    expect(parseTipCommand("/tip @carol 3")).toEqual({ kind: "tip", amount: "3", currency: "XDC", login: "carol" });
  });
  test("not a /tip", () => {
    expect(parseTipCommand("/tipping 10 XDC @bob")).toBeUndefined();
    expect(parseTipCommand("a /tip 10 XDC @bob")).toBeUndefined();
  });
  const refused = ["/tip", "/tip 10 XDC", "/tip 10 XDC @bob @carol", "/tip ten XDC @bob", "/tip 10 DOGE @bob", "/tip 0 XDC @bob", "/tip -1 XDC @bob", "/tip 1e3 XDC @bob", "/tip 10 XDC @-x", "/tip 10 XDC extra @bob", "/tip 1.1234567890123456789 XDC @bob"];
  for (const body of refused) test(`refused: ${body}`, () => expect(parseTipCommand(body)?.kind).toBe("invalid"));
});
