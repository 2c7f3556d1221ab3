import { describe, expect, test } from "bun:test";
import { poolBadge } from "./repo-list.ts";

const xdc = (n: string) => BigInt(n) * 10n ** 18n;
const usdc = (n: string) => BigInt(n) * 10n ** 6n;

describe("the pool badge of a /repos card", () => {
  test("XDC first, in 4 decimals", () => {
    expect(poolBadge({ XDC: xdc("149"), ROXN: xdc("596"), USDC: usdc("10") })).toBe("149.0000 XDC");
  });
  test("ROXN when XDC is zero, in 2 decimals", () => {
    expect(poolBadge({ XDC: 0n, ROXN: xdc("596"), USDC: usdc("10") })).toBe("596.00 ROXN");
  });
  test("USDC when it is the only currency funded, in 2 decimals (issue 27: it read '0.0 XDC')", () => {
    expect(poolBadge({ XDC: 0n, ROXN: 0n, USDC: 99_500_000n })).toBe("99.50 USDC");
  });
  test("nothing funded: the spec's '0.0 XDC'", () => {
    expect(poolBadge({ XDC: 0n, ROXN: 0n, USDC: 0n })).toBe("0.0 XDC");
  });
  test("thousands are grouped the same way in every currency", () => {
    expect(poolBadge({ XDC: xdc("1250"), ROXN: 0n, USDC: 0n })).toBe("1,250.0000 XDC");
    expect(poolBadge({ XDC: 0n, ROXN: 0n, USDC: usdc("1250") })).toBe("1,250.00 USDC");
  });
});
