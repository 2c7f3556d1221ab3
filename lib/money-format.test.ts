import { expect, test } from "bun:test";
import { bountyText, formatFull } from "./money-format.ts";
test("a bounty reads the same everywhere: never rounded, the token's decimals at least, its parts adding up", () => {
  expect(formatFull(54975n * 10n ** 15n, "XDC")).toBe("54.9750");
  expect(formatFull(10n ** 14n, "ROXN")).toBe("0.0001");
  expect(formatFull(10n ** 18n + 1n, "XDC")).toBe("1.000000000000000001");
  expect(formatFull(1234n * 10n ** 18n, "XDC")).toBe("1,234.0000");
  expect(formatFull(20n * 10n ** 6n, "USDC")).toBe("20.00");
  expect(bountyText({ currency: "XDC", pool: 50n * 10n ** 18n, funders: 4975n * 10n ** 15n, funderCount: 1 })).toEqual({ total: "54.9750 XDC", breakdown: "50.0000 XDC from the pool + 4.9750 XDC from 1 funder" });
});
