/**
 * Model-based property test of RepoRewards: random sequences of fund,
 * allocate, claim, cancel, pay and withdraw steps, split payouts with a half
 * held in escrow for a GitHub user without a wallet, payments of held shares
 * (payTip) and their return to the pool (refundTip; some while paused), by
 * random actors, across several repositories and all three currencies; with
 * small outflow caps (so payouts and withdrawals get queued), days passing on
 * anvil's clock (caps refill, queued outflows and claimed bounties' refunds
 * become due), queued outflows run or cancelled by the guardian, and money
 * forced into the contract then swept by the admin. A plain TypeScript model
 * predicts each step's outcome (including which custom error it reverts
 * with); the contract must agree, and after every step the money must add
 * up: held >= owed, owed = pools + open (claimed or not) bounties + queued
 * outflows + held shares (held or queued), held - owed = what was forced in
 * and not swept, every held share as the model has it, and every payee
 * got exactly what the model paid it (nothing paid twice).
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
  type Hex,
  type Transport,
  toHex,
} from "viem";
import { anvil as anvilChain } from "viem/chains";
import { RepoRewardsAbi, TestUsdcAbi } from "./artifacts/index.ts";
import { deployContracts } from "../scripts/deploy-contracts.ts";
import { anvilAccounts, startAnvil, type Anvil } from "../scripts/lib/anvil.ts";

const RUNS = 100;
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
/** A "day" step moves anvil's clock by the cap window and a second: yesterday's outflows no longer count. */
const DAY_SECONDS = 24 * 3600 + 1;
/** In days: QUEUE_DELAY (2 days) and CLAIM_CANCEL_DELAY (3 days). */
const QUEUE_DAYS = 2;
const CLAIM_CANCEL_DAYS = 3;

const REPOS = [1_001n, 2_002n, 3_003n] as const;
const ISSUES = [1n, 2n, 3n] as const;

const [admin, operator, feeCollector, managerA, managerB, outsider, contributor1, contributor2, treasury, guardian] = anvilAccounts(10) as [
  Account, Account, Account, Account, Account, Account, Account, Account, Account, Account,
];
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
  /** The operator pays a bounty half to a recipient, half held in escrow for a GitHub user without a wallet. */
  | { kind: "splitHeld"; actor: number; bounty: Pick; recipient: number }
  /** payTip of a held share to a recipient (the address its user registered). */
  | { kind: "payHeld"; actor: number; index: number; recipient: number }
  /** refundTip of a held share: back to its repository's pool after TIP_REFUND_DELAY. */
  | { kind: "returnHeld"; actor: number; index: number };
/** Steps that run while paused as well: the guardian's cancel, the admin's sweep, forced-in money, time. */
type OtherStep =
  | { kind: "guardianCancel"; byGuardian: boolean; index: number }
  | { kind: "force"; currency: Currency; amount: bigint }
  | { kind: "sweep"; currency: Currency; byAdmin: boolean }
  | { kind: "day" };
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
  | { kind: "splitHeld"; actor: number; repo: number; issue: number; recipient: number; paid: bigint; held: bigint }
  | { kind: "payHeld"; actor: number; tipId: bigint; recipient: number }
  | { kind: "returnHeld"; actor: number; tipId: bigint };
type OtherAction =
  | { kind: "guardianCancel"; byGuardian: boolean; id: bigint }
  | { kind: "force"; currency: Currency; amount: bigint }
  | { kind: "sweep"; currency: Currency; byAdmin: boolean }
  | { kind: "day" };
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
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("splitHeld" as const), actor, bounty: pick, recipient }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("payHeld" as const), actor, index: fc.nat({ max: 99 }), recipient }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("returnHeld" as const), actor, index: fc.nat({ max: 99 }) }) },
);
const otherStep: fc.Arbitrary<OtherStep> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("guardianCancel" as const), byGuardian: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), index: fc.nat({ max: 99 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("force" as const), currency: fc.constantFrom(...CURRENCIES), amount: fc.bigInt({ min: 1n, max: 10n ** 15n }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("sweep" as const), currency: fc.constantFrom(...CURRENCIES), byAdmin: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) }) },
  { weight: 4, arbitrary: fc.constant({ kind: "day" as const }) },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 19, arbitrary: moneyStep },
  { weight: 5, arbitrary: otherStep },
  { weight: 1, arbitrary: moneyStep.map((inner): Step => ({ kind: "whilePaused", step: inner })) },
);

// ---- Model ----

interface ModelBounty {
  currency: Currency;
  amount: bigint;
  status: number;
  recipient: Address;
  /** The day its refund was requested (a claimed bounty); null: none. */
  cancelRequestedDay: number | null;
}

interface ModelOutflow {
  id: bigint;
  repo: number;
  issue: number | null;
  currency: Currency;
  amount: bigint;
  to: Address;
  day: number;
  /** A split payout with a held part: what goes to `to`, and what is escrowed when it runs. */
  split?: { paid: bigint; held: bigint };
  /** A held share's payTip (issue is null, as for a withdrawal). */
  tipId?: bigint;
}

/** A bounty share held in escrow for a GitHub user without a wallet (the contract's Tip without a tipper). */
interface ModelHeldShare {
  id: bigint;
  repo: number;
  currency: Currency;
  amount: bigint;
  status: "held" | "queued" | "paid" | "returned";
  day: number;
}

/** The GitHub user the held shares are for. */
const HELD_USER = 777n;
/** In days: TIP_REFUND_DELAY (30 days). */
const TIP_REFUND_DAYS = 30;
const TIP_STATUS = { held: 1, queued: 2, paid: 3, returned: 4 } as const;

const ALL_POOLS = REPOS.flatMap((_, repoIndex) => CURRENCIES.map((currencyId) => ({ repo: repoIndex, currency: currencyId })));
const ALL_BOUNTIES = REPOS.flatMap((_, repoIndex) => ISSUES.map((_, issueIndex) => ({ repo: repoIndex, issue: issueIndex })));

class Model {
  pools = REPOS.map((): PerCurrency => [0n, 0n, 0n]);
  bounties = new Map<string, ModelBounty>();
  /** Per currency: sum of floor(gross * 50 / 10000) over all fundings. */
  fees: PerCurrency = [0n, 0n, 0n];
  /** What each payee has received (bounties, withdrawals, sweeps), per currency. */
  received = new Map<Address, PerCurrency>(PAYEES.map((address) => [address, [0n, 0n, 0n]]));
  /** Who registered to work on each issue ("repo:issue"), whether or not it has a bounty. */
  claims = new Map<string, Set<Address>>();
  /** Outflows over a cap, waiting. */
  queue: ModelOutflow[] = [];
  nextOutflowId = 1n;
  /** Days passed (each a "day" step). */
  day = 0;
  /** Outflows counted against the caps: those of the current day. */
  spent: { day: number; repo: number; currency: Currency; amount: bigint }[] = [];
  /** Money forced into the contract and not swept, per currency. */
  forced: PerCurrency = [0n, 0n, 0n];
  heldShares: ModelHeldShare[] = [];
  nextTipId = 1n;

  /** Escrows a split's held part (when the split is paid: at once, or when its queued outflow runs). */
  hold(repo: number, currency: Currency, amount: bigint): void {
    this.heldShares.push({ id: this.nextTipId++, repo, currency, amount, status: "held", day: this.day });
  }

  /** A held share's id, or one that does not exist (an unfocused pick). */
  pickHeld(index: number): bigint {
    const held = this.heldShares.filter((h) => h.status === "held");
    return held.length > 0 && index % 10 !== 0 ? held[index % held.length]!.id : this.nextTipId + BigInt(index % 3);
  }

  claimants(repoIndex: number, issueIndex: number): Set<Address> {
    const key = `${repoIndex}:${issueIndex}`;
    if (!this.claims.has(key)) this.claims.set(key, new Set());
    return this.claims.get(key)!;
  }

  /** Records the outflow against both caps if it fits both (the contract's _withinCaps). */
  withinCaps(repoIndex: number, currency: Currency, amount: bigint): boolean {
    const today = this.spent.filter((s) => s.day === this.day && s.currency === currency);
    const repoUsed = today.filter((s) => s.repo === repoIndex).reduce((sum, s) => sum + s.amount, 0n);
    const totalUsed = today.reduce((sum, s) => sum + s.amount, 0n);
    if (repoUsed + amount > CAP_PER_REPO[currency] || totalUsed + amount > CAP_TOTAL[currency]) return false;
    this.spent.push({ day: this.day, repo: repoIndex, currency, amount });
    return true;
  }

  enqueue(outflow: Omit<ModelOutflow, "id" | "day">): void {
    this.queue.push({ ...outflow, id: this.nextOutflowId++, day: this.day });
  }

  /** What the contract owes per currency: pools, open and queued bounties, queued withdrawals, held shares (held or queued). */
  owed(): PerCurrency {
    const owed: PerCurrency = [0n, 0n, 0n];
    for (const p of this.pools) for (const c of CURRENCIES) owed[c] += p[c];
    for (const b of this.bounties.values()) if (b.status === OPEN || b.status === QUEUED) owed[b.currency] += b.amount;
    for (const q of this.queue) if (q.issue === null && q.tipId === undefined) owed[q.currency] += q.amount;
    for (const h of this.heldShares) if (h.status === "held" || h.status === "queued") owed[h.currency] += h.amount;
    return owed;
  }

  /** A queued outflow's id, or one that does not exist (an unfocused pick). */
  pickOutflow(index: number): bigint {
    return this.queue.length > 0 && index % 10 !== 0 ? this.queue[index % this.queue.length]!.id : this.nextOutflowId + BigInt(index % 3);
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
    this.received.get(address)![currency] += amount;
  }

  /** `atLeast`: the smallest balance a focused pick considers worth targeting. */
  pickPool({ focus, index }: Pick, atLeast: (currency: Currency) => bigint): { repo: number; currency: Currency } {
    const funded = ALL_POOLS.filter((p) => this.pools[p.repo]![p.currency]! >= atLeast(p.currency));
    const candidates = focus && funded.length > 0 ? funded : ALL_POOLS;
    return candidates[index % candidates.length]!;
  }

  pickBounty({ focus, index }: Pick): { repo: number; issue: number } {
    const open = ALL_BOUNTIES.filter((b) => this.bounty(b.repo, b.issue)?.status === OPEN);
    const candidates = focus && open.length > 0 ? open : ALL_BOUNTIES;
    return candidates[index % candidates.length]!;
  }
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

function resolve(model: Model, s: Step): Action {
  switch (s.kind) {
    case "whilePaused":
      return { kind: s.kind, action: resolveMoney(model, s.step) };
    case "guardianCancel":
      return { kind: s.kind, byGuardian: s.byGuardian, id: model.pickOutflow(s.index) };
    case "force":
    case "sweep":
    case "day":
      return s;
    default:
      return resolveMoney(model, s);
  }
}

function resolveMoney(model: Model, s: MoneyStep): MoneyAction {
  switch (s.kind) {
    case "fund": {
      const { amount } = s;
      const value = amount.kind === "zero" ? 0n : amount.kind === "raw" ? amount.value : (amount.value * MINIMUM[s.currency]) / 1_000_000n;
      return { ...s, amount: value };
    }
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
    case "splitHeld": {
      const target = model.pickBounty(s.bounty);
      const amount = model.bounty(target.repo, target.issue)?.amount ?? 0n;
      // The author's half carries the rounding remainder.
      return { kind: s.kind, actor: s.actor, ...target, recipient: s.recipient, paid: amount - amount / 2n, held: amount / 2n };
    }
    case "payHeld":
      return { kind: s.kind, actor: s.actor, tipId: model.pickHeld(s.index), recipient: s.recipient };
    case "returnHeld":
      return { kind: s.kind, actor: s.actor, tipId: model.pickHeld(s.index) };
  }
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
      model.day += 1;
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
      if (outflow!.tipId !== undefined) {
        model.heldShares.find((h) => h.id === outflow!.tipId)!.status = "held";
      } else if (outflow!.issue !== null) {
        const bounty = model.bounty(outflow!.repo, outflow!.issue)!;
        bounty.status = OPEN;
        bounty.recipient = zeroAddress;
      } else {
        model.pools[outflow!.repo]![outflow!.currency] += outflow!.amount;
      }
      return null;
    }
    case "execute": {
      const index = model.queue.findIndex((q) => q.id === a.id);
      if (index < 0) return "UnknownOutflow";
      const outflow = model.queue[index]!;
      if (model.day - outflow.day < QUEUE_DAYS) return "NotReady";
      model.queue.splice(index, 1);
      if (outflow.tipId !== undefined) model.heldShares.find((h) => h.id === outflow.tipId)!.status = "paid";
      if (outflow.issue !== null) model.bounty(outflow.repo, outflow.issue)!.status = PAID;
      if (outflow.split) {
        model.credit(outflow.to, outflow.currency, outflow.split.paid);
        model.hold(outflow.repo, outflow.currency, outflow.split.held);
      } else {
        model.credit(outflow.to, outflow.currency, outflow.amount);
      }
      return null;
    }
    case "payHeld": {
      if (ACTORS[a.actor] !== operator) return "AccessControlUnauthorizedAccount";
      const to = RECIPIENTS[a.recipient]!;
      if (to === zeroAddress) return "ZeroAddress";
      const share = model.heldShares.find((h) => h.id === a.tipId);
      if (share?.status !== "held") return "UnknownTip";
      // Counted against its repository's cap.
      if (model.withinCaps(share.repo, share.currency, share.amount)) {
        share.status = "paid";
        model.credit(to, share.currency, share.amount);
      } else {
        share.status = "queued";
        model.enqueue({ repo: share.repo, issue: null, currency: share.currency, amount: share.amount, to, tipId: share.id });
      }
      return null;
    }
    case "returnHeld": {
      const share = model.heldShares.find((h) => h.id === a.tipId);
      if (share?.status !== "held") return "UnknownTip";
      // The repository's pool manager or the operator; nobody else, and only back to the pool.
      if (!model.canManage(a.actor, share.repo)) return "NotTipper";
      if (model.day - share.day < TIP_REFUND_DAYS) return "NotReady";
      share.status = "returned";
      model.pools[share.repo]![share.currency] += share.amount;
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
      if (existing && existing.status !== CANCELLED) return "BountyExists";
      if (a.amount < MINIMUM[a.currency]) return "BelowMinimum";
      if (a.amount > pool[a.currency]!) return "InsufficientPool";
      pool[a.currency] -= a.amount;
      model.bounties.set(`${a.repo}:${a.issue}`, { currency: a.currency, amount: a.amount, status: OPEN, recipient: zeroAddress, cancelRequestedDay: null });
      return null;
    }
    case "claim": {
      if (ACTORS[a.actor] !== operator) return "AccessControlUnauthorizedAccount";
      const recipient = RECIPIENTS[a.recipient]!;
      if (recipient === zeroAddress) return "ZeroAddress";
      model.claimants(a.repo, a.issue).add(recipient);
      return null;
    }
    case "cancel": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      if (model.claimants(a.repo, a.issue).size > 0) {
        // A claimed bounty: the first call requests the refund, one CLAIM_CANCEL_DELAY later carries it out.
        if (bounty.cancelRequestedDay === null) {
          bounty.cancelRequestedDay = model.day;
          return null;
        }
        if (model.day - bounty.cancelRequestedDay < CLAIM_CANCEL_DAYS) return "NotReady";
      }
      bounty.status = CANCELLED;
      bounty.cancelRequestedDay = null;
      pool[bounty.currency] += bounty.amount;
      return null;
    }
    case "pay": {
      if (!model.canManage(a.actor, a.repo)) return "NotPoolManager";
      const recipient = RECIPIENTS[a.recipient]!;
      if (recipient === zeroAddress) return "ZeroAddress";
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      const claimants = model.claimants(a.repo, a.issue);
      if (claimants.size > 0 && !claimants.has(recipient) && ACTORS[a.actor] !== operator) return "NotClaimant";
      bounty.recipient = recipient;
      bounty.cancelRequestedDay = null;
      if (model.withinCaps(a.repo, bounty.currency, bounty.amount)) {
        bounty.status = PAID;
        model.credit(recipient, bounty.currency, bounty.amount);
      } else {
        bounty.status = QUEUED;
        model.enqueue({ repo: a.repo, issue: a.issue, currency: bounty.currency, amount: bounty.amount, to: recipient });
      }
      return null;
    }
    case "splitHeld": {
      if (ACTORS[a.actor] !== operator) return "AccessControlUnauthorizedAccount";
      const recipient = RECIPIENTS[a.recipient]!;
      const bounty = model.bounty(a.repo, a.issue);
      if (bounty?.status !== OPEN) return "BountyNotOpen";
      if (recipient === zeroAddress) return "ZeroAddress";
      bounty.recipient = recipient;
      bounty.cancelRequestedDay = null;
      // The caps count what goes out now; the held half counts when it is paid.
      if (model.withinCaps(a.repo, bounty.currency, a.paid)) {
        bounty.status = PAID;
        model.credit(recipient, bounty.currency, a.paid);
        model.hold(a.repo, bounty.currency, a.held);
      } else {
        bounty.status = QUEUED;
        model.enqueue({ repo: a.repo, issue: a.issue, currency: bounty.currency, amount: bounty.amount, to: recipient, split: { paid: a.paid, held: a.held } });
      }
      return null;
    }
    case "withdraw": {
      if (!model.isManager(a.actor, a.repo)) return "NotPoolManager";
      if (a.amount === 0n) return "ZeroAmount";
      if (a.amount > pool[a.currency]!) return "InsufficientPool";
      pool[a.currency] -= a.amount;
      if (model.withinCaps(a.repo, a.currency, a.amount)) model.credit(treasury.address, a.currency, a.amount);
      else model.enqueue({ repo: a.repo, issue: null, currency: a.currency, amount: a.amount, to: treasury.address });
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
  const batched = http(rpcUrl, { batch: true });
  const HEADROOM_GAS = 500_000n;
  // Gas estimates get headroom, as the platform's outbox gives them (api/chain/outbox-signing.ts). After many
  // evm_revert runs, anvil's estimate can price storage that an earlier, reverted run wrote as already set (SSTORE
  // to a non-zero slot): a queued split payout (eight fresh slots) was estimated ~100k gas short and ran out of gas.
  const transport: Transport = (options) => {
    const inner = batched(options);
    return {
      ...inner,
      async request(args) {
        const result = await inner.request(args);
        if (args.method === "eth_estimateGas") return toHex(BigInt(result as Hex) + HEADROOM_GAS);
        // viem 2.57 fills a local account's transaction with eth_fillTransaction where the node has it (anvil does):
        // its gas is the node's estimate, so the headroom goes there too. Without it, two fresh-clone runs under
        // load saw a held share's payTip run out of gas when mined (164,901 of 167,090) after its estimate passed.
        if (args.method === "eth_fillTransaction") {
          const filled = result as { tx: { gas?: Hex } };
          if (filled.tx.gas) return { ...filled, tx: { ...filled.tx, gas: toHex(BigInt(filled.tx.gas) + HEADROOM_GAS) } };
        }
        return result;
      },
    } as ReturnType<Transport>;
  };
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
    rewards: new Map([admin, guardian, ...ACTORS].map((account) => [account, contractFor(account)])),
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
    case "payHeld":
      return clients.rewards.get(ACTORS[a.actor]!)!.write.payTip([a.tipId, RECIPIENTS[a.recipient]!]);
    case "returnHeld":
      return clients.rewards.get(ACTORS[a.actor]!)!.write.refundTip([a.tipId]);
    case "day":
      await clients.testClient.increaseTime({ seconds: DAY_SECONDS });
      await clients.testClient.mine({ blocks: 1 });
      return null;
    case "force":
      // Money the contract never accepted: XDC forced in (as selfdestruct would), tokens sent to it directly.
      if (a.currency === 0) {
        const held = await clients.publicClient.getBalance({ address: addresses.repoRewards });
        await clients.testClient.setBalance({ address: addresses.repoRewards, value: held + a.amount });
        return null;
      }
      return clients.tokenFor(a.currency === 1 ? addresses.roxn : addresses.usdc, admin).write.mint([addresses.repoRewards, a.amount]);
  }
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
    case "splitHeld":
      return rewards.write.payBountySplitHeld([repoId, ISSUES[a.issue]!, [RECIPIENTS[a.recipient]!], [a.paid], [HELD_USER], [a.held]]);
  }
}

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
    if (receipt.status === "success") return null;
    // Passed its estimate, reverted when mined (seen once in a CI run beside two CPU burners, not reproduced in
    // six runs after): what a failure needs to be understood, in the outcome the comparison prints.
    const tx = await clients.publicClient.getTransaction({ hash });
    return `reverted on chain (gas used ${receipt.gasUsed} of ${tx.gas}, block ${receipt.blockNumber})`;
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
  const [pools, bounties, held, passive, owed, queued] = await Promise.all([
    Promise.all(REPOS.map((repoId) => rewards.read.getPool([repoId]))),
    Promise.all(REPOS.flatMap((repoId) => ISSUES.map((issueNumber) => rewards.read.getBounty([repoId, issueNumber])))),
    balancesOf(addresses.repoRewards),
    Promise.all(PASSIVE.map((address) => balancesOf(address))),
    Promise.all(CURRENCIES.map((c) => rewards.read.owed([c]))),
    Promise.all(model.queue.map((q) => rewards.read.getOutflow([q.id]))),
  ]);
  const tips = await Promise.all(model.heldShares.map((h) => rewards.read.getTip([h.id])));
  expect(await rewards.read.nextTipId()).toBe(model.nextTipId - 1n);
  expect(tips.map((t) => ({ tipper: t.tipper, githubUserId: t.githubUserId, currency: t.currency, amount: t.amount, status: t.status }))).toEqual(
    model.heldShares.map((h) => ({ tipper: zeroAddress, githubUserId: HELD_USER, currency: h.currency, amount: h.amount, status: TIP_STATUS[h.status] })),
  );

  for (const currencyId of CURRENCIES) {
    const inPools = pools.reduce((sum, p) => sum + p[currencyId], 0n);
    // Open bounties, claimed or not, and payouts waiting in the queue (their bounty is Queued).
    const inBounties = bounties.reduce((sum, [c, amount, status]) => ((status === OPEN || status === QUEUED) && c === currencyId ? sum + amount : sum), 0n);
    const queuedWithdrawals = model.queue.filter((q) => q.issue === null && q.tipId === undefined && q.currency === currencyId).reduce((sum, q) => sum + q.amount, 0n);
    // Held bounty shares, held or queued to the address their user registered.
    const inHeldShares = tips.reduce((sum, t) => ((t.status === TIP_STATUS.held || t.status === TIP_STATUS.queued) && t.currency === currencyId ? sum + t.amount : sum), 0n);
    expect(owed[currencyId]).toBe(inPools + inBounties + queuedWithdrawals + inHeldShares);
    expect(held[currencyId]! >= owed[currencyId]!).toBe(true);
    expect(held[currencyId]! - owed[currencyId]!).toBe(model.forced[currencyId]);
  }
  expect(owed).toEqual(model.owed());
  expect(queued.map((q) => ({ amount: q.amount, to: q.to, currency: q.currency }))).toEqual(
    model.queue.map((q) => ({ amount: q.amount, to: q.to, currency: q.currency })),
  );
  expect(pools.map((p) => [...p])).toEqual(model.pools);
  const expectedBounties = REPOS.flatMap((_, r) =>
    ISSUES.map((_, i) => {
      const b = model.bounty(r, i);
      return b ? [b.currency, b.amount, b.status, b.status === CANCELLED ? zeroAddress : b.recipient] : [0, 0n, 0, zeroAddress];
    }),
  );
  expect(bounties.map((b) => [...b])).toEqual(expectedBounties);

  // The fee collector has exactly the sum of floor(gross * 50 / 10000); each payee
  // exactly what the model paid it, so a bounty paid twice would show here.
  const gained = PASSIVE.map((address, index) => passive[index]!.map((balance, c) => balance - initialBalances.get(address)![c]!));
  expect(gained).toEqual([model.fees, ...PAYEES.map((address) => model.received.get(address)!)]);
}

beforeAll(async () => {
  chain = await startAnvil();
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
    deploymentsFile: join(dataDir, "deployments.json"),
  });
  clients = makeClients(chain.rpcUrl);

  const asOperator = clients.rewards.get(operator)!;
  for (const [repoIndex, managers] of Object.entries(MANAGERS)) {
    for (const manager of managers) await mined(await asOperator.write.addPoolManager([REPOS[Number(repoIndex)]!, manager]));
  }
  for (const account of ACTORS) {
    for (const token of [addresses.roxn, addresses.usdc]) {
      await mined(await clients.tokenFor(token, admin).write.mint([account.address, 10n ** 24n]));
      await mined(await clients.tokenFor(token, account).write.approve([addresses.repoRewards, maxUint256]));
    }
  }
  initialBalances = new Map(await Promise.all(PASSIVE.map(async (address) => [address, await balancesOf(address)] as const)));
}, 120_000);

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
];

/** Held split shares: escrowed at once and through the queue, paid once, refused twice, and returned to the pool after 30 days. */
const HELD_SHARES: Step[] = [
  { kind: "fund", actor: 0, repo: 0, currency: 0, amount: { kind: "millionthsOfMinimum", value: 20_000_000n }, xdcAsToken: false },
  { kind: "allocate", actor: 0, pool: { focus: true, index: 0 }, issue: 0, amount: { kind: "minimum" } },
  { kind: "splitHeld", actor: 1, bounty: { focus: true, index: 0 }, recipient: 0 },
  { kind: "splitHeld", actor: 0, bounty: { focus: true, index: 0 }, recipient: 0 },
  { kind: "payHeld", actor: 1, index: 1, recipient: 1 },
  { kind: "payHeld", actor: 0, index: 1, recipient: 1 },
  { kind: "payHeld", actor: 0, index: 1, recipient: 1 },
  // Over the repository's daily cap (4 minimum bounties): the address half is queued, and the held half with it.
  { kind: "allocate", actor: 0, pool: { focus: true, index: 0 }, issue: 1, amount: { kind: "poolShareBps", value: 10_000n } },
  { kind: "splitHeld", actor: 0, bounty: { focus: true, index: 1 }, recipient: 1 },
  { kind: "day" },
  { kind: "day" },
  { kind: "execute", index: 1 },
  { kind: "returnHeld", actor: 1, index: 1 },
  ...Array.from({ length: TIP_REFUND_DAYS }, (): Step => ({ kind: "day" })),
  { kind: "returnHeld", actor: 3, index: 1 },
  { kind: "returnHeld", actor: 1, index: 1 },
  { kind: "payHeld", actor: 0, index: 0, recipient: 0 },
];

test(
  "the contract agrees with the model and the money adds up after every step",
  async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: MAX_STEPS, size: "max" }), async (steps) => {
        const snapshot = await clients.testClient.snapshot();
        try {
          const model = new Model();
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
      { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true, examples: [[EVERY_OUTCOME], [HELD_SHARES]] },
    );
  },
  TIME_LIMIT_MS + 30_000,
);

/** Outcomes the runs must have reached, so the property says something about caps, claims, delays and the guardian. */
const seen = new Set<string>();
afterAll(() => {
  // EVERY_OUTCOME reaches each of them whatever the seed; the random runs reach them in other orders and states.
  const wanted = ["queued", "execute:ok", "execute:NotReady", "guardianCancel:ok", "sweep:ok", "claim:ok", "cancel:NotReady", "pay:NotClaimant", "day:ok"];
  wanted.push("splitHeld:ok", "splitHeld:AccessControlUnauthorizedAccount", "payHeld:ok", "payHeld:UnknownTip", "returnHeld:NotReady", "returnHeld:NotTipper", "returnHeld:ok");
  expect(wanted.filter((w) => !seen.has(w))).toEqual([]);
});
