/**
 * The release of splits whose window is over (open.ts has the whole story).
 * Crash-safe and exactly once:
 *   1. the split is claimed with one conditional write (window -> releasing),
 *      so a pool manager's late change and the release cannot both win;
 *   2. each share's amount is fixed once (shares.ts; written only where
 *      still empty, in one transaction): a rerun computes nothing new;
 *   3. each share is paid by one outbox row under its own key
 *      `split-share:<repo>:<issue>:<githubUserId>`: a rerun after a crash
 *      finds that row instead of sending again (a new attempt only after the
 *      previous one failed or reverted, which moved nothing), and the
 *      contract refuses to pay a bounty beyond its amount besides;
 *   4. a person without a wallet is held (their share stays in the escrow)
 *      and paid by the same key when they register.
 * The pass is leased, so one process at a time runs it.
 */
import { and, asc, eq, inArray, isNull, lte, or } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { payoutSplits, payoutSplitShares, users, wallets, type PayoutSplit, type PayoutSplitShare } from "../../../db/schema/index.ts";
import { takeLease } from "../../workers/lease.ts";
import { onChainBounty } from "../money/bounties.ts";
import { ContractLacksSplits, shareCallData } from "./chain.ts";
import { splitAmount } from "./shares.ts";

type Deps = Pick<AppContext, "database" | "chain" | "outbox" | "log" | "changes" | "indexer">;

export const shareKey = (repoId: number, issueNumber: number, githubUserId: number) => `split-share:${repoId}:${issueNumber}:${githubUserId}`;
const LEASE = "split-release";

/** One pass: every split whose window is over is claimed and paid (or held). Returns how many it worked on. */
export async function releaseDueSplits(deps: Deps, options: { owner?: string; leaseMs?: number; now?: number } = {}): Promise<number> {
  const now = options.now ?? Date.now();
  const owner = options.owner ?? `split-release:${process.pid}`;
  if (!(await takeLease(deps.database.db, LEASE, owner, options.leaseMs ?? 60_000, now))) return 0;
  const due = await deps.database.db
    .select()
    .from(payoutSplits)
    .where(or(and(eq(payoutSplits.status, "window"), lte(payoutSplits.releaseAt, new Date(now))), eq(payoutSplits.status, "releasing")))
    .orderBy(asc(payoutSplits.releaseAt))
    .limit(50);
  let worked = 0;
  for (const split of due) {
    try {
      if (await releaseSplit(deps, split, now)) worked++;
    } catch (err) {
      if (err instanceof ContractLacksSplits) {
        deps.log.warn("a split is due but the contract cannot pay shares yet", { repoId: split.githubRepoId, issue: split.issueNumber });
        continue;
      }
      deps.log.warn("split release failed; retried on the next pass", { repoId: split.githubRepoId, issue: split.issueNumber, err: (err as Error).message });
    }
  }
  return worked;
}

async function releaseSplit(deps: Deps, found: PayoutSplit, now: number): Promise<boolean> {
  const db = deps.database.db;
  const where = and(eq(payoutSplits.githubRepoId, found.githubRepoId), eq(payoutSplits.issueNumber, found.issueNumber));
  let split = found;
  if (split.status === "window") {
    const [claimed] = await db
      .update(payoutSplits)
      .set({ status: "releasing", updatedAt: new Date(now) })
      .where(and(where, eq(payoutSplits.status, "window"), lte(payoutSplits.releaseAt, new Date(now))))
      .returning();
    if (!claimed) return false;
    split = claimed;
  }
  let shares = await sharesOf(deps, split);
  if (shares.some((s) => s.amount === null)) {
    // Nothing fixed yet, so nothing sent yet: is the bounty still there to split? Paid by hand or cancelled
    // meanwhile, the split no longer applies.
    const bounty = await onChainBounty(deps, split.githubRepoId, split.issueNumber);
    if (bounty.status !== "open") {
      await db.update(payoutSplits).set({ status: "superseded", updatedAt: new Date(now) }).where(and(where, eq(payoutSplits.status, "releasing")));
      deps.log.info("split superseded: the bounty was paid or cancelled another way", { repoId: split.githubRepoId, issue: split.issueNumber, status: bounty.status });
      deps.changes.publish([`repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
      return true;
    }
    const parts = splitAmount(split.amount, shares.map((s) => ({ key: s.githubUserId, weight: BigInt(s.weight) })), split.authorGithubId);
    await db.transaction(async (tx) => {
      for (const part of parts) {
        await tx
          .update(payoutSplitShares)
          .set({ amount: part.amount })
          .where(and(eq(payoutSplitShares.githubRepoId, split.githubRepoId), eq(payoutSplitShares.issueNumber, split.issueNumber), eq(payoutSplitShares.githubUserId, part.key), isNull(payoutSplitShares.amount)));
      }
    });
    shares = await sharesOf(deps, split);
  }
  for (const share of shares) if (share.status === "pending") await payShare(deps, split, share);
  const left = await db
    .select({ n: payoutSplitShares.githubUserId })
    .from(payoutSplitShares)
    .where(and(eq(payoutSplitShares.githubRepoId, split.githubRepoId), eq(payoutSplitShares.issueNumber, split.issueNumber), eq(payoutSplitShares.status, "pending")));
  if (left.length === 0) {
    await db.update(payoutSplits).set({ status: "released", releasedAt: new Date(now), updatedAt: new Date(now) }).where(and(where, eq(payoutSplits.status, "releasing")));
  }
  deps.changes.publish(["repositories", `repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
  return true;
}

function sharesOf(deps: Pick<AppContext, "database">, split: Pick<PayoutSplit, "githubRepoId" | "issueNumber">): Promise<PayoutSplitShare[]> {
  return deps.database.db
    .select()
    .from(payoutSplitShares)
    .where(and(eq(payoutSplitShares.githubRepoId, split.githubRepoId), eq(payoutSplitShares.issueNumber, split.issueNumber)))
    .orderBy(asc(payoutSplitShares.position));
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

/** Pays one share (or holds it: no wallet yet). The outbox row's key makes a second call find the first. */
async function payShare(deps: Deps, split: PayoutSplit, share: PayoutSplitShare): Promise<void> {
  const db = deps.database.db;
  const which = and(eq(payoutSplitShares.githubRepoId, share.githubRepoId), eq(payoutSplitShares.issueNumber, share.issueNumber), eq(payoutSplitShares.githubUserId, share.githubUserId));
  if (share.amount === 0n) {
    await db.update(payoutSplitShares).set({ status: "paid", paidAt: new Date() }).where(which);
    return;
  }
  const address = await walletOfGitHubUser(deps, share.githubUserId);
  if (!address) {
    await db.update(payoutSplitShares).set({ status: "held" }).where(and(which, eq(payoutSplitShares.status, "pending")));
    deps.log.info("split share held for a GitHub user without a wallet", { repoId: split.githubRepoId, issue: split.issueNumber, login: share.githubLogin });
    return;
  }
  const input = { repoId: split.githubRepoId, issueNumber: split.issueNumber, to: address as Address, amount: share.amount! };
  const { tx } = await deps.outbox.submitOnce({
    userId: null,
    idempotencyKey: shareKey(split.githubRepoId, split.issueNumber, share.githubUserId),
    request: { repoId: input.repoId, issueNumber: input.issueNumber, githubUserId: share.githubUserId, amount: input.amount.toString() },
    kind: "pay_bounty_share",
    githubRepoId: split.githubRepoId,
    issueNumber: split.issueNumber,
    intent: {
      repoId: input.repoId,
      issueNumber: input.issueNumber,
      contributor: address,
      login: share.githubLogin,
      currency: split.currency,
      amount: input.amount.toString(),
      reason: `share of pull request #${split.pullNumber}`,
    },
    signer: { kind: "operator" },
    to: deps.chain.config.contracts.rewards,
    data: shareCallData(input),
  });
  await db.update(payoutSplitShares).set({ status: "paying", txId: tx.id }).where(which);
  deps.log.info("split share payout submitted", { repoId: split.githubRepoId, issue: split.issueNumber, login: share.githubLogin, tx: tx.txHash });
}

/** Pays the held shares of people who now have a wallet (only `githubUserId`'s when given): run on registration and each webhook pass. */
export async function releaseHeldShares(deps: Deps, only?: { githubUserId: number }): Promise<number> {
  const held = await deps.database.db
    .select({ share: payoutSplitShares, split: payoutSplits })
    .from(payoutSplitShares)
    .innerJoin(payoutSplits, and(eq(payoutSplits.githubRepoId, payoutSplitShares.githubRepoId), eq(payoutSplits.issueNumber, payoutSplitShares.issueNumber)))
    .innerJoin(users, eq(users.githubId, payoutSplitShares.githubUserId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(payoutSplitShares.status, "held"), inArray(payoutSplits.status, ["releasing", "released"]), only ? eq(payoutSplitShares.githubUserId, only.githubUserId) : undefined));
  let paid = 0;
  for (const { share, split } of held) {
    try {
      // Stays held until its payout row exists (payShare marks it paying then): a crash in between retries it.
      await payShare(deps, split, share);
      paid++;
      deps.changes.publish([`repo:${split.githubRepoId}`, `bounty:${split.githubRepoId}:${split.issueNumber}`]);
    } catch (err) {
      if (err instanceof ContractLacksSplits) continue;
      deps.log.warn("held split share not paid yet; retried on the next pass", { repoId: split.githubRepoId, issue: split.issueNumber, err: (err as Error).message });
    }
  }
  return paid;
}
