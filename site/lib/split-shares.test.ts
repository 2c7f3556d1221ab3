import { expect, test } from "bun:test";
import { percentToBasisPoints, sharesTotal } from "./split-shares.ts";

test("shares are saveable only when they add up to exactly 100 % (issue 38)", () => {
  expect(sharesTotal([{ login: "bob", percent: "60" }, { login: "carol", percent: "30" }])).toEqual({ percent: 90, saveable: false });
  expect(sharesTotal([{ login: "bob", percent: "60" }, { login: "carol", percent: "40" }])).toEqual({ percent: 100, saveable: true });
  // Thirds as people type them: exact, no float drift.
  expect(sharesTotal([{ login: "a", percent: "33.33" }, { login: "b", percent: "33.33" }, { login: "c", percent: "33.34" }]).saveable).toBe(true);
  expect(sharesTotal([{ login: "a", percent: "33.333" }, { login: "b", percent: "66.667" }]).saveable).toBe(false);
  expect(sharesTotal([{ login: "bob", percent: "100" }, { login: "carol", percent: "lots" }]).saveable).toBe(false);
  // An empty row (no login yet) does not count; no rows at all cannot be saved.
  expect(sharesTotal([{ login: "bob", percent: "100" }, { login: " ", percent: "" }]).saveable).toBe(true);
  expect(sharesTotal([]).saveable).toBe(false);
  expect(percentToBasisPoints("100.01")).toBeNull();
});
