import { describe, expect, test } from "bun:test";
import {
  bountyProblem,
  feeBreakdown,
  isLowRoxnBalance,
  isSubmittableAmount,
  maxXdcFunding,
  needsRoxnApproval,
  parseAmount,
  roxnFundingProblem,
  toPlainDecimal,
  xdcFundingProblem,
} from "./funding-rules.ts";

const xdc = (text: string) => parseAmount(text, "XDC")!;
const roxn = (text: string) => parseAmount(text, "ROXN")!;

describe("parseAmount", () => {
  test("reads plain decimals into the smallest unit", () => {
    expect(parseAmount("1250.5", "XDC")).toBe(1250_500000000000000000n);
    expect(parseAmount(".5", "XDC")).toBe(5n * 10n ** 17n);
    expect(parseAmount("2.", "USDC")).toBe(2_000000n);
    expect(parseAmount(" 0.0001 ", "ROXN")).toBe(10n ** 14n);
    expect(parseAmount("1.500000", "USDC")).toBe(1_500000n);
  });
  test("refuses signs, exponents, empty text and more decimals than the token has", () => {
    for (const text of ["", ".", "-1", "+1", "1e18", "1,5", "abc", "1.0000001"]) expect(parseAmount(text, "USDC")).toBeNull();
    expect(parseAmount("0.0000000000000000001", "XDC")).toBeNull();
  });
  test("round-trips through toPlainDecimal", () => {
    for (const text of ["0", "1.01", "1199.9", "0.0001", "123456789.123456789012345678"]) {
      expect(toPlainDecimal(parseAmount(text, "XDC")!, "XDC")).toBe(text);
    }
  });
});

describe("XDC funding (spec section 5)", () => {
  const base = { balance: xdc("500"), remainingLimit: xdc("1000"), repositoryFullName: "o/r" };
  test("1 XDC or less is refused with the spec's title and sentence", () => {
    expect(xdcFundingProblem({ ...base, amount: xdc("1") })).toEqual({ title: "Minimum funding amount not met", message: "Minimum is > 1 XDC" });
    expect(xdcFundingProblem({ ...base, amount: xdc("0.5") })?.title).toBe("Minimum funding amount not met");
    expect(xdcFundingProblem({ ...base, amount: xdc("1.01") })).toBeNull();
  });
  test("0.1 XDC must stay for gas", () => {
    expect(xdcFundingProblem({ ...base, amount: xdc("499.9") })).toBeNull();
    expect(xdcFundingProblem({ ...base, amount: xdc("499.91") })).toEqual({ title: "Insufficient funds for gas", message: "Leave at least 0.1 XDC for gas." });
    // Issue 11 item 10: an empty wallet is told its balance, not a gas shortage.
    expect(xdcFundingProblem({ ...base, balance: 0n, amount: xdc("5") })).toEqual({ title: "Insufficient XDC Balance", message: "Your XDC balance is 0.0000 XDC." });
    expect(xdcFundingProblem({ ...base, amount: xdc("500.5") })?.title).toBe("Insufficient XDC Balance");
  });
  test("the remaining daily limit caps the amount", () => {
    const problem = xdcFundingProblem({ ...base, balance: xdc("5000"), remainingLimit: xdc("700.5"), amount: xdc("700.51") });
    expect(problem).toEqual({ title: "Exceeds daily funding limit", message: "Remaining: 700.5000 XDC." });
    expect(xdcFundingProblem({ ...base, balance: xdc("5000"), remainingLimit: xdc("1000"), amount: xdc("1000") })).toBeNull();
  });
  test("nothing positive, or no repository, is refused", () => {
    expect(xdcFundingProblem({ ...base, amount: null })?.message).toBe("Please enter a valid XDC amount.");
    expect(xdcFundingProblem({ ...base, amount: 0n })?.title).toBe("Invalid Amount");
    expect(xdcFundingProblem({ ...base, amount: xdc("5"), repositoryFullName: "" })?.message).toBe("Repository details missing.");
  });
  test("Max: balance minus 0.1, capped by the remaining limit, never below 1.01", () => {
    expect(maxXdcFunding(xdc("500"), xdc("1000"))).toBe(xdc("499.9"));
    expect(maxXdcFunding(xdc("1200"), xdc("1000"))).toBe(xdc("1000"));
    expect(maxXdcFunding(xdc("1200"), null)).toBe(xdc("1199.9"));
    expect(maxXdcFunding(xdc("0.5"), xdc("1000"))).toBe(xdc("1.01"));
    expect(maxXdcFunding(xdc("500"), 0n)).toBe(xdc("1.01"));
  });
});

describe("ROXN funding (spec section 5)", () => {
  test("above zero and within the balance", () => {
    expect(roxnFundingProblem({ amount: 0n, balance: roxn("10"), repositoryFullName: "o/r" })).toEqual({ title: "Invalid Amount", message: "Please enter a valid ROXN amount." });
    expect(roxnFundingProblem({ amount: roxn("10.01"), balance: roxn("10"), repositoryFullName: "o/r" })).toEqual({
      title: "Insufficient ROXN Balance",
      message: "Your ROXN balance is 10.00 ROXN.",
    });
    expect(roxnFundingProblem({ amount: roxn("10"), balance: roxn("10"), repositoryFullName: "o/r" })).toBeNull();
  });
  test("approval first when the allowance does not cover the amount", () => {
    expect(needsRoxnApproval(roxn("100"), roxn("99.9999"))).toBe(true);
    expect(needsRoxnApproval(roxn("100"), roxn("100"))).toBe(false);
    expect(needsRoxnApproval(roxn("100"), null)).toBe(true);
    expect(needsRoxnApproval(null, 0n)).toBe(false);
  });
  test("a balance of 0.0001 ROXN or less is low", () => {
    expect(isLowRoxnBalance(roxn("0.0001"))).toBe(true);
    expect(isLowRoxnBalance(roxn("0.0002"))).toBe(false);
  });
});

test("the fee is 0.5% of the gross, rounded down like the contract", () => {
  expect(feeBreakdown(xdc("100"))).toEqual({ gross: xdc("100"), fee: xdc("0.5"), net: xdc("99.5") });
  expect(feeBreakdown(199n)).toEqual({ gross: 199n, fee: 0n, net: 199n });
  expect(feeBreakdown(200n)).toEqual({ gross: 200n, fee: 1n, net: 199n });
});

describe("Set Bounty (spec section 5)", () => {
  test("below the currency's minimum (but not zero)", () => {
    expect(bountyProblem({ amount: xdc("0.99"), currency: "XDC", pool: xdc("10") })).toEqual({
      title: "Invalid Amount",
      message: "Minimum bounty must be at least 1 XDC",
    });
    expect(bountyProblem({ amount: 10n ** 13n, currency: "ROXN", pool: null })?.message).toBe("Minimum bounty must be at least 0.0001 ROXN");
    expect(bountyProblem({ amount: 99n, currency: "USDC", pool: null })?.message).toBe("Minimum bounty must be at least 0.0001 USDC");
    expect(bountyProblem({ amount: 0n, currency: "XDC", pool: xdc("10") })).toBeNull();
    expect(bountyProblem({ amount: xdc("1"), currency: "XDC", pool: xdc("10") })).toBeNull();
  });
  test("above the pool: the message with 4 decimals, and the field set to the pool balance", () => {
    expect(bountyProblem({ amount: xdc("12"), currency: "XDC", pool: xdc("9.95") })).toEqual({
      title: "Invalid Amount",
      message: "Amount cannot exceed available XDC pool balance (9.9500 XDC)",
      clampTo: "9.95",
    });
    expect(bountyProblem({ amount: 2_000000n, currency: "USDC", pool: 1_500000n })?.clampTo).toBe("1.5");
  });
  test("empty, zero or negative amounts cannot be submitted", () => {
    for (const text of ["", "0", "0.00", "-1", "abc"]) expect(isSubmittableAmount(text, "XDC")).toBe(false);
    expect(isSubmittableAmount("0.0001", "ROXN")).toBe(true);
  });
});
