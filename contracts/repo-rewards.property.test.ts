/**
 * Model-based property test of RepoRewards (v3): random sequences of fund,
 * allocate, claim, cancel, pay and withdraw steps, and v3's boosts (with
 * expiries), funders' withdrawals and refunds, cancellations of the pool's
 * share, split payouts, tips and escrowed tips (some while paused), by
 * random actors, across several repositories and all three currencies; with
 * small outflow caps (so payouts and withdrawals get queued), days passing on
 * anvil's clock (caps refill, queued outflows and claimed bounties' refunds
 * become due), queued outflows run or cancelled by the guardian, and money
 * forced into the contract then swept by the admin. A plain TypeScript model
 * predicts each step's outcome (including which custom error it reverts
 * with); the contract must agree, and after every step the money must add
 * up: held >= owed, owed = pools + open (claimed or not) bounties (pool's
 * share + funders' shares) + funders' shares of cancelled bounties not yet
 * refunded + escrowed tips + queued outflows, held - owed = what was forced in
 * and not swept, every payee got exactly what the model paid it (nothing paid
 * twice; a split's shares sum to the bounty), and every funder got back
 * exactly their refunded shares. The contract runs with the production payout
 * delay (1 hour) and small new-recipient thresholds: the model pays young
 * money, and new addresses above the threshold, only through the queue after
 * the window, so a stolen operator key moves at most the caps, and nothing
 * within the window.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getContract,
  http,
  maxUint256,
  zeroAddress,
  type Account,
  type Address,
  type Hash,
} from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const MAX_STEPS = 60;
/** Time for all RUNS (about 25 s on an idle machine) and for shrinking a failure. */
const TIME_LIMIT_MS = 240_000;

const CURRENCIES = [0, 1, 2] as const;
type Currency = (typeof CURRENCIES)[number];
/** One amount per currency, indexed by Currency. */
type PerCurrency = [bigint, bigint, bigint];
const MINIMUM: Record<Currency, bigint> = { 0: 10n ** 18n, 1: 10n ** 14n, 2: 100n };
const FEE_BPS = 50n;
const [OPEN, PAID, CANCELLED, QUEUED] = [1, 2, 3, 4] as const;
/** Small caps, so a few payouts reach them: per repository 4, in total 8 minimum bounties a day. */
const CAP_PER_REPO: Record<Currency, bigint> = { 0: 4n * 10n ** 18n, 1: 4n * 10n ** 14n, 2: 400n };
const CAP_TOTAL: Record<Currency, bigint> = { 0: 8n * 10n ** 18n, 1: 8n * 10n ** 14n, 2: 800n };
/**
 * A "day" step moves anvil's clock by the cap window and a second (yesterday's outflows no longer count), an
 * "hour" step by the payout delay and a second. The model keeps time in seconds from the run's start; the chain's
 * clock is that plus the run's wall-clock time (seconds), far less than the hour every comparison has to spare.
 */
const DAY_SECONDS = 24 * 3600 + 1;
const HOUR_SECONDS = 3600 + 1;
const HOUR = 3600;
const CAP_WINDOW = 24 * 3600;
const QUEUE_DELAY = 2 * 24 * 3600;
const CLAIM_CANCEL_DELAY = 3 * 24 * 3600;
const TIP_REFUND_DELAY = 30 * 24 * 3600;
/** Payouts above two minimum bounties to an address never paid wait the payout delay. */
const THRESHOLD: Record<Currency, bigint> = { 0: 2n * 10n ** 18n, 1: 2n * 10n ** 14n, 2: 200n };
const GITHUB_USER = 7n;

const REPOS = [1_001n, 2_002n, 3_003n] as const;
const ISSUES = [1n, 2n, 3n] as const;

const [admin, operator, feeCollector, managerA, managerB, outsider, contributor1, contributor2, treasury, guardian, funderA, funderB] = anvilAccounts(12) as [
  Account, Account, Account, Account, Account, Account, Account, Account, Account, Account, Account, Account,
];
/** Wallets that boost and tip; their balances move by what they send, their gas, and the refunds the model owes them. */
const FUNDERS = [funderA, funderB] as const;
/** Who acts. Manager A manages repositories 0 and 1, manager B 1 and 2. */
const ACTORS = [operator, managerA, managerB, outsider] as const;
const MANAGERS: Record<number, readonly Address[]> = {
  0: [managerA.address],
  1: [managerA.address, managerB.address],
  2: [managerB.address],
};
const RECIPIENTS = [contributor1.address, contributor2.address, zeroAddress] as const;
/** Accounts that never send transactions: their balances move only by what the contract sends them. */
const PAYEES = [contributor1.address, contributor2.address, treasury.address] as const;
const PASSIVE = [feeCollector.address, ...PAYEES] as const;

// ---- Steps ----

type FundAmount = { kind: "zero" } | { kind: "raw"; value: bigint } | { kind: "millionthsOfMinimum"; value: bigint };
type PoolAmount =
  | { kind: "zero" }
  | { kind: "belowMinimum" }
  | { kind: "minimum" }
  | { kind: "poolShareBps"; value: bigint }
  | { kind: "wholePool" }
  | { kind: "overPool" };
/**
 * Which pool or bounty a step targets. Focused picks choose among the pools
 * that can pay for the step (or the open bounties) of the moment, so that
 * allocations, payments and withdrawals mostly get past an empty target to
 * their interesting checks; unfocused picks choose among all of them.
 */
type Pick = { focus: boolean; index: number };

/** A step as generated: its targets and amounts are resolved against the model when it runs. */
type MoneyStep =
  | { kind: "fund"; actor: number; repo: number; currency: Currency; amount: FundAmount; xdcAsToken: boolean }
  | { kind: "allocate"; actor: number; pool: Pick; issue: number; amount: PoolAmount }
  | { kind: "claim"; actor: number; bounty: Pick; recipient: number }
  | { kind: "cancel"; actor: number; bounty: Pick }
  | { kind: "pay"; actor: number; bounty: Pick; recipient: number }
  | { kind: "withdraw"; actor: number; pool: Pick; amount: PoolAmount }
  | { kind: "execute"; index: number }
  | { kind: "boost"; funder: number; repo: number; issue: number; currency: Currency; amount: FundAmount; expiry: Expiry; xdcAsToken: boolean }
  | { kind: "withdrawBoost"; funder: number; bounty: Pick }
  | { kind: "refundBoost"; funder: number; bounty: Pick }
  | { kind: "cancelPoolShare"; actor: number; bounty: Pick }
  | { kind: "paySplit"; actor: number; bounty: Pick; split: Split }
  | { kind: "tip"; funder: number; recipient: number; currency: Currency; amount: FundAmount }
  | { kind: "escrowTip"; funder: number; currency: Currency; amount: FundAmount }
  | { kind: "payTip"; actor: number; index: number; recipient: number }
  | { kind: "refundTip"; byTipper: boolean; index: number };
/** A boost's expiry: none, in the past, or in some hours from now. */
type Expiry = { kind: "none" } | { kind: "past" } | { kind: "hours"; value: number };
/** How a split payout divides the bounty between the two contributors: equal shares (remainder to the first), or off by `delta`. */
type Split = { kind: "equal" } | { kind: "wrongSum"; delta: bigint } | { kind: "duplicate" };
/** Steps that run while paused as well: the guardian's cancel, the admin's sweep, forced-in money, time. */
type OtherStep =
  | { kind: "guardianCancel"; byGuardian: boolean; index: number }
  | { kind: "force"; currency: Currency; amount: bigint }
  | { kind: "sweep"; currency: Currency; byAdmin: boolean }
  | { kind: "day" }
  | { kind: "hour" };
/** whilePaused: the guardian pauses, the step is tried, the admin unpauses. */
type Step = MoneyStep | OtherStep | { kind: "whilePaused"; step: MoneyStep };

/** A step made concrete: exactly what is sent to the contract. */
type MoneyAction =
  | { kind: "fund"; actor: number; repo: number; currency: Currency; amount: bigint; xdcAsToken: boolean }
  | { kind: "allocate"; actor: number; repo: number; issue: number; currency: Currency; amount: bigint }
  | { kind: "claim"; actor: number; repo: number; issue: number; recipient: number }
  | { kind: "cancel"; actor: number; repo: number; issue: number }
  | { kind: "pay"; actor: number; repo: number; issue: number; recipient: number }
  | { kind: "withdraw"; actor: number; repo: number; currency: Currency; amount: bigint }
  | { kind: "execute"; id: bigint }
  | { kind: "boost"; funder: number; repo: number; issue: number; currency: Currency; amount: bigint; expiresAt: bigint; xdcAsToken: boolean }
  | { kind: "withdrawBoost"; funder: number; repo: number; issue: number }
  | { kind: "refundBoost"; funder: number; repo: number; issue: number }
  | { kind: "cancelPoolShare"; actor: number; repo: number; issue: number }
  | { kind: "paySplit"; actor: number; repo: number; issue: number; recipients: Address[]; amounts: bigint[] }
  | { kind: "tip"; funder: number; recipient: number; currency: Currency; amount: bigint }
  | { kind: "escrowTip"; funder: number; currency: Currency; amount: bigint }
  | { kind: "payTip"; actor: number; tipId: bigint; recipient: number }
  | { kind: "refundTip"; byTipper: boolean; tipId: bigint };
type OtherAction =
  | { kind: "guardianCancel"; byGuardian: boolean; id: bigint }
  | { kind: "force"; currency: Currency; amount: bigint }
  | { kind: "sweep"; currency: Currency; byAdmin: boolean }
  | { kind: "day" }
  | { kind: "hour" };
type Action = MoneyAction | OtherAction | { kind: "whilePaused"; action: MoneyAction };

// The outsider acts less often, so most steps get past the role checks.
const actor = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(0, 1, 2) }, { weight: 1, arbitrary: fc.constant(3) });
const repo = fc.integer({ min: 0, max: REPOS.length - 1 });
const issue = fc.integer({ min: 0, max: ISSUES.length - 1 });
const pick: fc.Arbitrary<Pick> = fc.record({
  focus: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  index: fc.nat({ max: 99 }),
});
const fundAmount: fc.Arbitrary<FundAmount> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "zero" as const }) },
  // Tiny amounts exercise the fee's rounding down (floor(199 * 50 / 10000) = 0).
  { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 20_000n }).map((value) => ({ kind: "raw" as const, value })) },
  { weight: 6, arbitrary: fc.bigInt({ min: 1n, max: 20_000_000n }).map((value) => ({ kind: "millionthsOfMinimum" as const, value })) },
);
const poolAmount: fc.Arbitrary<PoolAmount> = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom<PoolAmount>({ kind: "zero" }, { kind: "belowMinimum" }, { kind: "overPool" }) },
  { weight: 2, arbitrary: fc.constantFrom<PoolAmount>({ kind: "minimum" }, { kind: "wholePool" }) },
  { weight: 3, arbitrary: fc.bigInt({ min: 1n, max: 10_000n }).map((value): PoolAmount => ({ kind: "poolShareBps", value })) },
);
// Mostly real contributors; sometimes the zero address, which must be refused.
const recipient = fc.oneof({ weight: 9, arbitrary: fc.constantFrom(0, 1) }, { weight: 1, arbitrary: fc.constant(2) });

const funder = fc.constantFrom(0, 1);
const expiry: fc.Arbitrary<Expiry> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "past" as const }) },
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 48 }).map((value) => ({ kind: "hours" as const, value })) },
);
const split: fc.Arbitrary<Split> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({ kind: "equal" as const }) },
  { weight: 1, arbitrary: fc.constantFrom(-1n, 1n).map((delta) => ({ kind: "wrongSum" as const, delta })) },
  { weight: 1, arbitrary: fc.constant({ kind: "duplicate" as const }) },
);
const boostAmount: fc.Arbitrary<FundAmount> = fc.oneof(
  { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 999_999n }).map((value) => ({ kind: "millionthsOfMinimum" as const, value })) },
  { weight: 6, arbitrary: fc.bigInt({ min: 1_000_000n, max: 5_000_000n }).map((value) => ({ kind: "millionthsOfMinimum" as const, value })) },
);

const moneyStep: fc.Arbitrary<MoneyStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("fund" as const),
      actor,
      repo,
      currency: fc.constantFrom(...CURRENCIES),
      amount: fundAmount,
      xdcAsToken: fc.oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("allocate" as const), actor, pool: pick, issue, amount: poolAmount }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("cancel" as const), actor, bounty: pick }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("pay" as const), actor, bounty: pick, recipient }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), actor, pool: pick, amount: poolAmount }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("claim" as const), actor, bounty: pick, recipient }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("execute" as const), index: fc.nat({ max: 99 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("boost" as const),
      funder,
      repo,
      issue,
      currency: fc.constantFrom(...CURRENCIES),
      amount: boostAmount,
      expiry,
      xdcAsToken: fc.oneof({ weight: 19, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("withdrawBoost" as const), funder, bounty: pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("refundBoost" as const), funder, bounty: pick }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancelPoolShare" as const), actor, bounty: pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("paySplit" as const), actor, bounty: pick, split }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("tip" as const), funder, recipient, currency: fc.constantFrom(...CURRENCIES), amount: fundAmount }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("escrowTip" as const), funder, currency: fc.constantFrom(...CURRENCIES), amount: boostAmount }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("payTip" as const), actor, index: fc.nat({ max: 99 }), recipient }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("refundTip" as const),
      byTipper: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      index: fc.nat({ max: 99 }),
    }),
  },
);
const otherStep: fc.Arbitrary<OtherStep> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("guardianCancel" as const), byGuardian: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), index: fc.nat({ max: 99 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("force" as const), currency: fc.constantFrom(...CURRENCIES), amount: fc.bigInt({ min: 1n, max: 10n ** 15n }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sweep" as const), currency: fc.constantFrom(...CURRENCIES), byAdmin: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) }) },
  { weight: 4, arbitrary: fc.constant({ kind: "day" as const }) },
  { weight: 4, arbitrary: fc.constant({ kind: "hour" as const }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 19, arbitrary: moneyStep },
  { weight: 5, arbitrary: otherStep },
  { weight: 1, arbitrary: moneyStep.map((inner): Step => ({ kind: "whilePaused", step: inner })) },
);

// ---- Model ----

interface ModelBoost {
  amount: bigint;
  /** Model seconds; null: never. */
  expiresAt: number | null;
  /** When a requested withdrawal (claimed bounty) was requested; null: none. */
  withdrawRequestedAt: number | null;
}

interface ModelBounty {
  currency: Currency;
  /** Pool's share + funders' shares; a cancelled bounty keeps its last amount. */
  amount: bigint;
  poolShare: bigint;
  /** The current round's funders' shares (refunded ones at 0), in the order of their first boost. */
  boosts: Map<Address, ModelBoost>;
  status: number;
  recipient: Address;
  /** When its refund was requested (a claimed bounty), and of what; null: none. */
  cancelRequest: { at: number; whole: boolean } | null;
  /** Before this (model seconds), its payout waits in the queue. */
  payableAt: number;
}

interface ModelOutflow {
  id: bigint;
  kind: "withdrawal" | "payout" | "tip";
  repo: number;
  issue: number | null;
  tip: number | null;
  currency: Currency;
  amount: bigint;
  to: Address;
  shares: { to: Address; amount: bigint }[];
  readyAt: number;
}

interface ModelTip {
  tipper: Address;
  currency: Currency;
  amount: bigint;
  createdAt: number;
  status: "held" | "queued" | "paid" | "refunded";
}

const ALL_POOLS = REPOS.flatMap((_, repoIndex) => CURRENCIES.map((currencyId) => ({ repo: repoIndex, currency: currencyId })));
const ALL_BOUNTIES = REPOS.flatMap((_, repoIndex) => ISSUES.map((_, issueIndex) => ({ repo: repoIndex, issue: issueIndex })));
/** The caps' key of a tip payout (the contract's repository 0). */
const TIP_REPO = -1;

class Model {
  pools = REPOS.map((): PerCurrency => [0n, 0n, 0n]);
  bounties = new Map<string, ModelBounty>();
  /** Per currency: sum of floor(gross * 50 / 10000) over all fundings, boosts and tips. */
  fees: PerCurrency = [0n, 0n, 0n];
  /** What each payee has received (bounties, split shares, tips, withdrawals, sweeps), per currency. */
  received = new Map<Address, PerCurrency>(PAYEES.map((address) => [address, [0n, 0n, 0n]]));
  /** Per funder: what they sent (gross boosts and tips) and what came back to them (refunds), per currency. */
  funderSent = new Map<Address, PerCurrency>(FUNDERS.map((f) => [f.address, [0n, 0n, 0n]]));
  funderRefunded = new Map<Address, PerCurrency>(FUNDERS.map((f) => [f.address, [0n, 0n, 0n]]));
  /** Addresses this contract paid a bounty or a tip (payouts to others above THRESHOLD wait the window). */
  paidBefore = new Set<Address>();
  /** Who registered to work on each issue ("repo:issue"), whether or not it has a bounty. */
  claims = new Map<string, Set<Address>>();
  queue: ModelOutflow[] = [];
  nextOutflowId = 1n;
  tips: ModelTip[] = [];
  /** Seconds since the run's start (days and hours passed). */
  t = 0;
  /** Outflows counted against the caps, with when they left. */
  spent: { at: number; repo: number; currency: Currency; amount: bigint }[] = [];
  /** Money forced into the contract and not swept, per currency. */
  forced: PerCurrency = [0n, 0n, 0n];

  claimants(repoIndex: number, issueIndex: number): Set<Address> {
    const key = `${repoIndex}:${issueIndex}`;
    if (!this.claims.has(key)) this.claims.set(key, new Set());
    return this.claims.get(key)!;
  }

  /** Records the outflow against both caps if it fits both (the contract's _withinCaps, a sliding day). */
  withinCaps(repoIndex: number, currency: Currency, amount: bigint): boolean {
    const window = this.spent.filter((s) => this.t - s.at < CAP_WINDOW && s.currency === currency);
    const repoUsed = window.filter((s) => s.repo === repoIndex).reduce((sum, s) => sum + s.amount, 0n);
    const totalUsed = window.reduce((sum, s) => sum + s.amount, 0n);
    if (repoUsed + amount > CAP_PER_REPO[currency] || totalUsed + amount > CAP_TOTAL[currency]) return false;
    this.spent.push({ at: this.t, repo: repoIndex, currency, amount });
    return true;
  }

  /** The contract's _waitUntil for one more recipient: 0 when it may go at once. */
  waitUntil(maturity: number, readyAt: number, currency: Currency, to: Address, amount: bigint): number {
    if (maturity > this.t && maturity > readyAt) readyAt = maturity;
    if (!this.paidBefore.has(to) && amount > THRESHOLD[currency]) readyAt = Math.max(readyAt, this.t + HOUR);
    return readyAt;
  }

  queuedUntil(within: boolean, readyAt: number): number {
    return within ? readyAt : Math.max(readyAt, this.t + QUEUE_DELAY);
  }

  enqueue(outflow: Omit<ModelOutflow, "id">): void {
    this.queue.push({ ...outflow, id: this.nextOutflowId++ });
  }

  /** What the contract owes per currency. */
  owed(): PerCurrency {
    const owed: PerCurrency = [0n, 0n, 0n];
    for (const p of this.pools) for (const c of CURRENCIES) owed[c] += p[c];
    for (const b of this.bounties.values()) {
      if (b.status === OPEN || b.status === QUEUED) owed[b.currency] += b.amount;
      else if (b.status === CANCELLED) owed[b.currency] += boosted(b);
    }
    for (const tip of this.tips) if (tip.status === "held" || tip.status === "queued") owed[tip.currency] += tip.amount;
    for (const q of this.queue) if (q.kind === "withdrawal") owed[q.currency] += q.amount;
    return owed;
  }

  /** A queued outflow's id, or one that does not exist (an unfocused pick). */
  pickOutflow(index: number): bigint {
    return this.queue.length > 0 && index % 10 !== 0 ? this.queue[index % this.queue.length]!.id : this.nextOutflowId + BigInt(index % 3);
  }

  /** A tip's id (1-based), or one that does not exist. */
  pickTip(index: number): bigint {
    return this.tips.length > 0 && index % 10 !== 0 ? BigInt((index % this.tips.length) + 1) : BigInt(this.tips.length + 1 + (index % 2));
  }

  bounty(repoIndex: number, issueIndex: number): ModelBounty | undefined {
    return this.bounties.get(`${repoIndex}:${issueIndex}`);
  }

  canManage(actorIndex: number, repoIndex: number): boolean {
    return ACTORS[actorIndex] === operator || this.isManager(actorIndex, repoIndex);
  }

  isManager(actorIndex: number, repoIndex: number): boolean {
    return MANAGERS[repoIndex]!.includes(ACTORS[actorIndex]!.address);
  }

  credit(address: Address, currency: Currency, amount: bigint): void {
    if (this.funderRefunded.has(address)) this.funderRefunded.get(address)![currency] += amount;
    else this.received.get(address)![currency] += amount;
  }

  /** `atLeast`: the smallest balance a focused pick considers worth targeting. */
  pickPool({ focus, index }: Pick, atLeast: (currency: Currency) => bigint): { repo: number; currency: Currency } {
    const funded = ALL_POOLS.filter((p) => this.pools[p.repo]![p.currency]! >= atLeast(p.currency));
    const candidates = focus && funded.length > 0 ? funded : ALL_POOLS;
    return candidates[index % candidates.length]!;
  }

  /** Focused: an open bounty, or (`withBoosts`) one with funders' shares to refund. */
  pickBounty({ focus, index }: Pick, withBoosts = false): { repo: number; issue: number } {
    const wanted = ALL_BOUNTIES.filter((b) => {
      const bounty = this.bounty(b.repo, b.issue);
      return withBoosts ? bounty !== undefined && boosted(bounty) > 0n : bounty?.status === OPEN;
    });
    const candidates = focus && wanted.length > 0 ? wanted : ALL_BOUNTIES;
    return candidates[index % candidates.length]!;
  }
}

function boosted(bounty: ModelBounty): bigint {
  return [...bounty.boosts.values()].reduce((sum, b) => sum + b.amount, 0n);
}

function poolAmountOf(amount: PoolAmount, available: bigint, currencyId: Currency): bigint {
  switch (amount.kind) {
    case "zero":
      return 0n;
    case "belowMinimum":
      return MINIMUM[currencyId] - 1n;
    case "minimum":
      return MINIMUM[currencyId];
    case "poolShareBps":
      return (available * amount.value) / 10_000n;
    case "wholePool":
      return available;
    case "overPool":
      return available + 1n;
  }
}

function fundAmountOf(amount: FundAmount, currency: Currency): bigint {
  return amount.kind === "zero" ? 0n : amount.kind === "raw" ? amount.value : (amount.value * MINIMUM[currency]) / 1_000_000n;
}

/** The chain's timestamp at the run's start: expiries are absolute times. */
let runStart = 0n;

function resolve(model: Model, s: Step): Action {
  switch (s.kind) {
    case "whilePaused":
      return { kind: s.kind, action: resolveMoney(model, s.step) };
    case "guardianCancel":
      return { kind: s.kind, byGuardian: s.byGuardian, id: model.pickOutflow(s.index) };
    case "force":
    case "sweep":
    case "day":
    case "hour":
      return s;
    default:
      return resolveMoney(model, s);
  }
}

function resolveMoney(model: Model, s: MoneyStep): MoneyAction {
  switch (s.kind) {
    case "fund":
      return { ...s, amount: fundAmountOf(s.amount, s.currency) };
    case "allocate":
    case "withdraw": {
      const target = model.pickPool(s.pool, (c) => (s.kind === "allocate" ? MINIMUM[c] : 1n));
      const amount = poolAmountOf(s.amount, model.pools[target.repo]![target.currency]!, target.currency);
      return s.kind === "allocate"
        ? { kind: s.kind, actor: s.actor, ...target, issue: s.issue, amount }
        : { kind: s.kind, actor: s.actor, ...target, amount };
    }
    case "cancel":
      return { kind: s.kind, actor: s.actor, ...model.pickBounty(s.bounty) };
    case "pay":
      return { kind: s.kind, actor: s.actor, ...model.pickBounty(s.bounty), recipient: s.recipient };
    case "claim":
      return { kind: s.kind, actor: s.actor, ...model.pickBounty(s.bounty), recipient: s.recipient };
    case "execute":
      return { kind: s.kind, id: model.pickOutflow(s.index) };
    case "boost": {
      // Most boosts go in the currency of the issue's bounty, if it has one.
      const existing = model.bounty(s.repo, s.issue);
      const currency = existing && existing.status !== CANCELLED && !s.xdcAsToken ? existing.currency : s.currency;
      const seconds =
        s.expiry.kind === "none" ? null : s.expiry.kind === "past" ? model.t - 1 : model.t + s.expiry.value * HOUR;
      return {
        kind: s.kind,
        funder: s.funder,
        repo: s.repo,
        issue: s.issue,
        currency,
        amount: fundAmountOf(s.amount, currency),
        expiresAt: seconds === null ? 0n : runStart + BigInt(seconds),
        xdcAsToken: s.xdcAsToken,
      };
    }
    case "withdrawBoost":
    case "refundBoost":
      return { kind: s.kind, funder: s.funder, ...model.pickBounty(s.bounty, true) };
    case "cancelPoolShare":
      return { kind: s.kind, actor: s.actor, ...model.pickBounty(s.bounty) };
    case "paySplit": {
      const target = model.pickBounty(s.bounty);
      const total = model.bounty(target.repo, target.issue)?.amount ?? 2n;
      const recipients = s.split.kind === "duplicate" ? [contributor1.address, contributor1.address] : [contributor1.address, contributor2.address];
      // The platform's rule: equal shares, the rounding remainder to the PR's author (first).
      const half = total / 2n;
      const amounts = [total - half + (s.split.kind === "wrongSum" ? s.split.delta : 0n), half];
      return { kind: s.kind, actor: s.actor, ...target, recipients, amounts };
    }
    case "tip":
      return { ...s, amount: fundAmountOf(s.amount, s.currency) };
    case "escrowTip":
      return { ...s, amount: fundAmountOf(s.amount, s.currency) };
    case "payTip":
      return { kind: s.kind, actor: s.actor, tipId: model.pickTip(s.index), recipient: s.recipient };
    case "refundTip":
      return { kind: s.kind, byTipper: s.byTipper, tipId: model.pickTip(s.index) };
  }
}

/** The contract's _payout: shares already checked. */
function payout(model: Model, a: { repo: number; issue: number }, bounty: ModelBounty, shares: { to: Address; amount: bigint }[]): void {
  let readyAt = 0;
  for (const share of shares) readyAt = model.waitUntil(bounty.payableAt, readyAt, bounty.currency, share.to, share.amount);
  bounty.recipient = shares[0]!.to;
  bounty.cancelRequest = null;
  const within = model.withinCaps(a.repo, bounty.currency, bounty.amount);
  if (within && readyAt === 0) {
    bounty.status = PAID;
    for (const share of shares) {
      model.credit(share.to, bounty.currency, share.amount);
      model.paidBefore.add(share.to);
    }
  } else {
    bounty.status = QUEUED;
    model.enqueue({
      kind: "payout",
      repo: a.repo,
      issue: a.issue,
      tip: null,
      currency: bounty.currency,
      amount: bounty.amount,
      to: shares[0]!.to,
      shares,
      readyAt: model.queuedUntil(within, readyAt),
    });
  }
}

/** A funder's whole share back to them (the contract's _refund). */
function refund(model: Model, bounty: ModelBounty, funderAddress: Address): void {
  const share = bounty.boosts.get(funderAddress)!;
  model.credit(funderAddress, bounty.currency, share.amount);
  if (bounty.status === OPEN) {
    bounty.amount -= share.amount;
    if (bounty.amount === 0n) {
      bounty.status = CANCELLED;
      bounty.cancelRequest = null;
    }
  }
  share.amount = 0n;
  share.withdrawRequestedAt = null;
}

/** The claim delay of a cancellation: true when it may run now (else it was requested, or NotReady is returned). */
function cancelDue(model: Model, a: { repo: number; issue: number }, bounty: ModelBounty, whole: boolean): boolean | "NotReady" {
  if (model.claimants(a.repo, a.issue).size === 0) return true;
  const request = bounty.cancelRequest;
  if (request === null || request.whole !== whole) {
    bounty.cancelRequest = { at: model.t, whole };
    return false;
  }
  if (model.t - request.at < CLAIM_CANCEL_DELAY) return "NotReady";
  return true;
}

function endBounty(model: Model, repoIndex: number, bounty: ModelBounty): void {
  bounty.status = CANCELLED;
  bounty.cancelRequest = null;
  model.pools[repoIndex]![bounty.currency] += bounty.poolShare;
  bounty.poolShare = 0n;
}

/** A bounty (round) starting on an issue: the contract's _startRound. */
function startRound(model: Model, a: { repo: number; issue: number }, currency: Currency): ModelBounty | string {
  const existing = model.bounty(a.repo, a.issue);
  if (existing && existing.status !== CANCELLED) return "BountyExists";
  if (existing && boosted(existing) > 0n) return "BoostsOutstanding";
  const fresh: ModelBounty = {
    currency,
    amount: 0n,
    poolShare: 0n,
    boosts: new Map(),
    status: OPEN,
    recipient: zeroAddress,
    cancelRequest: null,
    payableAt: 0,
  };
  return fresh;
}

/**
 * Applies `a` to the model. Returns the custom error the contract must revert
 * with (the model is then unchanged), or null when the step must succeed.
 * The checks follow the contract's order: pause, role, arguments, state.
 */
function applyAction(model: Model, a: Action): string | null {
  switch (a.kind) {
    case "whilePaused":
      return "EnforcedPause";
    case "day":
      model.t += DAY_SECONDS;
      return null;
    case "hour":
      model.t += HOUR_SECONDS;
      return null;
    case "force":
      model.forced[a.currency] += a.amount;
      return null;
    case "sweep": {
      if (!a.byAdmin) return "AccessControlUnauthorizedAccount";
      const excess = model.forced[a.currency];
      if (excess === 0n) return "ZeroAmount";
      model.forced[a.currency] = 0n;
      model.credit(treasury.address, a.currency, excess);
      return null;
    }
    case "guardianCancel": {
      if (!a.byGuardian) return "AccessControlUnauthorizedAccount";
      const index = model.queue.findIndex((q) => q.id === a.id);
      if (index < 0) return "UnknownOutflow";
      const [outflow] = model.queue.splice(index, 1);
      if (outflow!.kind === "payout") {
        const bounty = model.bounty(outflow!.repo, outflow!.issue!)!;
        bounty.status = OPEN;
        bounty.recipient = zeroAddress;
      } else if (outflow!.kind === "tip") {
        model.tips[outflow!.tip! - 1]!.status = "held";
      } else {
        model.pools[outflow!.repo]![outflow!.currency] += outflow!.amount;
      }
      return null;
    }
    case "execute": {
      const index = model.queue.findIndex((q) => q.id === a.id);
      if (index < 0) return "UnknownOutflow";
      const outflow = model.queue[index]!;
      if (model.t < outflow.readyAt) return "NotReady";
      model.queue.splice(index, 1);
      if (outflow.kind === "payout") model.bounty(outflow.repo, outflow.issue!)!.status = PAID;
      if (outflow.kind === "tip") model.tips[outflow.tip! - 1]!.status = "paid";
      for (const share of outflow.shares) {
        model.credit(share.to, outflow.currency, share.amount);
        if (outflow.kind !== "withdrawal") model.paidBefore.add(share.to);
      }
      return null;
    }
    case "tip": {
      const recipientAddress = RECIPIENTS[a.recipient]!;
      if (recipientAddress === zeroAddress) return "ZeroAddress";
      if (a.amount === 0n) return "ZeroAmount";
      const fee = (a.amount * FEE_BPS) / 10_000n;
      if (a.amount - fee === 0n) return "ZeroAmount";
      model.fees[a.currency] += fee;
      model.funderSent.get(FUNDERS[a.funder]!.address)![a.currency] += a.amount;
      model.credit(recipientAddress, a.currency, a.amount - fee);
      return null;
    }
    case "escrowTip": {
      if (a.amount < MINIMUM[a.currency]) return "BelowMinimum";
      const fee = (a.amount * FEE_BPS) / 10_000n;
      model.fees[a.currency] += fee;
      model.funderSent.get(FUNDERS[a.funder]!.address)![a.currency] += a.amount;
      model.tips.push({ tipper: FUNDERS[a.funder]!.address, currency: a.currency, amount: a.amount - fee, createdAt: model.t, status: "held" });
      return null;
    }
    case "payTip": {
      if (ACTORS[a.actor] !== operator) return "AccessControlUnauthorizedAccount";
      const to = RECIPIENTS[a.recipient]!;
      if (to === zeroAddress) return "ZeroAddress";
      const tip = model.tips[Number(a.tipId) - 1];
      if (tip?.status !== "held") return "UnknownTip";
      const readyAt = model.waitUntil(tip.createdAt + HOUR, 0, tip.currency, to, tip.amount);
      const within = model.withinCaps(TIP_REPO, tip.currency, tip.amount);
      if (within && readyAt === 0) {
        tip.status = "paid";
        model.paidBefore.add(to);
        model.credit(to, tip.currency, tip.amount);
      } else {
        tip.status = "queued";
        model.enqueue({
          kind: "tip",
          repo: TIP_REPO,
          issue: null,
          tip: Number(a.tipId),
          currency: tip.currency,
          amount: tip.amount,
          to,
          shares: [{ to, amount: tip.amount }],
          readyAt: model.queuedUntil(within, readyAt),
        });
      }
      return null;
    }
    case "refundTip": {
      const tip = model.tips[Number(a.tipId) - 1];
      if (tip?.status !== "held") return "UnknownTip";
      if (!a.byTipper) return "NotTipper";
      if (model.t < tip.createdAt + TIP_REFUND_DELAY) return "NotReady";
      tip.status = "refunded";
      model.credit(tip.tipper, tip.currency, tip.amount);
      return null;
    }
  }
  const pool = model.pools[a.repo]!;
  switch (a.kind) {
    case "fund": {
      // Anyone may fund: money only comes in.
      if (a.currency === 0 && a.xdcAsToken) return "InvalidCurrency";
      if (a.amount === 0n) return "ZeroAmount";
      const fee = (a.amount * FEE_BPS) / 10_000n;
      pool[a.currency] += a.amount - fee;
      model.fees[a.currency] += fee;
      return null;
    }
    case "allocate": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const existing = model.bounty(a.repo, a.issue);
      let bounty: ModelBounty;
      if (existing?.status === OPEN) {
        if (existing.poolShare !== 0n) return "BountyExists";
        if (existing.currency !== a.currency) return "CurrencyMismatch";
        bounty = existing;
      } else {
        const started = startRound(model, a, a.currency);
        if (typeof started === "string") return started;
        bounty = started;
      }
      if (a.amount < MINIMUM[a.currency]) return "BelowMinimum";
      if (a.amount > pool[a.currency]!) return "InsufficientPool";
      pool[a.currency] -= a.amount;
      bounty.poolShare = a.amount;
      bounty.amount += a.amount;
      bounty.payableAt = model.t + HOUR;
      model.bounties.set(`${a.repo}:${a.issue}`, bounty);
      return null;
    }
    case "claim": {
      if (ACTORS[a.actor] !== operator) return "AccessControlUnauthorizedAccount";
      const recipientAddress = RECIPIENTS[a.recipient]!;
      if (recipientAddress === zeroAddress) return "ZeroAddress";
      model.claimants(a.repo, a.issue).add(recipientAddress);
      return null;
    }
    case "cancel": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      const due = cancelDue(model, a, bounty, true);
      if (due === "NotReady") return due;
      if (due) endBounty(model, a.repo, bounty);
      return null;
    }
    case "cancelPoolShare": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      if (bounty.poolShare === 0n) return "ZeroAmount";
      const due = cancelDue(model, a, bounty, false);
      if (due === "NotReady") return due;
      if (!due) return null;
      if (boosted(bounty) === 0n) {
        endBounty(model, a.repo, bounty);
        return null;
      }
      bounty.amount -= bounty.poolShare;
      pool[bounty.currency] += bounty.poolShare;
      bounty.poolShare = 0n;
      bounty.cancelRequest = null;
      return null;
    }
    case "pay":
    case "paySplit": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const bounty = model.bounty(a.repo, a.issue);
      let shares: { to: Address; amount: bigint }[];
      if (a.kind === "pay") {
        const recipientAddress = RECIPIENTS[a.recipient]!;
        if (recipientAddress === zeroAddress) return "ZeroAddress";
        if (bounty?.status !== OPEN) return "BountyNotOpen";
        shares = [{ to: recipientAddress, amount: bounty.amount }];
      } else {
        if (bounty?.status !== OPEN) return "BountyNotOpen";
        shares = a.recipients.map((to, i) => ({ to, amount: a.amounts[i]! }));
      }
      const claimants = model.claimants(a.repo, a.issue);
      const checkClaims = claimants.size > 0 && ACTORS[a.actor] !== operator;
      for (const [i, share] of shares.entries()) {
        if (share.amount <= 0n) return "ZeroAmount";
        if (shares.slice(0, i).some((s) => s.to === share.to)) return "DuplicateRecipient";
        if (checkClaims && !claimants.has(share.to)) return "NotClaimant";
      }
      if (shares.reduce((sum, s) => sum + s.amount, 0n) !== bounty.amount) return "SplitInvalid";
      payout(model, a, bounty, shares);
      return null;
    }
    case "withdraw": {
      if (!model.isManager(a.actor, a.repo)) return "NotPoolManager";
      if (a.amount === 0n) return "ZeroAmount";
      if (a.amount > pool[a.currency]!) return "InsufficientPool";
      pool[a.currency] -= a.amount;
      if (model.withinCaps(a.repo, a.currency, a.amount)) model.credit(treasury.address, a.currency, a.amount);
      else
        model.enqueue({
          kind: "withdrawal",
          repo: a.repo,
          issue: null,
          tip: null,
          currency: a.currency,
          amount: a.amount,
          to: treasury.address,
          shares: [{ to: treasury.address, amount: a.amount }],
          readyAt: model.t + QUEUE_DELAY,
        });
      return null;
    }
    case "boost": {
      if (a.currency === 0 && a.xdcAsToken) return "InvalidCurrency";
      const existing = model.bounty(a.repo, a.issue);
      let bounty: ModelBounty;
      if (existing?.status === OPEN) {
        if (existing.currency !== a.currency) return "CurrencyMismatch";
        bounty = existing;
      } else {
        const started = startRound(model, a, a.currency);
        if (typeof started === "string") return started;
        bounty = started;
      }
      if (a.amount < MINIMUM[a.currency]) return "BelowMinimum";
      const funderAddress = FUNDERS[a.funder]!.address;
      const expiresAt = a.expiresAt === 0n ? null : Number(a.expiresAt - runStart);
      const share = bounty.boosts.get(funderAddress);
      if (!share || share.amount === 0n) {
        // (A refunded funder's record is reset the way the contract's is: amount 0, a new expiry.)
        if (expiresAt !== null && expiresAt <= model.t) return "ExpiryInvalid";
      } else if (expiresAt !== null && (share.expiresAt === null || expiresAt < share.expiresAt)) {
        return "ExpiryInvalid";
      }
      const fee = (a.amount * FEE_BPS) / 10_000n;
      const netAmount = a.amount - fee;
      model.fees[a.currency] += fee;
      model.funderSent.get(funderAddress)![a.currency] += a.amount;
      if (!share || share.amount === 0n) {
        bounty.boosts.set(funderAddress, { amount: netAmount, expiresAt, withdrawRequestedAt: share?.withdrawRequestedAt ?? null });
      } else {
        share.amount += netAmount;
        if (expiresAt !== null) share.expiresAt = expiresAt;
      }
      bounty.amount += netAmount;
      bounty.payableAt = model.t + HOUR;
      model.bounties.set(`${a.repo}:${a.issue}`, bounty);
      return null;
    }
    case "withdrawBoost": {
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      const funderAddress = FUNDERS[a.funder]!.address;
      const share = bounty.boosts.get(funderAddress);
      if (!share || share.amount === 0n) return "NoShare";
      if (model.claimants(a.repo, a.issue).size > 0) {
        if (share.withdrawRequestedAt === null) {
          share.withdrawRequestedAt = model.t;
          return null;
        }
        if (model.t - share.withdrawRequestedAt < CLAIM_CANCEL_DELAY) return "NotReady";
      }
      refund(model, bounty, funderAddress);
      return null;
    }
    case "refundBoost": {
      const bounty = model.bounty(a.repo, a.issue);
      const funderAddress = FUNDERS[a.funder]!.address;
      const share = bounty?.boosts.get(funderAddress);
      if (!bounty || !share || share.amount === 0n) return "NoShare";
      if (bounty.status === CANCELLED) refund(model, bounty, funderAddress);
      else if (bounty.status === OPEN && share.expiresAt !== null && model.t >= share.expiresAt) refund(model, bounty, funderAddress);
      else return "NotRefundable";
      return null;
    }
  }
}

// ---- Chain ----

let chain: Anvil;
let dataDir: string;
let addresses: { roxn: Address; usdc: Address; repoRewards: Address };
let clients: ReturnType<typeof makeClients>;
let initialBalances: Map<Address, bigint[]>;

function makeClients(rpcUrl: string) {
  // Batching turns the ~30 reads of each invariant check into one HTTP request.
  const transport = http(rpcUrl, { batch: true });
  const publicClient = createPublicClient({ chain: anvilChain, transport, pollingInterval: 50 });
  const contractFor = (account: Account) =>
    getContract({
      address: addresses.repoRewards,
      abi: RepoRewardsAbi,
      client: { public: publicClient, wallet: createWalletClient({ account, chain: anvilChain, transport }) },
    });
  const tokenFor = (address: Address, account: Account) =>
    getContract({
      address,
      abi: TestUsdcAbi,
      client: { public: publicClient, wallet: createWalletClient({ account, chain: anvilChain, transport }) },
    });
  return {
    publicClient,
    testClient: createTestClient({ chain: anvilChain, mode: "anvil", transport }),
    rewards: new Map([admin, guardian, ...ACTORS, ...FUNDERS].map((account) => [account, contractFor(account)])),
    tokenFor,
  };
}

async function balancesOf(address: Address): Promise<bigint[]> {
  return Promise.all([
    clients.publicClient.getBalance({ address }),
    clients.tokenFor(addresses.roxn, admin).read.balanceOf([address]),
    clients.tokenFor(addresses.usdc, admin).read.balanceOf([address]),
  ]);
}

async function send(a: MoneyAction | OtherAction): Promise<Hash | null> {
  switch (a.kind) {
    case "execute":
      // Anyone may run a due outflow: the outsider does.
      return clients.rewards.get(outsider)!.write.executeOutflow([a.id]);
    case "guardianCancel":
      return clients.rewards.get(a.byGuardian ? guardian : outsider)!.write.cancelOutflow([a.id]);
    case "sweep":
      return clients.rewards.get(a.byAdmin ? admin : outsider)!.write.sweepExcess([a.currency, treasury.address]);
    case "day":
    case "hour":
      await clients.testClient.increaseTime({ seconds: a.kind === "day" ? DAY_SECONDS : HOUR_SECONDS });
      await clients.testClient.mine({ blocks: 1 });
      return null;
    case "boost": {
      const asFunder = clients.rewards.get(FUNDERS[a.funder]!)!;
      const issueNumber = ISSUES[a.issue]!;
      return a.currency === 0 && !a.xdcAsToken
        ? asFunder.write.boostXdc([REPOS[a.repo]!, issueNumber, a.expiresAt, Number(FEE_BPS)], { value: a.amount })
        : asFunder.write.boostToken([REPOS[a.repo]!, issueNumber, a.currency, a.amount, a.expiresAt, Number(FEE_BPS)]);
    }
    case "withdrawBoost":
      return clients.rewards.get(FUNDERS[a.funder]!)!.write.withdrawBoost([REPOS[a.repo]!, ISSUES[a.issue]!]);
    case "refundBoost":
      // Anyone may: the outsider does, for the funder.
      return clients.rewards.get(outsider)!.write.refundBoost([REPOS[a.repo]!, ISSUES[a.issue]!, FUNDERS[a.funder]!.address]);
    case "tip": {
      const asFunder = clients.rewards.get(FUNDERS[a.funder]!)!;
      const to = RECIPIENTS[a.recipient]!;
      return a.currency === 0
        ? asFunder.write.tipXdc([to, Number(FEE_BPS)], { value: a.amount })
        : asFunder.write.tipToken([to, a.currency, a.amount, Number(FEE_BPS)]);
    }
    case "escrowTip": {
      const asFunder = clients.rewards.get(FUNDERS[a.funder]!)!;
      return a.currency === 0
        ? asFunder.write.escrowTipXdc([GITHUB_USER, Number(FEE_BPS)], { value: a.amount })
        : asFunder.write.escrowTipToken([GITHUB_USER, a.currency, a.amount, Number(FEE_BPS)]);
    }
    case "refundTip": {
      const tipper = currentModel?.tips[Number(a.tipId) - 1]?.tipper;
      const by = a.byTipper ? (FUNDERS.find((f) => f.address === tipper) ?? funderA) : outsider;
      return clients.rewards.get(by)!.write.refundTip([a.tipId]);
    }
    case "force":
      // Money the contract never accepted: XDC forced in (as selfdestruct would), tokens sent to it directly.
      if (a.currency === 0) {
        const held = await clients.publicClient.getBalance({ address: addresses.repoRewards });
        await clients.testClient.setBalance({ address: addresses.repoRewards, value: held + a.amount });
        return null;
      }
      return clients.tokenFor(a.currency === 1 ? addresses.roxn : addresses.usdc, admin).write.mint([addresses.repoRewards, a.amount]);
  }
  if (a.kind === "payTip") return clients.rewards.get(ACTORS[a.actor]!)!.write.payTip([a.tipId, RECIPIENTS[a.recipient]!]);
  const rewards = clients.rewards.get(ACTORS[a.actor]!)!;
  const repoId = REPOS[a.repo]!;
  switch (a.kind) {
    case "fund":
      return a.currency === 0 && !a.xdcAsToken
        ? rewards.write.fundPoolXdc([repoId, Number(FEE_BPS)], { value: a.amount })
        : rewards.write.fundPoolToken([repoId, a.currency, a.amount, Number(FEE_BPS)]);
    case "claim":
      return rewards.write.claimBounty([repoId, ISSUES[a.issue]!, RECIPIENTS[a.recipient]!]);
    case "allocate":
      return rewards.write.allocateBounty([repoId, ISSUES[a.issue]!, a.currency, a.amount]);
    case "cancel":
      return rewards.write.cancelBounty([repoId, ISSUES[a.issue]!]);
    case "pay":
      return rewards.write.payBounty([repoId, ISSUES[a.issue]!, RECIPIENTS[a.recipient]!]);
    case "withdraw":
      return rewards.write.withdrawPool([repoId, a.currency, a.amount, treasury.address]);
    case "cancelPoolShare":
      return rewards.write.cancelPoolShare([repoId, ISSUES[a.issue]!]);
    case "paySplit":
      return rewards.write.payBountySplit([repoId, ISSUES[a.issue]!, a.recipients, a.amounts]);
  }
}

/** The step's model, for the sender of a tip's refund (the tipper). */
let currentModel: Model | null = null;
/** XDC each funder spent on gas in this run (their balance check subtracts it). */
const funderGas = new Map<Address, bigint>();

/** Runs a step on the chain: null when it succeeded, else the custom error it reverted with. */
async function execute(a: Action): Promise<string | null> {
  if (a.kind === "whilePaused") {
    await mined(await clients.rewards.get(guardian)!.write.pause());
    const outcome = await execute(a.action);
    await mined(await clients.rewards.get(admin)!.write.unpause());
    return outcome;
  }
  try {
    const hash = await send(a);
    if (!hash) return null;
    const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
    const sender = receipt.from.toLowerCase();
    const funderAccount = FUNDERS.find((f) => f.address.toLowerCase() === sender);
    if (funderAccount) funderGas.set(funderAccount.address, (funderGas.get(funderAccount.address) ?? 0n) + receipt.gasUsed * receipt.effectiveGasPrice);
    return receipt.status === "success" ? null : "reverted on chain";
  } catch (err) {
    const reverted =
      err instanceof BaseError ? (err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null) : null;
    if (!reverted?.data) throw err;
    return reverted.data.errorName;
  }
}

async function mined(hash: Hash): Promise<void> {
  expect((await clients.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
}

/** The contract's state and balances must match the model, and the money must add up. */
async function checkInvariants(model: Model): Promise<void> {
  const rewards = clients.rewards.get(admin)!;
  const [pools, bounties, details, held, passive, funders, owed, queued, tips] = await Promise.all([
    Promise.all(REPOS.map((repoId) => rewards.read.getPool([repoId]))),
    Promise.all(REPOS.flatMap((repoId) => ISSUES.map((issueNumber) => rewards.read.getBounty([repoId, issueNumber])))),
    Promise.all(REPOS.flatMap((repoId) => ISSUES.map((issueNumber) => rewards.read.getBountyDetails([repoId, issueNumber])))),
    balancesOf(addresses.repoRewards),
    Promise.all(PASSIVE.map((address) => balancesOf(address))),
    Promise.all(FUNDERS.map((f) => balancesOf(f.address))),
    Promise.all(CURRENCIES.map((c) => rewards.read.owed([c]))),
    Promise.all(model.queue.map(async (q) => ({ outflow: await rewards.read.getOutflow([q.id]), shares: await rewards.read.getOutflowShares([q.id]) }))),
    Promise.all(model.tips.map((_, i) => rewards.read.getTip([BigInt(i + 1)]))),
  ]);

  for (const currencyId of CURRENCIES) {
    // owed = pools + open and queued bounties (pool's share + funders' shares) + funders' shares of cancelled
    // bounties still to refund + escrowed tips (held or queued) + queued withdrawals, all read from the contract.
    const inPools = pools.reduce((sum, p) => sum + p[currencyId], 0n);
    const inBounties = details.reduce((sum, d) => {
      if (d.currency !== currencyId) return sum;
      if (d.status === OPEN || d.status === QUEUED) return sum + d.amount;
      return d.status === CANCELLED ? sum + d.boosted : sum;
    }, 0n);
    const inTips = tips.reduce((sum, tip) => (tip.currency === currencyId && (tip.status === 1 || tip.status === 2) ? sum + tip.amount : sum), 0n);
    const queuedWithdrawals = queued.reduce((sum, q) => (q.outflow.kind === 0 && q.outflow.currency === currencyId ? sum + q.outflow.amount : sum), 0n);
    expect(owed[currencyId]).toBe(inPools + inBounties + inTips + queuedWithdrawals);
    expect(held[currencyId]! >= owed[currencyId]!).toBe(true);
    expect(held[currencyId]! - owed[currencyId]!).toBe(model.forced[currencyId]);
  }
  expect(owed).toEqual(model.owed());
  // Every open bounty is its pool's share plus its funders' shares.
  for (const d of details) if (d.status === OPEN || d.status === QUEUED) expect(d.amount).toBe(d.poolShare + d.boosted);
  // A queued payout's shares sum to what it moves.
  for (const q of queued) if (q.outflow.kind === 1 || q.outflow.kind === 2) expect(q.shares[1].reduce((sum, a) => sum + a, 0n)).toBe(q.outflow.amount);
  expect(queued.map((q) => ({ amount: q.outflow.amount, to: q.outflow.to, currency: q.outflow.currency, shares: [...q.shares[1]] }))).toEqual(
    model.queue.map((q) => ({ amount: q.amount, to: q.to, currency: q.currency, shares: q.kind === "payout" ? q.shares.map((s) => s.amount) : [] })),
  );
  expect(pools.map((p) => [...p])).toEqual(model.pools);
  const expectedBounties = REPOS.flatMap((_, r) =>
    ISSUES.map((_, i) => {
      const b = model.bounty(r, i);
      return b ? [b.currency, b.amount, b.status, b.status === CANCELLED ? zeroAddress : b.recipient] : [0, 0n, 0, zeroAddress];
    }),
  );
  expect(bounties.map((b) => [...b])).toEqual(expectedBounties);
  expect(details.map((d) => [d.poolShare, d.boosted])).toEqual(
    REPOS.flatMap((_, r) => ISSUES.map((_, i) => {
      const b = model.bounty(r, i);
      return b ? [b.poolShare, boosted(b)] : [0n, 0n];
    })),
  );
  expect(tips.map((tip) => tip.status)).toEqual(model.tips.map((tip) => ({ held: 1, queued: 2, paid: 3, refunded: 4 })[tip.status]));

  // The fee collector has exactly the sum of floor(gross * 50 / 10000); each payee exactly what the model paid
  // it, so a bounty or a share paid twice would show here; each funder exactly what it sent back minus
  // what it sent (and its gas): every refund is exactly the funder's share.
  const gained = PASSIVE.map((address, index) => passive[index]!.map((balance, c) => balance - initialBalances.get(address)![c]!));
  expect(gained).toEqual([model.fees, ...PAYEES.map((address) => model.received.get(address)!)]);
  const funderChange = FUNDERS.map((f, index) =>
    funders[index]!.map((balance, c) => balance - initialBalances.get(f.address)![c]! + (c === 0 ? (funderGas.get(f.address) ?? 0n) : 0n)),
  );
  expect(funderChange).toEqual(
    FUNDERS.map((f) => CURRENCIES.map((c) => model.funderRefunded.get(f.address)![c] - model.funderSent.get(f.address)![c])),
  );
}

beforeAll(async () => {
  chain = await startAnvil({ accounts: 12 });
  dataDir = mkdtempSync(join(tmpdir(), "issuepool-property-"));
  addresses = await deployContracts({
    rpcUrl: chain.rpcUrl,
    chain: anvilChain,
    deployer: admin,
    admin: admin.address,
    guardian: guardian.address,
    operator: operator.address,
    caps: {
      XDC: { perRepo: CAP_PER_REPO[0], total: CAP_TOTAL[0] },
      ROXN: { perRepo: CAP_PER_REPO[1], total: CAP_TOTAL[1] },
      USDC: { perRepo: CAP_PER_REPO[2], total: CAP_TOTAL[2] },
    },
    feeCollector: feeCollector.address,
    payoutDelaySeconds: HOUR,
    newRecipientThresholds: { XDC: THRESHOLD[0], ROXN: THRESHOLD[1], USDC: THRESHOLD[2] },
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  clients = makeClients(chain.rpcUrl);

  const asOperator = clients.rewards.get(operator)!;
  for (const [repoIndex, managers] of Object.entries(MANAGERS)) {
    for (const manager of managers) await mined(await asOperator.write.addPoolManager([REPOS[Number(repoIndex)]!, manager]));
  }
  for (const account of [...ACTORS, ...FUNDERS]) {
    for (const token of [addresses.roxn, addresses.usdc]) {
      await mined(await clients.tokenFor(token, admin).write.mint([account.address, 10n ** 24n]));
      await mined(await clients.tokenFor(token, account).write.approve([addresses.repoRewards, maxUint256]));
    }
  }
  initialBalances = new Map(await Promise.all([...PASSIVE, ...FUNDERS.map((f) => f.address)].map(async (address) => [address, await balancesOf(address)] as const)));
});

afterAll(async () => {
  await chain?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * One fixed sequence that reaches every outcome the runs must have seen (below): a payout over the cap queued,
 * executed too early and after its delay, one cancelled by the guardian, a claim, a claimed bounty's refund refused
 * before its delay, a manager refused paying a non-claimant, a sweep, days. It runs before the
 * random runs (fast-check's examples), so the coverage check never depends on the seed: a run of the suite went
 * red once when 100 random runs happened not to execute a queued outflow after its delay.
 */
const EVERY_OUTCOME: Step[] = [
  { kind: "fund", actor: 0, repo: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 10_000_000n }, xdcAsToken: false },
  { kind: "allocate", actor: 0, pool: { focus: true, index: 0 }, issue: 0, amount: { kind: "wholePool" } },
  { kind: "pay", actor: 0, bounty: { focus: true, index: 0 }, recipient: 0 },
  { kind: "execute", index: 1 },
  { kind: "day" },
  { kind: "day" },
  { kind: "execute", index: 1 },
  { kind: "fund", actor: 0, repo: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 10_000_000n }, xdcAsToken: false },
  { kind: "allocate", actor: 0, pool: { focus: true, index: 0 }, issue: 1, amount: { kind: "wholePool" } },
  { kind: "pay", actor: 0, bounty: { focus: true, index: 0 }, recipient: 0 },
  { kind: "guardianCancel", byGuardian: true, index: 1 },
  { kind: "fund", actor: 0, repo: 1, currency: 1, amount: { kind: "millionthsOfMinimum", value: 3_000_000n }, xdcAsToken: false },
  { kind: "allocate", actor: 0, pool: { focus: true, index: 0 }, issue: 2, amount: { kind: "minimum" } },
  { kind: "claim", actor: 0, bounty: { focus: true, index: 0 }, recipient: 0 },
  // The claimed bounty: a refund requested, refused again before its delay, and a manager paying a non-claimant.
  { kind: "cancel", actor: 0, bounty: { focus: true, index: 0 } },
  { kind: "cancel", actor: 0, bounty: { focus: true, index: 0 } },
  { kind: "pay", actor: 1, bounty: { focus: true, index: 0 }, recipient: 1 },
  { kind: "force", currency: 0, amount: 10n ** 15n },
  { kind: "sweep", currency: 0, byAdmin: true },
  { kind: "day" },
  // v3: a community bounty on repository 2's issue 1 (ALL_BOUNTIES index 6) from two funders, one with an expiry:
  // refused before it, refunded after, the rest split between the contributors.
  { kind: "boost", funder: 0, repo: 2, issue: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 3_000_000n }, expiry: { kind: "hours", value: 2 }, xdcAsToken: false },
  { kind: "boost", funder: 1, repo: 2, issue: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 3_000_000n }, expiry: { kind: "none" }, xdcAsToken: false },
  { kind: "refundBoost", funder: 0, bounty: { focus: false, index: 6 } },
  { kind: "hour" },
  { kind: "hour" },
  { kind: "hour" },
  { kind: "refundBoost", funder: 0, bounty: { focus: false, index: 6 } },
  { kind: "paySplit", actor: 0, bounty: { focus: false, index: 6 }, split: { kind: "equal" } },
  // A funder's own withdrawal (index 7), and the pool's share cancelled under a boost, then the whole bounty (index 8).
  { kind: "boost", funder: 0, repo: 2, issue: 1, currency: 1, amount: { kind: "millionthsOfMinimum", value: 2_000_000n }, expiry: { kind: "none" }, xdcAsToken: false },
  { kind: "withdrawBoost", funder: 0, bounty: { focus: false, index: 7 } },
  { kind: "fund", actor: 0, repo: 2, currency: 0, amount: { kind: "millionthsOfMinimum", value: 10_000_000n }, xdcAsToken: false },
  { kind: "allocate", actor: 0, pool: { focus: false, index: 6 }, issue: 2, amount: { kind: "minimum" } },
  { kind: "boost", funder: 1, repo: 2, issue: 2, currency: 0, amount: { kind: "millionthsOfMinimum", value: 2_000_000n }, expiry: { kind: "none" }, xdcAsToken: false },
  { kind: "cancelPoolShare", actor: 0, bounty: { focus: false, index: 8 } },
  { kind: "cancel", actor: 0, bounty: { focus: false, index: 8 } },
  { kind: "refundBoost", funder: 1, bounty: { focus: false, index: 8 } },
  // Tips: one straight to a contributor, one held and paid (young: queued).
  { kind: "tip", funder: 0, recipient: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 1_000_000n } },
  { kind: "escrowTip", funder: 1, currency: 0, amount: { kind: "millionthsOfMinimum", value: 3_000_000n } },
  { kind: "payTip", actor: 0, index: 1, recipient: 1 },
];

test(
  "the contract agrees with the model and the money adds up after every step",
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: MAX_STEPS, size: "max" }), async (steps) => {
        const snapshot = await clients.testClient.snapshot();
        try {
          const model = new Model();
          currentModel = model;
          funderGas.clear();
          runStart = (await clients.publicClient.getBlock()).timestamp;
          for (const s of steps) {
            const action = resolve(model, s);
            const queuedBefore = model.queue.length;
            const expected = applyAction(model, action);
            seen.add(`${action.kind}:${expected ?? "ok"}`);
            if (model.queue.length > queuedBefore) seen.add("queued");
            // The action rides along so a failure names the step that went wrong.
            expect({ action, outcome: await execute(action) }).toEqual({ action, outcome: expected });
            await checkInvariants(model);
          }
        } finally {
          await clients.testClient.revert({ id: snapshot });
        }
      }),
      // All RUNS must run: a time limit that cuts them short is a failure, never a quiet pass with fewer
      // runs. The limit is there for shrinking after a failure, so fast-check reports the smallest
      // sequence found in time; it is generous because a busy 2-core machine runs this several times slower.
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true, examples: [[EVERY_OUTCOME]] },
    );
  },
  TIME_LIMIT_MS + 30_000,
);

/** Outcomes the runs must have reached, so the property says something about caps, claims, delays and the guardian. */
const seen = new Set<string>();
afterAll(() => {
  // EVERY_OUTCOME reaches each of them whatever the seed; the random runs reach them in other orders and states.
  const wanted = ["queued", "execute:ok", "execute:NotReady", "guardianCancel:ok", "sweep:ok", "claim:ok", "cancel:NotReady", "pay:NotClaimant", "day:ok"];
  wanted.push("hour:ok", "boost:ok", "refundBoost:NotRefundable", "refundBoost:ok", "withdrawBoost:ok", "paySplit:ok", "cancelPoolShare:ok", "tip:ok", "escrowTip:ok", "payTip:ok");
  expect(wanted.filter((w) => !seen.has(w))).toEqual([]);
});
