import { and, asc, eq, gt, inArray, isNull, notInArray, or, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import { encodeFunctionData, type Address } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { bounties, bountyClaims, chainTransactions, repositoryPools, users, wallets, type Bounty, type ChainTransaction, type Currency, type User } from "../../../db/schema/index.ts";
import { conflict, DomainError, ErrorCode, notFound } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { formatAmount, formatExact } from "../../../lib/money-format.ts";
import { createGitHubClient, GitHubApiError, type GitHubClient } from "../../github/client.ts";
import { encodeFullName, githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { registeredRepository, requireManagedRepository } from "./access.ts";
import { CURRENCY_INDEX, MIN_BOUNTY, requireAmountStep } from "./rules.ts";
import { withQueuedOutflow, transactionResult, type TransactionResult } from "./transaction-result.ts";
import { isAwaiting } from "./awaiting.ts";
import { bountyStates, type BountyStateInfo } from "./bounty-state.ts";
import { holdPayout } from "../github-events/holds.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import type { FixFacts } from "../payouts/fixes.ts";
import { payBounty } from "../payouts/pay.ts";
import { fixesOfIssue, recordCommitment, settleMergedFix } from "../payouts/settle.ts";
import { poolDebitsAfter, poolSnapshot, withBountyLock, withPoolLock } from "./pool-guard.ts";
import { fundersOfIssues, type IssueFunders } from "../funding/funders-read.ts";
import { attemptStanding, startAttempt } from "../attempts/attempts.ts";

const walletOwner = preparedQuery((db) => db.select({ userId: wallets.userId }).from(wallets).where(eq(wallets.address, sql.placeholder("address"))).limit(1).prepare());

const BOUNTY_WAIT_MS = 12_000; // the client gives up at 15 s (spec section 7)

const invalid = (message: string, code: ErrorCode = ErrorCode.INVALID_AMOUNT) => new DomainError({ code, error: "Invalid Amount", message });

export interface AllocateInput {
  user: User;
  repoId: number;
  issueNumber: number;
  bountyAmount: unknown;
  currency: Currency;
  githubRepoFullName?: string | null;
  issueTitle?: string;
  issueUrl?: string;
  idempotencyKey: string;
}

/**
 * POST /api/blockchain/allocate-bounty/{repoId}/{issueId}: moves an amount
 * from the pool to an open issue's bounty, final once set. Checked here
 * whatever the client sent: manager and admin rights, an open issue of this
 * repository (not a pull request), the currency's minimum, the pool's
 * balance, and no bounty already assigned. The operator signs (the platform
 * acts for the verified pool manager), and the answer waits for confirmation
 * up to 12 s.
 */
export async function allocateBounty(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "indexer">, input: AllocateInput): Promise<TransactionResult> {
  const request = {
    route: "allocate_bounty",
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    bountyAmount: String(input.bountyAmount),
    currency: input.currency,
  };
  const messages = {
    pending: "Bounty submitted but not yet confirmed (timeout)",
    confirmed: `${input.currency} bounty assigned`,
    failedTitle: `Error Assigning ${input.currency} Bounty`,
  };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    // The admin check and the open-issue check ask GitHub side by side; an access error is reported first.
    const [managed, checkedIssue] = await Promise.allSettled([
      requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, action: "setBounty" }),
      input.user.role === "poolmanager"
        ? registeredRepository(ctx, input.repoId).then(async (repository) =>
            openIssue(createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, input.user) }), repository.fullName, input.issueNumber),
          )
        : Promise.resolve(undefined),
    ]);
    if (managed.status === "rejected") throw managed.reason;
    if (checkedIssue.status === "rejected") throw checkedIssue.reason;
    const issue = checkedIssue.value!;
    tx = await submitAllocation(ctx, {
      userId: input.user.id,
      idempotencyKey: input.idempotencyKey,
      request,
      repoId: input.repoId,
      issueNumber: input.issueNumber,
      currency: input.currency,
      amount: input.bountyAmount,
      issue,
      replayChecked: true,
    });
  }
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return transactionResult(ctx, settled, messages);
}

/**
 * The rules every bounty allocation passes, wherever it comes from (the
 * API, a `/bounty` comment): the currency's minimum, no bounty already
 * assigned (final once set), not more than the pool holds. Then the operator
 * transaction. The caller has checked who may allocate and that the issue is
 * open.
 */
export async function submitAllocation(
  ctx: Pick<AppContext, "env" | "database" | "chain" | "outbox">,
  input: {
    userId: number | null;
    idempotencyKey: string;
    request: unknown;
    repoId: number;
    issueNumber: number;
    currency: Currency;
    amount: unknown;
    issue: { title: string; html_url: string; labels?: GitHubIssue["labels"] };
    /** The caller has just looked the key up (outbox.replay). */
    replayChecked?: boolean;
  },
) {
  const decimals = DECIMALS[input.currency];
  const parsed = parseAmount(input.amount, decimals);
  if (!parsed.ok || parsed.value === 0n) throw invalid("Please enter a valid bounty amount.");
  const amount = parsed.value;
  const minimum = MIN_BOUNTY[input.currency];
  if (amount < minimum) throw invalid(`Minimum bounty must be at least ${toDecimalString(minimum, decimals)} ${input.currency}`, ErrorCode.BELOW_MINIMUM);
  requireAmountStep(amount, input.currency);
  // Checked and queued under the pool's lock, counting what is already on its way out of the pool and any allocation
  // of this issue not yet mined: of concurrent allocations only those the pool covers are sent, the rest get the
  // platform's 400/409 and cost nobody gas (issue 25). Only the row is written under the lock: the next holder counts
  // it as a debit on its way from the moment it exists (queued), so its signing and broadcast wait outside (they were
  // two thirds of the lock's time: allocations into one pool queued behind each other's signing pass).
  // The chain's figures are read before the lock, at one block (pool-guard.ts, PoolSnapshot): under the lock, only
  // the database is read, and what happened on-chain since that block is counted from the outbox's rows.
  const snapshot = await poolSnapshot(ctx, input.repoId);
  const bountyThen = onChainBounty(ctx, input.repoId, input.issueNumber, snapshot.block);
  bountyThen.catch(() => undefined); // awaited under the lock (or not at all: a replay)
  const queued = await withPoolLock(ctx, input.repoId, async (lock) => {
    // One round of reads, side by side (the section's length is how many rounds it waits for the database).
    const [earlier, pending, inFlight, boostedSince] = await Promise.all([
      ctx.outbox.replay(input.userId, input.idempotencyKey, input.request),
      poolDebitsAfter(ctx, input.repoId, input.currency, snapshot),
      pendingAllocation(ctx, input.repoId, input.issueNumber, snapshot.block),
      boostsAfter(ctx, input.repoId, input.issueNumber, snapshot.block),
    ]);
    if (earlier) return earlier;
    // A boost may have opened a community bounty on this issue since the block: then the bounty as it is now.
    const current = boostedSince ? await onChainBounty(ctx, input.repoId, input.issueNumber) : await bountyThen;
    const pool = snapshot.pool;
    if (current.status === "open" || current.status === "paid") {
      throw conflict(
        `A bounty of ${formatExact(current.amount, current.currency)} ${current.currency} is already assigned. You cannot change it.`,
        "Bounty already assigned",
        ErrorCode.BOUNTY_EXISTS,
      );
    }
    if (inFlight) {
      throw conflict(`A bounty of ${formatExact(inFlight.amount, inFlight.currency)} ${inFlight.currency} is already being assigned. You cannot change it.`, "Bounty already assigned", ErrorCode.BOUNTY_EXISTS);
    }
    const available = pool[input.currency] - pending;
    if (amount > available) {
      throw invalid(`Amount cannot exceed available ${input.currency} pool balance (${formatAmount(available > 0n ? available : 0n, input.currency, 4)} ${input.currency})`);
    }
    const { tx } = await ctx.outbox.enqueue({
      userId: input.userId,
      idempotencyKey: input.idempotencyKey,
      request: input.request,
      kind: "allocate_bounty",
      githubRepoId: input.repoId,
      issueNumber: input.issueNumber,
      intent: {
        repoId: input.repoId,
        issueNumber: input.issueNumber,
        currency: input.currency,
        amount: amount.toString(),
        issueTitle: input.issue.title,
        issueUrl: input.issue.html_url,
        // Remembered with the bounty for /explore's label filter (api/chain/indexer-mirror.ts).
        issueLabels: (input.issue.labels ?? []).flatMap((l) => (typeof l === "string" ? [l] : l.name ? [l.name] : [])),
      },
      signer: { kind: "operator" },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({
        abi: RepoRewardsAbi,
        functionName: "allocateBounty",
        args: [BigInt(input.repoId), BigInt(input.issueNumber), CURRENCY_INDEX[input.currency], amount],
      }),
    }, undefined, { replayChecked: true, fence: lock.fence });
    return tx;
  });
  return ctx.outbox.untilBroadcast(queued);
}

interface GitHubIssue {
  number: number;
  title: string;
  html_url: string;
  state: string;
  pull_request?: unknown;
  labels?: (string | { name?: string })[];
}


/**
 * An allocation of this issue on its way to the chain (queued, signed or sent), or confirmed after `block` (the block
 * the bounty was read at does not show it), if any.
 */
async function pendingAllocation(ctx: DatabaseDeps, repoId: number, issueNumber: number, block: bigint): Promise<{ currency: Currency; amount: bigint } | undefined> {
  const [row] = await ctx.database.db
    .select({ intent: chainTransactions.intent })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "allocate_bounty"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        isNull(chainTransactions.oldChain),
        or(notInArray(chainTransactions.status, ["confirmed", "failed", "reverted"]), and(eq(chainTransactions.status, "confirmed"), gt(chainTransactions.blockNumber, Number(block)))),
      ),
    )
    .limit(1);
  if (!row) return undefined;
  const intent = JSON.parse(row.intent) as { currency: Currency; amount: string };
  return { currency: intent.currency, amount: BigInt(intent.amount) };
}

/** Whether a boost of this issue may have reached the chain after `block` (sent or mined with no block recorded, or after it). */
async function boostsAfter(ctx: DatabaseDeps, repoId: number, issueNumber: number, block: bigint): Promise<boolean> {
  const [row] = await ctx.database.db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(
      and(
        eq(chainTransactions.kind, "boost"),
        eq(chainTransactions.githubRepoId, repoId),
        eq(chainTransactions.issueNumber, issueNumber),
        isNull(chainTransactions.oldChain),
        or(inArray(chainTransactions.status, ["signed", "sent"]), and(eq(chainTransactions.status, "confirmed"), gt(chainTransactions.blockNumber, Number(block)))),
      ),
    )
    .limit(1);
  return Boolean(row);
}

/** The issue, if it is an open issue (not a pull request) of the repository. */
export async function openIssue(client: GitHubClient, fullName: string, number: number): Promise<GitHubIssue> {
  let issue: GitHubIssue;
  try {
    issue = await client.get<GitHubIssue>(`/repos/${encodeFullName(fullName)}/issues/${number}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`Issue #${number} was not found in ${fullName}.`);
    throw githubUnavailable();
  }
  if (issue.pull_request) throw new DomainError({ code: ErrorCode.NOT_AN_ISSUE, error: "Not an issue", message: `#${number} is a pull request, not an issue.` });
  if (issue.state !== "open") throw new DomainError({ code: ErrorCode.ISSUE_CLOSED, error: "Issue closed", message: `Issue #${number} is closed.` });
  return issue;
}

export interface OnChainBounty {
  currency: Currency;
  amount: bigint;
  status: "none" | "open" | "paid" | "cancelled" | "queued";
  recipient: Address;
}

/** The bounty as the chain states it now, or at `block`. */
export async function onChainBounty(ctx: Pick<AppContext, "chain">, repoId: number, issueNumber: number, block?: bigint): Promise<OnChainBounty> {
  const [currency, amount, status, recipient] = (await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getBounty",
    args: [BigInt(repoId), BigInt(issueNumber)],
    ...(block === undefined ? {} : { blockNumber: block }),
  })) as readonly [number, bigint, number, Address];
  return { currency: CURRENCY_BY_INDEX[currency]!, amount, status: (["none", "open", "paid", "cancelled", "queued"] as const)[status]!, recipient };
}

export async function onChainPool(ctx: Pick<AppContext, "chain">, repoId: number): Promise<Record<Currency, bigint>> {
  const [xdc, roxn, usdc] = (await ctx.chain.client.readContract({
    address: ctx.chain.config.contracts.rewards,
    abi: RepoRewardsAbi,
    functionName: "getPool",
    args: [BigInt(repoId)],
  })) as readonly [bigint, bigint, bigint];
  return { XDC: xdc, ROXN: roxn, USDC: usdc };
}

/** GET /api/blockchain/issue-bounty/{repoId}/{issueId}: from the mirror; 404 when there is none. */
export async function issueBounty(ctx: DatabaseDeps, repoId: number, issueNumber: number) {
  const [bounty] = await ctx.database.db
    .select()
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber)))
    .limit(1);
  if (!bounty || bounty.status === "cancelled") throw notFound("No bounty is assigned to this issue.");
  const funded = await fundersOfIssues(ctx.database.db, repoId, [issueNumber]);
  return bountyObject(bounty, (await bountyStates(ctx, [bounty]))(bounty), funded.get(issueNumber));
}

/**
 * A bounty as the API shows it: `status` is the chain's (open, paid,
 * cancelled), `state` the platform's refinement (bounty-state.ts); the
 * amounts are the pool's share, `boosted` the funders' active shares and
 * `total` the two together, the one figure every page shows (issue 38).
 */
export function bountyObject(bounty: Bounty, info?: BountyStateInfo, funding?: IssueFunders) {
  const amount = toDecimalString(bounty.amount, DECIMALS[bounty.currency]);
  return {
    issueId: bounty.issueNumber,
    isRoxn: bounty.currency === "ROXN",
    currency: bounty.currency,
    xdcAmount: bounty.currency === "XDC" ? amount : "0",
    roxnAmount: bounty.currency === "ROXN" ? amount : "0",
    usdcAmount: bounty.currency === "USDC" ? amount : "0",
    status: bounty.status,
    recipient: bounty.recipient ? toXdcAddress(bounty.recipient) : null,
    transactionHash: bounty.paidTx ?? bounty.allocatedTx,
    state: info?.state ?? bounty.status,
    heldFor: info?.heldFor ?? null,
    awaitingReason: info?.awaitingReason ?? null,
    issueTitle: bounty.issueTitle,
    issueUrl: bounty.issueUrl,
    ...fundersOf(funding, bounty),
  };
}

/** GET /api/blockchain/pool-info/{repoId}: pools and the issues' bounties, from the mirror. */
export async function poolInfo(ctx: DatabaseDeps, repoId: number) {
  await registeredRepository(ctx, repoId);
  const db = ctx.database.db;
  const [pools, rows] = await Promise.all([
    db.select().from(repositoryPools).where(eq(repositoryPools.githubRepoId, repoId)),
    db.select().from(bounties).where(eq(bounties.githubRepoId, repoId)).orderBy(asc(bounties.issueNumber)),
  ]);
  const pool = (c: Currency) => pools.find((p) => p.currency === c)?.balance ?? 0n;
  const stateOf = await bountyStates(ctx, rows);
  const funded = await fundersOfIssues(db, repoId);
  return {
    xdcPoolRewards: toDecimalString(pool("XDC"), 18),
    roxnPoolRewards: toDecimalString(pool("ROXN"), 18),
    usdcPoolRewards: toDecimalString(pool("USDC"), 6),
    issues: rows.filter((b) => b.status !== "cancelled").map((b) => bountyObject(b, stateOf(b), funded.get(b.issueNumber))),
  };
}

/**
 * The funders beside a bounty (issue 29): their active shares and who they are (anonymous ones without a login), and
 * the bounty's total: the pool's share and the funders' active shares (a paid bounty's shares are paid, not active: its
 * amount is the whole payout).
 */
export function fundersOf(funding: IssueFunders | undefined, bounty: Pick<Bounty, "currency" | "amount">) {
  const currency = bounty.currency;
  return {
    total: toDecimalString(bounty.amount + (funding?.boosted ?? 0n), DECIMALS[currency]),
    boosted: toDecimalString(funding?.boosted ?? 0n, DECIMALS[currency]),
    funders: (funding?.funders ?? []).map((f) => ({ funder: f.funder, amount: f.amount, fundedAt: f.fundedAt, expiresAt: f.expiresAt })),
  };
}

/** A bounty released to a GitHub user without a wallet: held for them, paid when they register. */
export interface HeldResult {
  status: "held";
  heldFor: string;
  message: string;
  transactionHash: null;
  explorerUrl: null;
}

/**
 * POST /api/blockchain/distribute-bounty/{repoId}/{issueId}: the pool
 * manager releases an open bounty by hand (also one awaiting their
 * decision), to `contributorAddress` (a registered user's wallet) or to
 * `contributorLogin` (any GitHub user: their wallet when they have one, else
 * the bounty is held for them and paid when they register). Once: the
 * contract refuses a second payment, the outbox holds at most one live
 * payout per issue, and a bounty held for someone is not paid to another.
 */
export async function distributeBounty(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox" | "indexer" | "changes">,
  input: {
    user: User;
    repoId: number;
    issueNumber: number;
    contributorAddress?: string | null;
    contributorLogin?: string | null;
    githubRepoFullName?: string | null;
    idempotencyKey: string;
  },
): Promise<TransactionResult | HeldResult> {
  const request = {
    route: "distribute_bounty",
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    ...(input.contributorLogin ? { contributorLogin: input.contributorLogin.toLowerCase() } : { contributorAddress: input.contributorAddress }),
  };
  const messages = { pending: "Bounty payment submitted", confirmed: "Bounty paid", failedTitle: "Failed to distribute bounty" };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    let address: Address | null = null;
    let login: { id: number; login: string } | null = null;
    if (input.contributorLogin) {
      if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(input.contributorLogin)) {
        throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Invalid login", message: "Enter the contributor's GitHub login." });
      }
    } else {
      address = parseAddress(input.contributorAddress ?? "") ?? null;
      if (!address) throw new DomainError({ code: ErrorCode.INVALID_ADDRESS, error: "Invalid address", message: "Enter the contributor's XDC address (xdc… or 0x…)." });
    }
    await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, orRegisteredName: true, action: "payBounty" });
    // Who is paid, as a GitHub person: the user the address or login belongs to, else the GitHub user by that login.
    let recipient: { id: number; login: string };
    if (input.contributorLogin) {
      const [known] = await ctx.database.db
        .select({ address: wallets.address, githubId: users.githubId, username: users.username })
        .from(users)
        .innerJoin(wallets, eq(wallets.userId, users.id))
        .where(sql`lower(${users.username}) = ${input.contributorLogin.toLowerCase()}`)
        .limit(1);
      if (known) {
        address = known.address as Address;
        recipient = { id: known.githubId, login: known.username };
      } else {
        login = await githubUser(ctx, input.user, input.contributorLogin);
        recipient = login;
      }
    } else {
      const owner = await walletOwner(ctx.database.db).get({ address: address! });
      if (!owner) throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Unknown contributor", message: "The contributor must be a registered Issuepool user." });
      const [person] = await ctx.database.db.select({ githubId: users.githubId, username: users.username }).from(users).where(eq(users.id, owner.userId)).limit(1);
      recipient = { id: person!.githubId, login: person!.username };
    }
    // A merged fix whose webhook was lost (an outage) is not overtaken by a release: asked of GitHub first.
    const known = await fixesOfIssue(ctx, input.repoId, input.issueNumber);
    // Decided under the bounty's lock with any payout or cancellation of this bounty on its way: of a Release and a
    // Cancel (or two Releases) sent at once, one goes to the chain and the other gets the platform's 409 (issue 25).
    let unpaid: FixFacts | undefined;
    const decided = await withBountyLock(ctx, input.repoId, input.issueNumber, async (lock): Promise<ChainTransaction | HeldResult | undefined> => {
      const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
      if (earlier) return earlier;
      const decision = decide(await bountyFacts(ctx, input.repoId, input.issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "release", recipient, fixes: known.fixes });
      if (!decision.ok) {
        if (decision.unpaidFix) {
          unpaid = decision.unpaidFix;
          return undefined;
        }
        throw decision.refusal;
      }
      if (decision.commitment && !decision.again) await recordCommitment(ctx, input.repoId, input.issueNumber, decision.commitment);
      if (login) {
        await holdPayout(ctx, { repoId: input.repoId, issueNumber: input.issueNumber, author: login, pullNumber: null });
        return {
          status: "held",
          heldFor: login.login,
          message: `Held for @${login.login}: paid to their Issuepool wallet as soon as they sign in and register.`,
          transactionHash: null,
          explorerUrl: null,
        };
      }
      return payBounty(ctx, { userId: input.user.id, idempotencyKey: input.idempotencyKey, request, repoId: input.repoId, issueNumber: input.issueNumber, to: address!, reason: "manual", replayChecked: true, queueOnly: true, fence: lock.fence });
    });
    if (!decided) {
      // The fix's own payout, carried out now (the lock is free again); the pool manager is told why theirs is refused.
      const fix = unpaid!;
      if (known.repository && known.appClient) await settleMergedFix(ctx, { repository: known.repository, issueNumber: input.issueNumber, pullNumber: fix.number, client: known.appClient });
      throw new DomainError({ code: ErrorCode.BOUNTY_COMMITTED, error: "Bounty committed", message: `Pull request #${fix.number} by @${fix.author.login} fixed this issue after the bounty was set: it is paid to its author(s), not released by hand.` });
    }
    if ("heldFor" in decided) return decided;
    tx = decided;
  }
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return withQueuedOutflow(ctx, settled, transactionResult(ctx, settled, messages), "Bounty payment");
}

/** A GitHub user (not an organization) by login, as GitHub spells it, asked with the pool manager's token. */
async function githubUser(ctx: Pick<AppContext, "env" | "keyring">, manager: User, login: string): Promise<{ id: number; login: string }> {
  const client = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, manager) });
  let found: { id: number; login: string; type?: string };
  try {
    found = await client.get<{ id: number; login: string; type?: string }>(`/users/${encodeURIComponent(login)}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`GitHub user @${login} was not found.`);
    throw githubUnavailable();
  }
  if (found.type && found.type !== "User") {
    throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Not a person", message: `@${found.login} is an organization: choose a person's GitHub login.` });
  }
  return { id: found.id, login: found.login };
}


/**
 * Beyond the spec, so money is never stuck: the pool manager can cancel an
 * unpaid bounty back to the pool while nobody has registered to work on it,
 * or when it awaits their decision (its issue closed); never one held for
 * the person who earned it. The pool manager cancels the pool's part (issue 29):
 * a bounty with funders' shares on it (the contract's `boosted`) is cancelled
 * with `cancelPoolShare`, which takes the pool's share back and leaves the bounty
 * open on its funders' shares (a community bounty); without them, `cancelBounty`
 * ends it as before. A funder's share that lands between the check and the
 * cancellation is refunded by the hourly pass (refundDueBoosts). A bounty awaiting
 * their decision (its issue is closed) ends as a whole, and the hourly pass refunds
 * every funder; closing the issue as not planned with nobody on it still cancels
 * everything at once (github-events/issues.ts).
 */
export async function cancelBounty(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox" | "indexer">,
  input: { user: User; repoId: number; issueNumber: number; githubRepoFullName?: string | null; idempotencyKey: string },
): Promise<TransactionResult> {
  const request = { route: "cancel_bounty", repoId: input.repoId, issueNumber: input.issueNumber };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, orRegisteredName: true, action: "cancelBounty" });
    // A merged fix whose webhook was lost (an outage) is not overtaken by a cancellation: asked of GitHub first.
    const known = await fixesOfIssue(ctx, input.repoId, input.issueNumber);
    // Under the bounty's lock, like a Release: a payout or cancellation of this bounty on its way refuses this one (409).
    // Only the row is written under it, fenced (the next holder sees it settling from then on); it is sent after.
    const queued = await withBountyLock(ctx, input.repoId, input.issueNumber, async (lock) => {
      const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
      if (earlier) return earlier;
      // The one payout decision: nothing settling, open, not earned by anyone (held, shared, committed, a merged fix).
      const decision = decide(await bountyFacts(ctx, input.repoId, input.issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "cancel", fixes: known.fixes });
      if (!decision.ok) throw decision.refusal;
      /** Someone claimed it on-chain: v2 only records the request; the hourly pass returns it after the delay (refunds.ts). */
      let refundRequest = false;
      /** Funders' shares are on it: only the pool's share goes back (cancelPoolShare). */
      let poolShareOnly = false;
      const shares = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(input.repoId), BigInt(input.issueNumber)] });
      if (shares.poolShare === 0n) throw conflict("The pool has nothing on this bounty: it is its funders' (each can take their own share back).", "Nothing of the pool's", ErrorCode.NO_POOL_SHARE);
      // Awaiting the pool manager's decision means the issue is closed: the whole bounty ends then, and the hourly pass
      // refunds every funder (refundDueBoosts). A cancellation requested earlier (a claimed bounty) is completed as requested.
      const awaiting = await isAwaiting(ctx, input.repoId, input.issueNumber);
      poolShareOnly = shares.cancelReadyAt > 0n ? !shares.cancelWhole : shares.boosted > 0n && !awaiting;
      // The contract's own record too (RepoRewards v2): a claimed bounty is refunded only after a visible delay.
      const onChainClaims = await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "claimants", args: [BigInt(input.repoId), BigInt(input.issueNumber)] });
      // Awaiting the pool manager's decision (the issue is closed): cancelling is one of the two decisions, whoever registered.
      if (!awaiting) {
        const claims = await ctx.database.db
          .select({ userId: bountyClaims.userId })
          .from(bountyClaims)
          .where(and(eq(bountyClaims.githubRepoId, input.repoId), eq(bountyClaims.issueNumber, input.issueNumber)))
          .limit(1);
        if (claims.length || onChainClaims.length) throw conflict("Someone is already working on this issue: the bounty can no longer be cancelled.", "Conflict", ErrorCode.SOMEONE_WORKING);
      }
      refundRequest = onChainClaims.length > 0;
      if (refundRequest) {
        const readyAt = (await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "cancelReadyAt", args: [BigInt(input.repoId), BigInt(input.issueNumber)] })) as bigint;
        if (readyAt > 0n) {
          const { timestamp } = await ctx.chain.client.getBlock({ blockTag: "latest" });
          // Requested earlier and not due yet: say when. Due: this call carries it out (the hourly pass would too).
          if (readyAt > timestamp) throw conflict(`The refund is already requested: the bounty returns to the pool after ${new Date(Number(readyAt) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC.`, "Refund requested", ErrorCode.REFUND_REQUESTED);
          refundRequest = false;
        }
      }
      const { tx: submitted } = await ctx.outbox.enqueue(
        {
        userId: input.user.id,
        idempotencyKey: input.idempotencyKey,
        request,
        kind: "cancel_bounty",
        githubRepoId: input.repoId,
        issueNumber: input.issueNumber,
        intent: { repoId: input.repoId, issueNumber: input.issueNumber, refundRequest, poolShareOnly },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: poolShareOnly ? "cancelPoolShare" : "cancelBounty", args: [BigInt(input.repoId), BigInt(input.issueNumber)] }),
        },
        undefined,
        { replayChecked: true, fence: lock.fence },
      );
      return submitted;
    });
    tx = await ctx.outbox.untilBroadcast(queued);
  }
  const intent = JSON.parse(tx.intent) as { refundRequest?: boolean; poolShareOnly?: boolean };
  const requested = intent.refundRequest === true;
  const messages = requested
    ? { pending: "Refund request submitted", confirmed: `Refund requested: a contributor claimed this bounty, so ${intent.poolShareOnly ? "the pool's share" : "it"} returns to the pool after the contract's delay`, failedTitle: "Failed to cancel bounty" }
    : intent.poolShareOnly
      ? { pending: "Cancellation submitted", confirmed: "The pool's share is back in the pool; the funders' shares stay on the issue as a community bounty", failedTitle: "Failed to cancel bounty" }
      : { pending: "Cancellation submitted", confirmed: "Bounty cancelled; the amount is back in the pool", failedTitle: "Failed to cancel bounty" };
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return transactionResult(ctx, settled, messages);
}

/**
 * POST /api/blockchain/register (Contribute): the contributor signs up to
 * work on an issue of a registered repository. Idempotent.
 */
export async function registerContribution(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "changes" | "log" | "mailer">, input: { user: User; repoId: number; issueNumber: number; note?: string }) {
  if (input.user.role !== "contributor") {
    throw new DomainError({ code: ErrorCode.ROLE_REQUIRED, error: "Role Selection Required", message: "Please select your role as Pool Manager or Contributor" });
  }
  const repository = await registeredRepository(ctx, input.repoId);
  const [wallet] = await ctx.database.db.select().from(wallets).where(eq(wallets.userId, input.user.id)).limit(1);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
  // Only an open issue of this repository: a claim on any other number is junk, and would block cancelling a bounty set there later.
  const token = await userGitHubToken(ctx, input.user);
  await openIssue(createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token }), repository.fullName, input.issueNumber);
  // The bounty's mode (issue 39): open registers as before; exclusive holds or queues; application applies with the note.
  const outcome = await startAttempt(ctx, {
    repository,
    issueNumber: input.issueNumber,
    user: input.user,
    who: { githubUserId: input.user.githubId, login: input.user.username },
    note: input.note,
  });
  return {
    success: true as const,
    message: outcome.message,
    walletAddress: toXdcAddress(wallet.address),
    ...(outcome.status === "working" ? {} : { attempt: attemptStanding(outcome) }),
  };
}

/** Registered contributors of an issue (for the bot comment and the manual payout form). */
export async function issueContributors(ctx: DatabaseDeps, repoId: number, issueNumber: number) {
  return ctx.database.db
    .select({ userId: users.id, username: users.username, address: wallets.address, since: bountyClaims.createdAt })
    .from(bountyClaims)
    .innerJoin(users, eq(users.id, bountyClaims.userId))
    .leftJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(bountyClaims.githubRepoId, repoId), eq(bountyClaims.issueNumber, issueNumber)))
    .orderBy(asc(bountyClaims.createdAt));
}

export { payBounty };
