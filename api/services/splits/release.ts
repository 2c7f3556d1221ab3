/**
 * The release of splits whose window is over (open.ts has the whole story).
 * Crash-safe and exactly once:
 *   1. the split is claimed with one conditional write (window -> releasing),
 *      so a pool manager's late change and the release cannot both win;
 *   2. the shares' amounts are computed from the bounty's amount on-chain
 *      then (boosts may have added to it; shares.ts: they sum to it, the
 *      remainder to the author) and written with the payout's outbox row;
 *   3. the payout is ONE contract call (`payBountySplit`, contract v3: it
 *      pays the whole bounty at once) under the key
 *      `split-payout:<repo>:<issue>` and the kind `pay_bounty`, so the
 *      outbox's one-live-payout-per-issue index holds for splits too: a
 *      rerun after a crash finds the row instead of sending again (a new
 *      attempt only after the last one failed or reverted, which moved
 *      nothing), and the contract refuses to pay a bounty twice;
 *   4. a person without a wallet does not hold up the others: the payout is
 *      `payBountySplitHeld`, which pays the people with a wallet and puts
 *      each other share in the contract's escrow for its GitHub user id
 *      (a held tip; share status `escrowed`). When they register, the
 *      operator's `payTip` (outbox key `split-share:<repo>:<issue>:<user>`,
 *      payEscrowedShares) sends it to their wallet, once: the key finds the
 *      row after a crash and the contract refuses to pay a tip twice.
 *      Unclaimed for TIP_REFUND_DELAY (30 days), the pool manager may return
 *      it to the repository's pool (never to anyone else). Only when nobody
 *      with a share has a wallet does the whole split wait (`held`, nothing
 *      sent) until the first registers; the pool manager may still change
 *      the shares of such a split (set-shares.ts).
 * The pass is leased, so one process at a time runs it; within a pass, the
 * splits of different bounties are released side by side (each split is one
 * bounty: its claim and its lock are its own).
 */
import { and, asc, eq, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { parseEventLogs, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import { chainEvents, chainTransactions, payoutSplits, payoutSplitShares, users, wallets, type ChainTransaction, type PayoutSplit, type PayoutSplitShare } from "../../../db/schema/index.ts";
import { takeLease } from "../../workers/lease.ts";
import { eachWithLimit } from "../../workers/slots.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import { withBountyLock, type MoneyLock } from "../money/pool-guard.ts";
import { heldSharePayData, splitPayoutData } from "./chain.ts";
import { splitAmount } from "./shares.ts";
import { SPLIT_OPENED_TAG } from "./open.ts";
import { heldShareEvent } from "./held-share-return-time.ts";
import type { ChangeFeed } from "../../changes.ts";

type Deps = Pick<AppContext, "env" | "database" | "chain" | "outbox" | "log" | "changes">;

export const splitPayoutKey = (repoId: number, issueNumber: number) => `split-payout:${repoId}:${issueNumber}`;
const LEASE = "split-release";
/** Splits released side by side in one pass. */
export const RELEASE_CONCURRENCY = 8;

/** One pass: every split whose window is over is claimed and paid (or held). Returns how many it worked on. */
export async function releaseDueSplits(deps: Deps, options: { owner?: string; leaseMs?: number; now?: number } = {}): Promise<number> {
  const now = options.now ?? Date.now();
  const owner = options.owner ?? `split-release:${process.pid}`;
  const dueWhere = or(and(eq(payoutSplits.status, "window"), lte(payoutSplits.releaseAt, new Date(now))), eq(payoutSplits.status, "releasing"));
  // A read first: a pass with nothing due writes nothing (the lease is a durable write, and the pass may run often).
  const [anyDue] = await deps.database.db.select({ issueNumber: payoutSplits.issueNumber }).from(payoutSplits).where(dueWhere).limit(1);
  if (!anyDue) return 0;
  if (!(await takeLease(deps.database.db, LEASE, owner, options.leaseMs ?? 60_000, now))) return 0;
  const due = await deps.database.db.select().from(payoutSplits).where(dueWhere).orderBy(asc(payoutSplits.releaseAt)).limit(50);
  // Splits of different bounties side by side, each under its own bounty's lock (releaseSplit): with many merges at
  // once, one after another they queued behind each other's chain read and outbox row (docs/performance.md).
  const queued: ChainTransaction[] = [];
  const results = await eachWithLimit(due, RELEASE_CONCURRENCY, (split) => releaseSplit(deps, split, now, queued));
  let worked = 0;
  results.forEach((result, i) => {
    if (result.status === "fulfilled") worked += result.value ? 1 : 0;
    else deps.log.warn("split release failed; retried on the next pass", { repoId: due[i]!.githubRepoId, issue: due[i]!.issueNumber, err: (result.reason as Error).message });
  });
  // The payouts were only queued under their bounties' locks (the next holder sees a queued payout as one on its way):
  // sent here together, in one signing pass rather than one pass each while holding the lock. The outbox's own pass
  // sends any this one does not (a crash, a busy node).
  await Promise.allSettled(queued.map((tx) => deps.outbox.untilBroadcast(tx)));
  return worked;
}

/** The release pass never runs more often than this (a 1 ms window made it read the database a thousand times a second). */
export const MIN_RELEASE_INTERVAL_MS = 100;

/** How often the release pass runs: the configured interval, or the window when shorter (tests, demos), not below the floor. */
export function releaseInterval(env: { SPLIT_RELEASE_INTERVAL_MS: number; SPLIT_RELEASE_WINDOW_MS: number }): number {
  return Math.min(env.SPLIT_RELEASE_INTERVAL_MS, Math.max(env.SPLIT_RELEASE_WINDOW_MS, MIN_RELEASE_INTERVAL_MS));
}

/**
 * A window shorter than the pass's interval (the chain bench's 1 ms) ends before the next pass would come: the pass
 * is nudged when it ends, instead of the split waiting up to a whole interval. Returns what stops it.
 */
export function releaseWhenWindowsEnd(changes: ChangeFeed, pass: { nudge(): void }, windowMs: number, intervalMs: number): () => void {
  if (windowMs >= intervalMs) return () => {};
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const unsubscribe = changes.subscribe((tags) => {
    if (!tags.includes(SPLIT_OPENED_TAG)) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      pass.nudge();
    }, windowMs + 1);
    timers.add(timer);
  });
  return () => {
    unsubscribe();
    for (const timer of timers) clearTimeout(timer);
  };
}

const splitWhere = (split: Pick<PayoutSplit, "githubRepoId" | "issueNumber">) => and(eq(payoutSplits.githubRepoId, split.githubRepoId), eq(payoutSplits.issueNumber, split.issueNumber));
const sharesWhere = (split: Pick<PayoutSplit, "githubRepoId" | "issueNumber">) => and(eq(payoutSplitShares.githubRepoId, split.githubRepoId), eq(payoutSplitShares.issueNumber, split.issueNumber));

/** Claims (window -> releasing) and pays a split, or holds it. True when it did something. */
async function releaseSplit(deps: Deps, found: PayoutSplit, now: number, queued?: ChainTransaction[]): Promise<boolean> {
  const db = deps.database.db;
  let split = found;
  if (split.status === "window") {
    const [claimed] = await db
      .update(payoutSplits)
      .set({ status: "releasing", updatedAt: new Date(now) })
      .where(and(splitWhere(split), eq(payoutSplits.status, "window"), lte(payoutSplits.releaseAt, new Date(now))))
      .returning();
    if (!claimed) return false;
    split = claimed;
  }
  // Under the bounty's lock, which a pool manager's change of a held split's shares takes too (set-shares.ts):
  // the shares read here are the shares paid.
  return withBountyLock(deps, split.githubRepoId, split.issueNumber, (lock) => payOrHold(deps, lock, split, now, queued));
}

/**
 * Pays (or holds) a claimed split; with `queued`, its payout is only queued and added there for the caller to send.
 * The shares' amounts and the payout row are written only while the bounty's lock is still this pass's (`lock.fence`).
 */
async function payOrHold(deps: Deps, lock: MoneyLock, claimed: PayoutSplit, now: number, queued?: ChainTransaction[]): Promise<boolean> {
  const db = deps.database.db;
  const [split] = await db.select().from(payoutSplits).where(splitWhere(claimed));
  if (!split || split.status !== "releasing") return false;
  const existing = await deps.outbox.findByKey(null, splitPayoutKey(split.githubRepoId, split.issueNumber));
  if (!existing) {
    // Nothing sent yet: the one payout decision says whether the split still pays the bounty. Paid or cancelled
    // meanwhile, the split no longer applies.
    const facts = await bountyFacts(deps, split.githubRepoId, split.issueNumber);
    const bounty = facts.chain;
    const decision = decide(facts, { kind: "split" });
    if (!decision.ok) {
      await db.update(payoutSplits).set({ status: "superseded", updatedAt: new Date(now) }).where(and(splitWhere(split), eq(payoutSplits.status, "releasing")));
      deps.log.info("split superseded: the bounty was paid or cancelled another way", { repoId: split.githubRepoId, issue: split.issueNumber, status: bounty.status });
      deps.changes.publish([`repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
      return true;
    }
    const shares = await sharesOf(deps, split);
    const addresses = new Map<number, string>();
    for (const share of shares) {
      const address = await walletOfGitHubUser(deps, share.githubUserId);
      if (address) addresses.set(share.githubUserId, address);
    }
    // The author first (the contract's convention), then the others in their order.
    const ordered = [...shares].sort((a, b) => Number(b.githubUserId === split.authorGithubId) - Number(a.githubUserId === split.authorGithubId) || a.position - b.position);
    const parts = splitAmount(bounty.amount, ordered.map((s) => ({ key: s.githubUserId, weight: BigInt(s.weight) })), split.authorGithubId);
    const paid = parts.filter((p) => p.amount > 0n);
    const missing = paid.filter((p) => !addresses.has(p.key));
    // Nobody to pay now: the whole split waits for the first registration (nothing leaves the escrow).
    const holdAll = missing.length === paid.length;
    await db.transaction(async (tx) => {
      await lock.fence(tx);
      await tx.update(payoutSplits).set({ amount: bounty.amount, currency: bounty.currency, updatedAt: new Date(now) }).where(splitWhere(split));
      for (const part of parts) {
        const status = part.amount === 0n ? "paid" : addresses.has(part.key) ? "pending" : holdAll ? "held" : "escrowed";
        await tx.update(payoutSplitShares).set({ amount: part.amount, status }).where(and(sharesWhere(split), eq(payoutSplitShares.githubUserId, part.key)));
      }
    }, { behavior: "immediate" });
    const loginOf = (key: number) => ordered.find((s) => s.githubUserId === key)!.githubLogin;
    if (holdAll) {
      deps.log.info("split held until someone with a share has a wallet", { repoId: split.githubRepoId, issue: split.issueNumber, waitingFor: missing.map((m) => loginOf(m.key)) });
      deps.changes.publish(["repositories", `repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
      return true;
    }
    const payable = paid.filter((p) => addresses.has(p.key));
    const recipients = payable.map((p) => addresses.get(p.key)! as Address);
    const amounts = payable.map((p) => p.amount);
    const held = missing.map((p) => ({ githubUserId: p.key, amount: p.amount }));
    const { tx } = await deps.outbox.submitOnce({
      userId: null,
      idempotencyKey: splitPayoutKey(split.githubRepoId, split.issueNumber),
      // What identifies the request is the split itself; its amounts are in the intent.
      request: { repoId: split.githubRepoId, issueNumber: split.issueNumber, split: true },
      kind: "pay_bounty",
      githubRepoId: split.githubRepoId,
      issueNumber: split.issueNumber,
      intent: {
        repoId: split.githubRepoId,
        issueNumber: split.issueNumber,
        contributor: recipients[0],
        recipients,
        amounts: amounts.map(String),
        logins: payable.map((p) => loginOf(p.key)),
        ...(held.length ? { held: held.map((h) => ({ githubUserId: h.githubUserId, login: loginOf(h.githubUserId), amount: h.amount.toString() })) } : {}),
        reason: `pull request #${split.pullNumber} merged, shared`,
      },
      signer: { kind: "operator" },
      to: deps.chain.config.contracts.rewards,
      data: splitPayoutData({ repoId: split.githubRepoId, issueNumber: split.issueNumber, recipients, amounts, held }),
    }, { queueOnly: Boolean(queued), fence: lock.fence });
    queued?.push(tx);
    await recordPayout(deps, split, tx.id, now);
    deps.log.info("split payout submitted", { repoId: split.githubRepoId, issue: split.issueNumber, tx: tx.txHash, txId: tx.id, recipients: payable.length, escrowed: held.length });
    return true;
  }
  // Sent before a crash (or by a concurrent pass): only the bookkeeping is left.
  await recordPayout(deps, split, existing.id, now);
  return true;
}

async function recordPayout(deps: Deps, split: PayoutSplit, txId: string, now: number): Promise<void> {
  await deps.database.db.transaction(async (tx) => {
    await tx.update(payoutSplitShares).set({ status: "paying", txId }).where(and(sharesWhere(split), eq(payoutSplitShares.status, "pending")));
    // An escrowed share's first transaction is the payout that put it in the escrow (its payTip comes later).
    await tx.update(payoutSplitShares).set({ txId }).where(and(sharesWhere(split), eq(payoutSplitShares.status, "escrowed"), isNull(payoutSplitShares.txId)));
    await tx.update(payoutSplits).set({ status: "released", releasedAt: new Date(now), updatedAt: new Date(now) }).where(and(splitWhere(split), eq(payoutSplits.status, "releasing")));
  });
  deps.changes.publish(["repositories", `repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
}

function sharesOf(deps: Pick<AppContext, "database">, split: Pick<PayoutSplit, "githubRepoId" | "issueNumber">): Promise<PayoutSplitShare[]> {
  return deps.database.db.select().from(payoutSplitShares).where(sharesWhere(split)).orderBy(asc(payoutSplitShares.position));
}

async function walletOfGitHubUser(deps: Pick<AppContext, "database">, githubUserId: number): Promise<string | undefined> {
  const [row] = await deps.database.db
    .select({ address: wallets.address })
    .from(users)
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(eq(users.githubId, githubUserId))
    .limit(1);
  return row?.address;
}

/**
 * Pays what waited for a registration (only `githubUserId`'s when given): the escrowed shares of people who now
 * have a wallet (payEscrowedShares), and the splits held whole because nobody with a share had one. Run on
 * registration and each webhook pass.
 */
export async function releaseHeldShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  return (await payEscrowedShares(deps, only)) + (await repayDroppedShares(deps, only)) + (await releaseHeldSplits(deps, only));
}

/**
 * A held share's payTip that the contract queued (over the repository's cap, or its money younger than the payout
 * delay, or a first payment to a new address above the threshold: usual for a wallet just registered) and the guardian
 * dropped (cancelOutflow: the share is held in the escrow again, its recipient cleared) is paid again to the person's
 * registered wallet, as a dropped tip is (tips.ts): under `split-share:<repo>:<issue>:<user>:dropped:<outflow id>`, so
 * once per drop whatever is retried, and only for a drop of the share's current payTip. Found from the indexed
 * OutflowCancelled events of escrow outflows (repository 0, the escrow id as the issue number: few rows).
 */
async function repayDroppedShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const db = deps.database.db;
  const cancelled = await db
    .select({ args: chainEvents.args, chainTipId: chainEvents.issueNumber })
    .from(chainEvents)
    .where(and(eq(chainEvents.repoId, 0), eq(chainEvents.name, "OutflowCancelled"), isNull(chainEvents.oldChain)));
  if (!cancelled.length) return 0;
  const drops = new Set(cancelled.map((c) => `${c.chainTipId}:${(JSON.parse(c.args) as { id: string }).id}`));
  const candidates = await db
    .select({ share: payoutSplitShares, pay: chainTransactions, address: wallets.address })
    .from(payoutSplitShares)
    .innerJoin(chainTransactions, eq(chainTransactions.id, payoutSplitShares.txId))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(
      and(
        eq(payoutSplitShares.status, "paying"),
        eq(chainTransactions.kind, "pay_tip"),
        eq(chainTransactions.status, "confirmed"),
        inArray(sql`json_extract(${chainTransactions.intent}, '$.chainTipId')`, [...new Set(cancelled.map((c) => String(c.chainTipId)))]),
        only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined,
      ),
    );
  let sent = 0;
  for (const { share, pay, address } of candidates) {
    if (!pay.txHash || share.amount === null) continue;
    const intent = JSON.parse(pay.intent) as { chainTipId: string };
    const [queued] = await db
      .select({ args: chainEvents.args })
      .from(chainEvents)
      .where(and(eq(chainEvents.txHash, pay.txHash), eq(chainEvents.name, "OutflowQueued"), isNull(chainEvents.oldChain)))
      .limit(1);
    const outflow = queued ? (JSON.parse(queued.args) as { id: string }).id : undefined;
    if (!outflow || !drops.has(`${intent.chainTipId}:${outflow}`)) continue;
    try {
      const key = `${heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId)}:dropped:${outflow}`;
      const { tx } = await deps.outbox.submitOnce({
        userId: null,
        idempotencyKey: key,
        request: { repoId: share.githubRepoId, issueNumber: share.issueNumber, githubUserId: share.githubUserId, chainTipId: intent.chainTipId, dropped: outflow },
        kind: "pay_tip",
        intent: {
          repoId: share.githubRepoId,
          issueNumber: share.issueNumber,
          chainTipId: intent.chainTipId,
          share: true,
          to: address,
          toLogin: share.githubLogin,
          amount: share.amount.toString(),
          reason: "held share of a split payout, paid again after the guardian dropped its queued payment",
          droppedOutflow: outflow,
        },
        signer: { kind: "operator" },
        to: deps.chain.config.contracts.rewards,
        data: heldSharePayData(BigInt(intent.chainTipId), address as Address),
      });
      await db
        .update(payoutSplitShares)
        .set({ txId: tx.id })
        .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.txId, pay.id)));
      deps.log.info("held split share paid again after the guardian dropped its queued payment", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, outflow });
      deps.changes.publish([`repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
      sent++;
    } catch (err) {
      deps.log.warn("dropped held split share not paid again yet; retried on the next pass", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, err: (err as Error).message });
    }
  }
  return sent;
}

async function releaseHeldSplits(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const held = await deps.database.db
    .selectDistinct({ split: payoutSplits })
    .from(payoutSplitShares)
    .innerJoin(payoutSplits, and(eq(payoutSplits.githubRepoId, payoutSplitShares.githubRepoId), eq(payoutSplits.issueNumber, payoutSplitShares.issueNumber)))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(payoutSplitShares.status, "held"), inArray(payoutSplits.status, ["releasing"]), only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined));
  let worked = 0;
  for (const { split } of held) {
    try {
      if (await releaseSplit(deps, split, Date.now())) worked++;
    } catch (err) {
      deps.log.warn("held split not paid yet; retried on the next pass", { repoId: split.githubRepoId, issue: split.issueNumber, err: (err as Error).message });
    }
  }
  return worked;
}

/** The contract's TipStatus.Refunded: for a held share, returned to its repository's pool. */
const TIP_REFUNDED = 4;

export const heldSharePayKey = (repoId: number, issueNumber: number, githubUserId: number) => `split-share:${repoId}:${issueNumber}:${githubUserId}`;

/**
 * The operator pays each escrowed share whose person now has a wallet to that wallet (`payTip`), once: one outbox
 * row per share under its key (a rerun after a crash finds it; a new attempt only after one failed or reverted,
 * which moved nothing), and the contract pays a held tip only once. A share whose payout is not confirmed yet, or
 * was queued by the contract and has not run (no BountyShareHeld yet), waits for the next pass.
 */
export async function payEscrowedShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const db = deps.database.db;
  const due = await db
    .select({ share: payoutSplitShares, address: wallets.address })
    .from(payoutSplitShares)
    .innerJoin(payoutSplits, and(eq(payoutSplits.githubRepoId, payoutSplitShares.githubRepoId), eq(payoutSplits.issueNumber, payoutSplitShares.issueNumber)))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(payoutSplitShares.status, "escrowed"), eq(payoutSplits.status, "released"), only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined))
    .limit(100);
  let paid = 0;
  for (const { share, address } of due) {
    try {
      if (!share.txId || share.amount === null) continue;
      const payout = await deps.outbox.get(share.txId);
      if (payout.status !== "confirmed" || !payout.txHash || payout.blockNumber === null) continue;
      const tipId = await heldShareTipId(deps, share, payout.txHash as Hex, payout.blockNumber);
      if (tipId === undefined) continue;
      if (!(await deps.outbox.findByKey(null, heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId)))) {
        // Nothing sent for it yet: unclaimed past the contract's refund delay, the pool manager may have returned it to
        // the pool (HeldShareReturned). Then there is nothing to pay, and no payTip is tried (it would only revert).
        const tip = await deps.chain.client.readContract({ address: deps.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getTip", args: [tipId] });
        if (tip.status === TIP_REFUNDED) {
          await db
            .update(payoutSplitShares)
            .set({ status: "returned" })
            .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.status, "escrowed")));
          deps.log.info("held split share was returned to the repository's pool before its person registered", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin });
          deps.changes.publish([`repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
          continue;
        }
      }
      const { tx } = await deps.outbox.submitOnce({
        userId: null,
        idempotencyKey: heldSharePayKey(share.githubRepoId, share.issueNumber, share.githubUserId),
        request: { repoId: share.githubRepoId, issueNumber: share.issueNumber, githubUserId: share.githubUserId, chainTipId: tipId.toString() },
        kind: "pay_tip",
        intent: {
          repoId: share.githubRepoId,
          issueNumber: share.issueNumber,
          chainTipId: tipId.toString(),
          share: true,
          to: address,
          toLogin: share.githubLogin,
          amount: share.amount.toString(),
          reason: "held share of a split payout, paid on registration",
        },
        signer: { kind: "operator" },
        to: deps.chain.config.contracts.rewards,
        data: heldSharePayData(tipId, address as Address),
      });
      await db
        .update(payoutSplitShares)
        .set({ status: "paying", txId: tx.id })
        .where(and(sharesWhere(share), eq(payoutSplitShares.githubUserId, share.githubUserId), eq(payoutSplitShares.status, "escrowed")));
      deps.log.info("held split share paid to its registered wallet", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, tx: tx.txHash });
      deps.changes.publish(["repositories", `repo:${share.githubRepoId}`, `bounty:${share.githubRepoId}:${share.issueNumber}`]);
      paid++;
    } catch (err) {
      deps.log.warn("held split share not paid yet; retried on the next pass", { repoId: share.githubRepoId, issue: share.issueNumber, login: share.githubLogin, err: (err as Error).message });
    }
  }
  return paid;
}

/**
 * The escrow's tip id of a held share: the BountyShareHeld for its person in the payout's own receipt, or, when
 * the contract queued the payout, in the transaction that ran it (the indexer's events, from the payout's block on).
 */
export async function heldShareTipId(deps: Pick<AppContext, "database" | "chain">, share: PayoutSplitShare, payoutHash: Hex, payoutBlock: number): Promise<bigint | undefined> {
  const receipt = await deps.chain.client.getTransactionReceipt({ hash: payoutHash });
  const mine = (args: { repoId: bigint; issueNumber: bigint; githubUserId: bigint }) =>
    args.repoId === BigInt(share.githubRepoId) && args.issueNumber === BigInt(share.issueNumber) && args.githubUserId === BigInt(share.githubUserId);
  const own = parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "BountyShareHeld" }).find((e) => mine(e.args));
  if (own) return own.args.tipId;
  const later = await heldShareEvent(deps, share, payoutBlock);
  return later ? BigInt((JSON.parse(later.args) as { tipId: string }).tipId) : undefined;
}
