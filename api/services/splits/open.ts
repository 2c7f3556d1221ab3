/**
 * Shared rewards (issue 29, item 4; docs/design.md, "Shared rewards").
 *
 * A merged pull request that closes a bountied issue and whose commits name
 * co-authors (co-authors.ts) does not pay its author at once: it opens a
 * split, equal shares for the author and each co-author, and a release
 * window (SPLIT_RELEASE_WINDOW_MS, 24 h by default) during which the pool
 * manager can set other shares (set-shares.ts: the repository page or
 * `/split @a 60 @b 40`). When the window is over the release pass
 * (release.ts) fixes each share's amount (shares.ts: they sum to the bounty,
 * the remainder in wei to the author) and pays each person through the
 * outbox, or holds their share until they register.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bounties, chainTransactions, payoutSplits, payoutSplitShares, type Currency, type PayoutSplit, type PayoutSplitShare, type Repository } from "../../../db/schema/index.ts";
import { tipDelivery } from "../tips/tips.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { notFound } from "../../errors.ts";
import type { CoAuthorTrailer, GitHubPerson } from "./co-authors.ts";
import { bpsToPercent, splitAmount } from "./shares.ts";
import { heldShareReturnableAt } from "./held-share-return-time.ts";

type Deps = Pick<AppContext, "database" | "env" | "log" | "changes">;

/** Published with a split opened: a release window shorter than the release pass's interval is released when it ends (release.ts). */
export const SPLIT_OPENED_TAG = "split-opened";

/**
 * Opens the split of one issue's bounty for a merged pull request (idempotent: a redelivered merge, or the
 * catch-up pass, finds the split already there). Bound to the bounty's allocation: a split left from an earlier
 * bounty of the same issue, since cancelled, is replaced.
 */
export async function openSplit(
  deps: Deps,
  input: {
    repository: Pick<Repository, "githubRepoId">;
    issueNumber: number;
    pullNumber: number;
    people: GitHubPerson[];
    unresolved: CoAuthorTrailer[];
    now?: number;
    /**
     * The open bounty as the chain states it, with its round. A bounty the pool has no share in this round (funded by
     * boosts alone: a community bounty, or a round boosts started after the pool's bounty ended) has no open row in the
     * mirror (docs/design.md): its split is bound to its on-chain round instead of an allocation.
     */
    onChain?: { currency: Currency; amount: bigint; round: bigint };
  },
): Promise<PayoutSplit | undefined> {
  const db = deps.database.db;
  const repoId = input.repository.githubRepoId;
  const [row] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, input.issueNumber))).limit(1);
  const bounty =
    row?.status === "open"
      ? row
      : input.onChain && (!row || row.status === "cancelled")
        ? { allocatedTx: `round:${input.onChain.round}`, currency: input.onChain.currency, amount: input.onChain.amount }
        : undefined;
  // The indexer mirrors the allocation from its confirmed block; the webhook is retried until it has.
  if (!bounty) throw new Error(`split: no open bounty mirrored for ${repoId}#${input.issueNumber} yet`);
  const author = input.people[0]!;
  const now = input.now ?? Date.now();
  const opened = await db.transaction(async (tx) => {
    const [existing] = await tx.select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, repoId), eq(payoutSplits.issueNumber, input.issueNumber))).limit(1);
    if (existing?.allocatedTx === bounty.allocatedTx) return undefined;
    if (existing) {
      await tx.delete(payoutSplitShares).where(and(eq(payoutSplitShares.githubRepoId, repoId), eq(payoutSplitShares.issueNumber, input.issueNumber)));
      await tx.delete(payoutSplits).where(and(eq(payoutSplits.githubRepoId, repoId), eq(payoutSplits.issueNumber, input.issueNumber)));
    }
    const [row] = await tx
      .insert(payoutSplits)
      .values({
        githubRepoId: repoId,
        issueNumber: input.issueNumber,
        allocatedTx: bounty.allocatedTx,
        pullNumber: input.pullNumber,
        authorGithubId: author.id,
        authorLogin: author.login,
        currency: bounty.currency,
        // The whole bounty (pool's share + funders' shares) as the chain states it: the mirror's amount is the pool's share.
        amount: input.onChain?.amount ?? bounty.amount,
        releaseAt: new Date(now + deps.env.SPLIT_RELEASE_WINDOW_MS),
        unresolved: JSON.stringify(input.unresolved),
        createdAt: new Date(now),
        updatedAt: new Date(now),
      })
      .returning();
    await tx.insert(payoutSplitShares).values(
      input.people.map((p, position) => ({ githubRepoId: repoId, issueNumber: input.issueNumber, githubUserId: p.id, githubLogin: p.login, position, weight: 1 })),
    );
    return row;
  });
  if (opened) {
    deps.log.info("split opened for a co-authored pull request", { repoId, issue: input.issueNumber, pr: input.pullNumber, people: input.people.map((p) => p.login) });
    deps.changes.publish(["repositories", `repo:${repoId}`, `bounty:${repoId}:${input.issueNumber}`, SPLIT_OPENED_TAG]);
  }
  return opened;
}

export interface SplitShareView {
  login: string;
  githubUserId: number;
  /** The share as a percentage ("50", "33.33"); the exact amount once released. */
  percent: string;
  amount: string;
  isAuthor: boolean;
  /**
   * pending (window), held (no wallet yet: in the contract's escrow for their GitHub id once the others were paid,
   * paid to their wallet when they register), paying, queued (the contract delays the payout), paid, returned (held,
   * never claimed, and returned to the repository's pool after 30 days).
   */
  status: "pending" | "held" | "paying" | "queued" | "paid" | "returned";
  /** A share held in the escrow: from when the pool manager may return it to the pool, unclaimed (null otherwise). */
  returnableAt: string | null;
  /** That time has come by the chain's clock (which the contract goes by): the pool manager may return it now. */
  returnable: boolean;
  transactionHash: string | null;
  explorerUrl: string | null;
}

export interface SplitView {
  repoId: number;
  issueNumber: number;
  pullNumber: number;
  author: string;
  currency: string;
  amount: string;
  status: PayoutSplit["status"];
  releaseAt: string;
  /** Set by the pool manager (false: the default, equal shares). */
  custom: boolean;
  shares: SplitShareView[];
  unresolved: CoAuthorTrailer[];
}

/** A split as the API and the bot show it. Amounts are exact (the whole split by shares.ts until released). */
export async function splitView(deps: Pick<AppContext, "database" | "chain">, split: PayoutSplit): Promise<SplitView> {
  const db = deps.database.db;
  const shares = await db
    .select({ share: payoutSplitShares, txStatus: chainTransactions.status, txHash: chainTransactions.txHash, txKind: chainTransactions.kind, txIntent: chainTransactions.intent })
    .from(payoutSplitShares)
    .leftJoin(chainTransactions, eq(chainTransactions.id, payoutSplitShares.txId))
    .where(and(eq(payoutSplitShares.githubRepoId, split.githubRepoId), eq(payoutSplitShares.issueNumber, split.issueNumber)))
    .orderBy(asc(payoutSplitShares.position));
  // Over a cap, or young money, or a new recipient above the threshold: the contract queued the whole split
  // (one outflow, paid after its delay): the shares say so rather than "paid".
  const [mirror] = await db.select({ status: bounties.status, allocatedTx: bounties.allocatedTx }).from(bounties).where(and(eq(bounties.githubRepoId, split.githubRepoId), eq(bounties.issueNumber, split.issueNumber))).limit(1);
  const queued = mirror?.status === "queued" && mirror.allocatedTx === split.allocatedTx;
  const weights = shares.map((s) => ({ key: s.share.githubUserId, weight: BigInt(s.share.weight) }));
  const total = weights.reduce((sum, w) => sum + w.weight, 0n);
  const projected = weights.length ? splitAmount(split.amount, weights, split.authorGithubId) : [];
  const decimals = DECIMALS[split.currency];
  // The contract goes by the chain's clock, not this server's: read once, and only when a share is held.
  let chainNow: Promise<number> | undefined;
  const returnTime = async (share: PayoutSplitShare): Promise<{ returnableAt: string | null; returnable: boolean }> => {
    const at = share.status === "escrowed" ? await heldShareReturnableAt(deps, share) : null;
    if (!at) return { returnableAt: null, returnable: false };
    chainNow ??= deps.chain.client.getBlock({ blockTag: "latest" }).then((b) => Number(b.timestamp) * 1000, () => Date.now());
    return { returnableAt: at.toISOString(), returnable: at.getTime() <= (await chainNow) };
  };
  return {
    repoId: split.githubRepoId,
    issueNumber: split.issueNumber,
    pullNumber: split.pullNumber,
    author: split.authorLogin,
    currency: split.currency,
    amount: toDecimalString(split.amount, decimals),
    status: split.status,
    releaseAt: split.releaseAt.toISOString(),
    custom: split.setBy !== null,
    shares: await Promise.all(shares.map(async ({ share, txStatus, txHash, txKind, txIntent }, i) => ({
      login: share.githubLogin,
      githubUserId: share.githubUserId,
      percent: bpsToPercent((BigInt(share.weight) * 10_000n) / (total || 1n)),
      amount: toDecimalString(share.amount ?? projected[i]!.amount, decimals),
      isAuthor: share.githubUserId === split.authorGithubId,
      status: await shareStatus(deps, share.status, txStatus, txHash, txKind === "pay_tip" ? txIntent : null, queued),
      ...(await returnTime(share)),
      transactionHash: txHash ?? null,
      explorerUrl: txHash ? explorerTxUrl(deps.chain.config.network, txHash) : null,
    }))),
    unresolved: JSON.parse(split.unresolved) as CoAuthorTrailer[],
  };
}

/**
 * A share's state as shown: an escrowed share is held (for its person, in the contract); a share in a confirmed
 * payout is paid, or queued when the contract queued it (the split's payout: the mirror's bounty is queued; an
 * escrowed share's payTip: its TipPaid is not there yet).
 */
async function shareStatus(
  deps: Pick<AppContext, "database" | "chain">,
  status: PayoutSplitShare["status"],
  txStatus: string | null,
  txHash: string | null,
  payTipIntent: string | null,
  splitQueued: boolean,
): Promise<SplitShareView["status"]> {
  if (status === "escrowed") return "held";
  if (status !== "paying" || txStatus !== "confirmed") return status;
  if (payTipIntent === null || !txHash) return splitQueued ? "queued" : "paid";
  const { chainTipId } = JSON.parse(payTipIntent) as { chainTipId: string };
  const { state } = await tipDelivery(deps, { chainTipId }, txHash);
  // Dropped by the guardian: held in the escrow again, until the platform pays it again (release.ts, repayDroppedShares).
  return state === "dropped" ? "held" : state;
}

export async function splitOf(deps: Pick<AppContext, "database">, repoId: number, issueNumber: number): Promise<PayoutSplit | undefined> {
  const [row] = await deps.database.db.select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, repoId), eq(payoutSplits.issueNumber, issueNumber))).limit(1);
  return row;
}

/** GET /api/splits/{repoId}/{issueNumber} */
export async function issueSplit(deps: Pick<AppContext, "database" | "chain">, repoId: number, issueNumber: number): Promise<SplitView> {
  const split = await splitOf(deps, repoId, issueNumber);
  if (!split) throw notFound("This issue's bounty is not split.");
  return splitView(deps, split);
}

/** GET /api/splits/{repoId}: the repository's splits in their window or being paid, then the latest released. */
export async function repositorySplits(deps: Pick<AppContext, "database" | "chain">, repoId: number): Promise<SplitView[]> {
  const rows = await deps.database.db
    .select()
    .from(payoutSplits)
    .where(and(eq(payoutSplits.githubRepoId, repoId), inArray(payoutSplits.status, ["window", "releasing", "released"])))
    .orderBy(asc(payoutSplits.releaseAt))
    .limit(100);
  return Promise.all(rows.map((r) => splitView(deps, r)));
}
