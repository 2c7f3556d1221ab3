import { describe, expect, test } from "bun:test";
import {
  assignDemoReward,
  contributionDemoIssues,
  demoFunding,
  demoFundingMax,
  demoFundingProblem,
  demoStatus,
  fundingDemoIssues,
  rupeesFor,
  suggestedReward,
} from "./onboarding-demo.ts";

describe("onboarding demo data", () => {
  test("the contribution demo has one issue of each type with the rewards 10, 50 and 100, all funded", () => {
    const issues = contributionDemoIssues();
    expect(issues.map((i) => [i.type, i.reward, demoStatus(i)])).toEqual([
      ["minor-bug", 10, "funded"],
      ["major-bug", 50, "funded"],
      ["feature", 100, "funded"],
    ]);
    expect(issues[1]!.steps).toContain("Open a pull request that says “Fixes #27”");
  });

  test("the funding demo's issues are open until a reward is set", () => {
    expect(fundingDemoIssues().every((i) => demoStatus(i) === "open")).toBe(true);
    expect(suggestedReward("major-bug")).toBe(50);
  });

  test("3 rupees per ROXN", () => {
    expect(rupeesFor(50)).toBe(150);
  });
});

describe("demo funding", () => {
  test("is capped at the smaller of the balance and 1000", () => {
    expect(demoFundingMax(2000)).toBe(1000);
    expect(demoFundingMax(400.5)).toBe(400.5);
    expect(demoFundingMax(-1)).toBe(0);
  });

  test("takes the 0.5 % fee", () => {
    expect(demoFunding(1000)).toEqual({ amount: 1000, fee: 5, net: 995 });
    expect(demoFunding(1.01)).toEqual({ amount: 1.01, fee: 0.0051, net: 1.0049 });
  });

  test("refuses what the real form refuses", () => {
    expect(demoFundingProblem(0, 2000)).toBe("Enter an amount above 0.");
    expect(demoFundingProblem(1, 2000)).toBe("Minimum is > 1 XDC");
    expect(demoFundingProblem(1500, 2000)).toBe("Remaining: 1000 XDC.");
    expect(demoFundingProblem(500, 400)).toBe("The demo wallet does not hold that much.");
    expect(demoFundingProblem(1000, 2000)).toBeNull();
  });

  test("a reward comes out of the pool once, never beyond it", () => {
    const issues = fundingDemoIssues();
    const first = assignDemoReward(issues, 27, 50, 60)!;
    expect(first.pool).toBe(10);
    expect(demoStatus(first.issues.find((i) => i.number === 27)!)).toBe("funded");
    expect(assignDemoReward(first.issues, 27, 10, first.pool)).toBeNull();
    expect(assignDemoReward(first.issues, 41, 100, first.pool)).toBeNull();
    expect(assignDemoReward(first.issues, 99, 1, first.pool)).toBeNull();
  });
});
