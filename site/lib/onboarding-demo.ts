/**
 * The simulated data and rules of the onboarding demos (spec sections 3, 5
 * and 9, "Demo"): fake issues with a type, a reward and steps; an issue is
 * open until a reward is set, then funded. Nothing here touches the chain or
 * the server: the demos teach the flow with numbers that cannot be mistaken
 * for a real balance.
 */
export const DEMO_STEP_MS = 1500;
export const DEMO_REWARDS = [10, 50, 100] as const;
export const DEMO_RUPEES_PER_ROXN = 3;
export const DEMO_WALLET_XDC = 2000;
/** The daily funding limit of a repository, which the demo's funding respects too. */
export const DEMO_FUNDING_CAP_XDC = 1000;
/** The platform fee on funding: 0.5 % (50 basis points). */
export const DEMO_FEE_BPS = 50;

export type DemoIssueType = "minor-bug" | "major-bug" | "feature";

export interface DemoIssue {
  number: number;
  title: string;
  type: DemoIssueType;
  /** The reward once set; null while the issue is open. */
  reward: number | null;
  steps: string[];
}

export const demoStatus = (issue: Pick<DemoIssue, "reward">): "open" | "funded" => (issue.reward !== null && issue.reward > 0 ? "funded" : "open");

const CONTRIBUTION_STEPS = [
  "Comment /attempt on the issue to claim it",
  "Fork the repository and write the fix",
  "Open a pull request that says “Fixes #{number}”",
  "The maintainer reviews and merges it",
  "The reward is paid to your wallet",
];

function stepsFor(number: number): string[] {
  return CONTRIBUTION_STEPS.map((step) => step.replace("{number}", String(number)));
}

/** The Contribution Demo's issues: one of each type, with the spec's rewards (in ROXN). */
export function contributionDemoIssues(): DemoIssue[] {
  return [
    { number: 12, title: "Fix the typo in the installation guide", type: "minor-bug", reward: DEMO_REWARDS[0], steps: stepsFor(12) },
    { number: 27, title: "Balance shows NaN after switching networks", type: "major-bug", reward: DEMO_REWARDS[1], steps: stepsFor(27) },
    { number: 41, title: "Add a dark theme to the dashboard", type: "feature", reward: DEMO_REWARDS[2], steps: stepsFor(41) },
  ];
}

/** The Funding Demo's issues: open until the pool manager sets a reward. */
export function fundingDemoIssues(): DemoIssue[] {
  return contributionDemoIssues().map((issue) => ({ ...issue, reward: null }));
}

/** The reward of a demo issue type: 10 for a minor bug, 50 for a major one, 100 for a feature. */
export function suggestedReward(type: DemoIssueType): number {
  return type === "minor-bug" ? DEMO_REWARDS[0] : type === "major-bug" ? DEMO_REWARDS[1] : DEMO_REWARDS[2];
}

export const rupeesFor = (roxn: number): number => roxn * DEMO_RUPEES_PER_ROXN;

/** The most the demo lets you fund: the wallet's balance, at most the daily limit. */
export const demoFundingMax = (balance: number): number => Math.max(0, Math.min(balance, DEMO_FUNDING_CAP_XDC));

export interface DemoFunding {
  amount: number;
  fee: number;
  net: number;
}

/** Splits a funding into the platform's fee and what reaches the pool, to 4 decimals as the XDC display. */
export function demoFunding(amount: number): DemoFunding {
  const fee = Math.round((amount * DEMO_FEE_BPS) / 10_000 * 10_000) / 10_000;
  return { amount, fee, net: Math.round((amount - fee) * 10_000) / 10_000 };
}

/**
 * Why a demo funding amount cannot go through, or null when it can. The
 * texts are the real funding form's, so the demo teaches the same rules.
 */
export function demoFundingProblem(amount: number, balance: number): string | null {
  if (!Number.isFinite(amount) || amount <= 0) return "Enter an amount above 0.";
  if (amount <= 1) return "Minimum is > 1 XDC";
  if (amount > balance) return "The demo wallet does not hold that much.";
  if (amount > DEMO_FUNDING_CAP_XDC) return `Remaining: ${DEMO_FUNDING_CAP_XDC} XDC.`;
  return null;
}

/** Sets a reward on one demo issue, taking it from the pool; null when the pool is too small. */
export function assignDemoReward(issues: DemoIssue[], number: number, reward: number, pool: number): { issues: DemoIssue[]; pool: number } | null {
  const issue = issues.find((i) => i.number === number);
  if (!issue || issue.reward !== null || reward <= 0 || reward > pool) return null;
  return {
    issues: issues.map((i) => (i.number === number ? { ...i, reward } : i)),
    pool: Math.round((pool - reward) * 10_000) / 10_000,
  };
}
