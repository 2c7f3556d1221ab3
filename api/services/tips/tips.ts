/**
 * Tips (issue 29, item 5; docs/design.md, "Tips"): a signed-in user gives
 * XDC, ROXN or USDC to any GitHub person, from a `/tip 10 XDC @login`
 * comment (confirmed in the app through a money intent, tip-intent.ts) or
 * the Tip button on a profile (POST /api/tips).
 *
 *   recipient with a wallet  -> sending: `tipXdc`/`tipToken` (contract v3:
 *                               straight to them, less the 0.5 % fee) in
 *                               the outbox under the tipper's key `tip:<id>`
 *                               -> sent
 *   recipient without one    -> held: `escrowTipXdc`/`escrowTipToken` puts
 *                               it in the contract's escrow under their
 *                               GitHub id (key `tip:<id>`); when they
 *                               register, the operator's `payTip` (key
 *                               `tip-pay:<id>`) sends it to their wallet
 *                               -> sent. A payTip the contract queued and
 *                               the guardian dropped is paid again, once
 *                               per drop (`tip-pay:<id>:dropped:<outflow>`).
 *                               Unclaimed for 30 days, the tipper
 *                               can take it back (the contract's refundTip).
 * Tokens need an allowance: an approval (key `tip-approve:<id>`) goes first.
 * Exactly once: one tip row per (tipper, request key), one outbox row per
 * step (its key; the contract refuses to pay a tip twice), and a pass
 * (releaseHeldTips) finishes a tip whose row exists but whose next step was
 * never queued (a crash in between).
 */
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { chainEvents, chainTransactions, tips, users, wallets, type ChainTransaction, type Currency, type Tip, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { forgetBalances, walletBalances } from "../money/balances.ts";
import { CURRENCY_INDEX, GAS_RESERVE, MAX_FUNDING_FEE_BPS, MIN_BOUNTY, requireAmountStep } from "../money/rules.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { unbroadcastXdc } from "../wallets/spendable.ts";
import { tokenContract } from "../wallets/tokens.ts";
import { formatExact, formatFull } from "../../../lib/money-format.ts";

/** What sending and releasing tips use. */
type TipDeps = Pick<AppContext, "database" | "chain" | "outbox" | "log" | "changes">;

/** The same minimum as a bounty (and a boost): 1 XDC, 0.0001 ROXN or USDC. */
export const MIN_TIP = MIN_BOUNTY;
export const TIP_KINDS = ["tip_xdc", "tip_token"] as const;

const tipError = (code: ErrorCode, error: string, message: string) => new DomainError({ code, error, message });

export interface TipInput {
  user: User;
  login: string;
  amount: unknown;
  currency: Currency;
  /** "profile", or "comment:<id>" with the repository and issue it was written on. */
  source: string;
  repoId?: number | null;
  issueNumber?: number | null;
  idempotencyKey: string;
}

export interface TipView {
  id: number;
  from: string;
  to: string;
  currency: Currency;
  amount: string;
  /** The contract's fee (0.5 %), taken from the amount. */
  fee: string;
  /**
   * held (until the recipient registers), pending (on its way), queued (the contract queued its payout as an
   * outflow: over a cap, too young, or a new address above the threshold; it reaches them when the queue runs),
   * confirmed, failed.
   */
  status: "held" | "pending" | "queued" | "confirmed" | "failed";
  transactionHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
  message: string;
}

/** POST /api/tips, and a confirmed `/tip` intent. Replaying the same key returns the first tip. */
export async function giveTip(ctx: TipDeps & Pick<AppContext, "env" | "keyring">, input: TipInput): Promise<TipView> {
  const earlier = await tipByKey(ctx, input.user.id, input.idempotencyKey);
  if (earlier) return tipView(ctx, earlier);
  const decimals = DECIMALS[input.currency];
  const parsed = parseAmount(input.amount, decimals);
  if (!parsed.ok || parsed.value === 0n) throw tipError(ErrorCode.INVALID_AMOUNT, "Invalid Amount", `Please enter a valid ${input.currency} amount.`);
  const amount = parsed.value;
  if (amount < MIN_TIP[input.currency]) throw tipError(ErrorCode.BELOW_MINIMUM, "Invalid Amount", `A tip is at least ${formatExact(MIN_TIP[input.currency], input.currency)} ${input.currency}.`);
  requireAmountStep(amount, input.currency);
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw tipError(ErrorCode.WALLET_REQUIRED, "No wallet", "No wallet is connected. Please check your profile settings.");
  const recipient = await githubPerson(ctx, input.user, input.login);
  if (recipient.id === input.user.githubId) throw tipError(ErrorCode.INVALID_RECIPIENT, "Invalid recipient", "You cannot tip yourself.");
  await requireCovered(ctx, wallet, input.currency, amount);
  const to = await walletOfGitHubUser(ctx, recipient.id);
  const fee = await tipFee(ctx, amount);
  const [row] = await ctx.database.db
    .insert(tips)
    .values({
      fromUserId: input.user.id,
      toGithubId: recipient.id,
      toLogin: recipient.login,
      currency: input.currency,
      amount,
      fee,
      escrowed: !to,
      source: input.source,
      githubRepoId: input.repoId ?? null,
      issueNumber: input.issueNumber ?? null,
      idempotencyKey: input.idempotencyKey,
      status: to ? "sending" : "held",
    })
    .onConflictDoNothing()
    .returning();
  // Lost a race with the same key: the other request's tip is the answer.
  if (!row) return tipView(ctx, (await tipByKey(ctx, input.user.id, input.idempotencyKey))!);
  ctx.log.info(to ? "tip sending" : "tip escrowed for a GitHub user without a wallet", { tipId: row.id, from: input.user.username, to: recipient.login, currency: input.currency });
  return tipView(ctx, await sendTip(ctx, row, to));
}

async function tipByKey(ctx: Pick<AppContext, "database">, userId: number, key: string): Promise<Tip | undefined> {
  const [row] = await ctx.database.db.select().from(tips).where(and(eq(tips.fromUserId, userId), eq(tips.idempotencyKey, key))).limit(1);
  return row;
}

/** A GitHub person by login, asked with the tipper's token (404 / 400 for an organisation or a bot). */
async function githubPerson(ctx: Pick<AppContext, "env" | "keyring">, user: User, login: string): Promise<{ id: number; login: string }> {
  const name = login.replace(/^@/, "");
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(name)) throw tipError(ErrorCode.INVALID_RECIPIENT, "Invalid login", "Enter the GitHub login of the person to tip.");
  const client = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, user) });
  let found: { id: number; login: string; type?: string };
  try {
    found = await client.get<{ id: number; login: string; type?: string }>(`/users/${encodeURIComponent(name)}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`GitHub user @${name} was not found.`);
    throw githubUnavailable();
  }
  if (found.type && found.type !== "User") throw tipError(ErrorCode.INVALID_RECIPIENT, "Not a person", `@${found.login} is not a person: tip a person's GitHub login.`);
  return { id: found.id, login: found.login };
}

async function walletOfGitHubUser(ctx: Pick<AppContext, "database">, githubId: number): Promise<Address | undefined> {
  const [row] = await ctx.database.db.select({ address: wallets.address }).from(users).innerJoin(wallets, eq(wallets.userId, users.id)).where(eq(users.githubId, githubId)).limit(1);
  return row?.address as Address | undefined;
}

/** The tipper's wallet covers this tip besides XDC on its way out, and leaves the gas reserve. */
async function requireCovered(ctx: Pick<AppContext, "chain" | "database">, wallet: { id: string; address: string }, currency: Currency, amount: bigint): Promise<void> {
  const [balances, unbroadcast] = await Promise.all([walletBalances(ctx.chain, wallet.address as Address, { fresh: true }), unbroadcastXdc(ctx.database.db, wallet)]);
  const xdc = balances.xdc - unbroadcast;
  const held = currency === "XDC" ? xdc : currency === "ROXN" ? balances.roxn : balances.usdc;
  if (amount > held) throw tipError(ErrorCode.INSUFFICIENT_BALANCE, `Insufficient ${currency} Balance`, `Your ${currency} balance is ${formatExact(held > 0n ? held : 0n, currency)} ${currency}.`);
  if (currency === "XDC" ? amount + GAS_RESERVE > xdc : xdc < GAS_RESERVE) throw tipError(ErrorCode.INSUFFICIENT_GAS, "Insufficient funds for gas", "Leave at least 0.1 XDC for gas.");
}

/** The contract's fee on a tip (read from the contract, as on funding). */
async function tipFee(ctx: Pick<AppContext, "chain">, amount: bigint): Promise<bigint> {
  const bps = (await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "feeBps" })) as number;
  return (amount * BigInt(bps)) / 10_000n;
}

/** The tipper's call: straight to a wallet, or into the escrow for a GitHub user (contract v3). */
function tipCall(tip: Tip, to: Address | undefined): Hex {
  const currency = CURRENCY_INDEX[tip.currency];
  if (to) {
    return tip.currency === "XDC"
      ? encodeFunctionData({ abi: RepoRewardsAbi, functionName: "tipXdc", args: [to, MAX_FUNDING_FEE_BPS] })
      : encodeFunctionData({ abi: RepoRewardsAbi, functionName: "tipToken", args: [to, currency, tip.amount, MAX_FUNDING_FEE_BPS] });
  }
  return tip.currency === "XDC"
    ? encodeFunctionData({ abi: RepoRewardsAbi, functionName: "escrowTipXdc", args: [BigInt(tip.toGithubId), MAX_FUNDING_FEE_BPS] })
    : encodeFunctionData({ abi: RepoRewardsAbi, functionName: "escrowTipToken", args: [BigInt(tip.toGithubId), currency, tip.amount, MAX_FUNDING_FEE_BPS] });
}

/**
 * Queues the tipper's transaction (idempotent by the tip's key): the tip itself to `to`, or its escrow when the
 * recipient has no wallet. A token tip's approval goes first and is waited for (the tip's gas is estimated
 * against it).
 */
async function sendTip(ctx: TipDeps, tip: Tip, to: Address | undefined): Promise<Tip> {
  const wallet = await walletOfUser(ctx.database.db, tip.fromUserId);
  if (!wallet) throw new Error(`tip ${tip.id}: the tipper has no wallet`);
  const rewards = ctx.chain.config.contracts.rewards;
  const token = tokenContract(ctx, tip.currency);
  if (token) {
    const allowance = await ctx.chain.client.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [wallet.address as Address, rewards] });
    if (allowance < tip.amount) {
      const { tx: approval } = await ctx.outbox.submit({
        userId: tip.fromUserId,
        idempotencyKey: `tip-approve:${tip.id}`,
        request: { tipId: tip.id, approve: true },
        kind: "approve_token",
        intent: { tipId: tip.id, currency: tip.currency, spender: rewards, amount: tip.amount.toString() },
        signer: { kind: "wallet", wallet },
        to: token,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [rewards, tip.amount] }),
      });
      const settled = await ctx.outbox.waitForSettled(approval, 30_000);
      if (settled.status !== "confirmed") throw new Error(`tip ${tip.id}: the approval is ${settled.status}`);
    }
  }
  const { tx } = await ctx.outbox.submit({
    userId: tip.fromUserId,
    idempotencyKey: `tip:${tip.id}`,
    request: { tipId: tip.id },
    kind: tip.currency === "XDC" ? "tip_xdc" : "tip_token",
    githubRepoId: tip.githubRepoId ?? undefined,
    issueNumber: tip.issueNumber ?? undefined,
    intent: { tipId: tip.id, currency: tip.currency, to: to ?? rewards, toLogin: tip.toLogin, escrowed: !to, amount: tip.amount.toString() },
    signer: { kind: "wallet", wallet },
    to: rewards,
    data: tipCall(tip, to),
    value: tip.currency === "XDC" ? tip.amount : 0n,
  });
  forgetBalances(ctx.chain, wallet.address as Address);
  const [updated] = await ctx.database.db
    .update(tips)
    .set({ status: to ? "sent" : "held", txId: tx.id, sentAt: to ? new Date() : null })
    .where(eq(tips.id, tip.id))
    .returning();
  ctx.changes.publish([`tips:${tip.toGithubId}`]);
  return updated!;
}

/** The escrow's tip id, from the confirmed escrow transaction's TipEscrowed event (undefined until confirmed). */
async function escrowedTipId(ctx: TipDeps, tip: Tip): Promise<bigint | undefined> {
  if (tip.chainTipId) return BigInt(tip.chainTipId);
  if (!tip.txId) return undefined;
  const tx = await ctx.outbox.get(tip.txId);
  if (tx.status !== "confirmed" || !tx.txHash) return undefined;
  const receipt = await ctx.chain.client.getTransactionReceipt({ hash: tx.txHash as Hex });
  const [event] = parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs, eventName: "TipEscrowed" });
  if (!event) throw new Error(`tip ${tip.id}: no TipEscrowed in its escrow transaction`);
  const tipId = (event.args as { tipId: bigint }).tipId;
  await ctx.database.db.update(tips).set({ chainTipId: tipId.toString() }).where(eq(tips.id, tip.id));
  return tipId;
}

/**
 * Finishes tips: a tip whose row exists without its transaction (a crash in between) is sent or escrowed; an
 * escrowed tip whose recipient now has a wallet is paid to it by the operator (`payTip`), once. Only
 * `githubUserId`'s when given. Run on registration and on each webhook pass.
 */
export async function releaseHeldTips(ctx: TipDeps, only?: { githubUserId: number }): Promise<number> {
  const db = ctx.database.db;
  const unsent = await db
    .select()
    .from(tips)
    .where(and(isNull(tips.txId), inArray(tips.status, ["sending", "held"]), only ? eq(tips.toGithubId, only.githubUserId) : undefined))
    .limit(100);
  for (const tip of unsent) {
    try {
      await sendTip(ctx, tip, tip.escrowed ? undefined : await walletOfGitHubUser(ctx, tip.toGithubId));
    } catch (err) {
      ctx.log.warn("tip not sent yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  const due = await db
    .select({ tip: tips, address: wallets.address })
    .from(tips)
    .innerJoin(users, eq(users.githubId, tips.toGithubId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(tips.status, "held"), eq(tips.escrowed, true), isNull(tips.payTxId), sql`${tips.txId} is not null`, only ? eq(tips.toGithubId, only.githubUserId) : undefined))
    .limit(100);
  let paid = 0;
  for (const { tip, address } of due) {
    try {
      const tipId = await escrowedTipId(ctx, tip);
      if (tipId === undefined) continue; // the escrow is not confirmed yet: the next pass
      const { tx } = await ctx.outbox.submitOnce({
        userId: null,
        idempotencyKey: `tip-pay:${tip.id}`,
        request: { tipId: tip.id, chainTipId: tipId.toString() },
        kind: "pay_tip",
        intent: { tipId: tip.id, chainTipId: tipId.toString(), currency: tip.currency, to: address, toLogin: tip.toLogin, amount: (tip.amount - tip.fee).toString() },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payTip", args: [tipId, address as Address] }),
      });
      await db.update(tips).set({ status: "sent", payTxId: tx.id, sentAt: new Date() }).where(eq(tips.id, tip.id));
      ctx.changes.publish([`tips:${tip.toGithubId}`]);
      paid++;
    } catch (err) {
      ctx.log.warn("held tip not paid yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  return paid + (await repayDroppedTips(ctx, only));
}

/**
 * A payTip the contract queued and the guardian dropped (cancelOutflow: the tip is Held in the escrow again, its
 * recipient cleared) is paid again, as a dropped bounty payout opens its bounty again to be paid: a new payTip to
 * the recipient's registered wallet, through the outbox under `tip-pay:<id>:dropped:<outflow id>`, so once per
 * drop whatever is retried (a second drop of the new payout is a new outflow id, paid once more). Only a drop of
 * the tip's current payTip counts: one the platform already paid again is done. Found from the indexed
 * OutflowCancelled events of tips (repository 0, the tip's escrow id as the issue number: few rows).
 */
async function repayDroppedTips(ctx: TipDeps, only?: { githubUserId: number }): Promise<number> {
  const db = ctx.database.db;
  const cancelled = await db
    .select({ args: chainEvents.args, chainTipId: chainEvents.issueNumber })
    .from(chainEvents)
    .where(and(eq(chainEvents.repoId, 0), eq(chainEvents.name, "OutflowCancelled"), isNull(chainEvents.oldChain)));
  if (!cancelled.length) return 0;
  const candidates = await db
    .select({ tip: tips, payHash: chainTransactions.txHash, address: wallets.address })
    .from(tips)
    .innerJoin(chainTransactions, eq(chainTransactions.id, tips.payTxId))
    .innerJoin(users, eq(users.githubId, tips.toGithubId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(
      and(
        eq(tips.escrowed, true),
        eq(tips.status, "sent"),
        inArray(tips.chainTipId, [...new Set(cancelled.map((c) => String(c.chainTipId)))]),
        only ? eq(tips.toGithubId, only.githubUserId) : undefined,
      ),
    );
  let sent = 0;
  for (const { tip, payHash, address } of candidates) {
    if (!payHash) continue;
    const [queued] = await db
      .select({ args: chainEvents.args })
      .from(chainEvents)
      .where(and(eq(chainEvents.txHash, payHash), eq(chainEvents.name, "OutflowQueued"), isNull(chainEvents.oldChain)))
      .limit(1);
    const outflow = queued ? (JSON.parse(queued.args) as { id: string }).id : undefined;
    if (!outflow || !cancelled.some((c) => String(c.chainTipId) === tip.chainTipId && (JSON.parse(c.args) as { id: string }).id === outflow)) continue;
    try {
      const { tx } = await ctx.outbox.submitOnce({
        userId: null,
        idempotencyKey: `tip-pay:${tip.id}:dropped:${outflow}`,
        request: { tipId: tip.id, chainTipId: tip.chainTipId, dropped: outflow },
        kind: "pay_tip",
        intent: { tipId: tip.id, chainTipId: tip.chainTipId, currency: tip.currency, to: address, toLogin: tip.toLogin, amount: (tip.amount - tip.fee).toString(), droppedOutflow: outflow },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "payTip", args: [BigInt(tip.chainTipId!), address as Address] }),
      });
      await db.update(tips).set({ payTxId: tx.id, sentAt: new Date() }).where(eq(tips.id, tip.id));
      ctx.log.info("tip paid again after the guardian dropped its queued payout", { tipId: tip.id, outflow });
      ctx.changes.publish([`tips:${tip.toGithubId}`]);
      sent++;
    } catch (err) {
      ctx.log.warn("dropped tip not paid again yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  return sent;
}

/**
 * Where a confirmed payTip left an escrowed tip: paid (TipPaid: in the payTip itself, or later when the queue ran,
 * whose transaction then is the one that reached the recipient) or queued as an outflow (OutflowQueued in the
 * payTip; contract v3 queues a tip payout over a cap, younger than the payout delay or to a new address above the
 * threshold, and only executeOutflow pays it). Read from the indexed events; a payTip the indexer has not read yet
 * is judged from its receipt when a chain client is at hand, else taken as paid.
 */
export interface TipDelivery {
  /** dropped: the guardian cancelled the queued outflow (cancelOutflow): the tip is held in the escrow again. */
  state: "paid" | "queued" | "dropped";
  /** The transaction that paid the recipient (undefined while queued, or when only the payTip is known). */
  paidTxHash?: string;
  /** When the queued outflow may run (seconds since the epoch, the contract's clock). */
  readyAt?: bigint;
}

export async function tipDelivery(
  deps: { database: { db: Database }; chain?: Pick<AppContext["chain"], "client"> },
  tip: Pick<Tip, "chainTipId">,
  payTxHash: string,
): Promise<TipDelivery> {
  const events = await tipDeliveryEvents(deps.database.db, tip, payTxHash);

  const paid = events.find((e) => e.name === "TipPaid");
  if (paid) return { state: "paid", paidTxHash: paid.txHash };
  const queued = events.find((e) => e.name === "OutflowQueued" && e.txHash.toLowerCase() === payTxHash.toLowerCase());
  if (queued) {
    const outflow = (JSON.parse(queued.args) as { id: string }).id;
    // Tips' outflows carry repository 0 and the tip's id as the issue number.
    if (events.some((e) => e.name === "OutflowCancelled" && (JSON.parse(e.args) as { id: string }).id === outflow)) return { state: "dropped" };
    return { state: "queued", readyAt: BigInt((JSON.parse(queued.args) as { readyAt: string }).readyAt) };
  }
  if (events.length > 0 || !deps.chain) return { state: "paid", paidTxHash: payTxHash };
  // Not indexed yet: the payTip's own receipt says which.
  const receipt = await deps.chain.client.getTransactionReceipt({ hash: payTxHash as Hex }).catch(() => undefined);
  const logs = receipt ? parseEventLogs({ abi: RepoRewardsAbi, logs: receipt.logs }) : [];
  const outflow = logs.find((l) => l.eventName === "OutflowQueued");
  if (outflow && !logs.some((l) => l.eventName === "TipPaid")) return { state: "queued", readyAt: (outflow.args as { readyAt: bigint }).readyAt };
  return { state: "paid", paidTxHash: payTxHash };
}

/**
 * The events that say where an escrowed tip's payTip left it: its TipPaid, the payTip's own events, and the
 * guardian's OutflowCancelled of a tip's outflow (repository 0, the tip's escrow id as the issue number). Each term
 * is read by an index (0019_tip_delivery_indexes: chain_events_tip_paid_idx, chain_events_tx_lower_idx,
 * chain_events_repo_idx), so a wallet history with many escrowed tips costs an index probe per tip, not a scan of
 * chain_events each (tips-queued.test.ts checks the plan).
 */
export function tipDeliveryEvents(db: Database, tip: Pick<Tip, "chainTipId">, payTxHash: string) {
  return db
    .select({ name: chainEvents.name, txHash: chainEvents.txHash, args: chainEvents.args })
    .from(chainEvents)
    .where(
      and(
        isNull(chainEvents.oldChain),
        sql`((${chainEvents.name} = 'TipPaid' and (${chainEvents.args} ->> '$.tipId') = ${tip.chainTipId ?? "-1"})
          or lower(${chainEvents.txHash}) = ${payTxHash.toLowerCase()}
          or (${chainEvents.repoId} = 0 and ${chainEvents.issueNumber} = ${Number(tip.chainTipId ?? -1)} and ${chainEvents.name} = 'OutflowCancelled'))`,
      ),
    );
}

/** The tipper's transaction failed (nothing moved), the tip is held in escrow, or its delivering transaction's state. */
const statusOf = (tip: Tip, tx: Pick<ChainTransaction, "status"> | null, delivered: Pick<ChainTransaction, "status"> | null, delivery: TipDelivery | undefined): TipView["status"] => {
  if (tip.status === "failed" || tx?.status === "failed" || tx?.status === "reverted") return "failed";
  if (tip.status === "held" || (tip.escrowed && !delivered)) return "held";
  const last = tip.escrowed ? delivered : tx;
  // A payTip that failed is tried again (submitOnce): still on its way.
  if (last?.status !== "confirmed") return "pending";
  // Dropped by the guardian: back in the escrow until the platform's next payTip (releaseHeldTips) is on its way.
  if (delivery?.state === "dropped") return "held";
  return delivery?.state === "queued" ? "queued" : "confirmed";
};

/**
 * A tip as its tipper, or (`received`) its recipient reads it (issue 38: the recipient's own history read "Tip …
 * sent to @bob"): the recipient is told who it came from and what reached their wallet.
 */
export async function tipView(ctx: Pick<AppContext, "database" | "chain">, tip: Tip, known?: { fromLogin?: string; received?: boolean }): Promise<TipView> {
  const db = ctx.database.db;
  const txOf = async (id: string | null) => (id ? ((await db.select().from(chainTransactions).where(eq(chainTransactions.id, id)).limit(1))[0] ?? null) : null);
  const [tx, delivered] = await Promise.all([txOf(tip.txId), txOf(tip.payTxId)]);
  const fromLogin = known?.fromLogin ?? (await db.select({ username: users.username }).from(users).where(eq(users.id, tip.fromUserId)).limit(1))[0]?.username ?? "";
  const delivery = tip.escrowed && delivered?.status === "confirmed" && delivered.txHash ? await tipDelivery(ctx, tip, delivered.txHash) : undefined;
  const status = statusOf(tip, tx, delivered, delivery);
  const amount = `${formatExact(tip.amount, tip.currency)} ${tip.currency}`;
  const paidBy = delivery?.paidTxHash ? { txHash: delivery.paidTxHash } : undefined;
  const last = tip.escrowed ? (paidBy ?? delivered ?? tx) : tx;
  const feeText = tip.fee > 0n ? ` (fee ${formatExact(tip.fee, tip.currency)} ${tip.currency})` : "";
  return {
    id: tip.id,
    from: fromLogin,
    to: tip.toLogin,
    currency: tip.currency,
    amount: toDecimalString(tip.amount, DECIMALS[tip.currency]),
    fee: toDecimalString(tip.fee, DECIMALS[tip.currency]),
    status,
    transactionHash: last?.txHash ?? null,
    explorerUrl: last?.txHash ? explorerTxUrl(ctx.chain.config.network, last.txHash) : null,
    createdAt: tip.createdAt.toISOString(),
    message: known?.received
      ? receivedMessage(tip, fromLogin, status, delivery)
      : delivery?.state === "dropped"
        ? `Tip of ${amount}${feeText} to @${tip.toLogin} held in the escrow again: the contract's guardian stopped its queued payout. Issuepool sends it to their wallet again.`
        : status === "held"
        ? `Tip of ${amount}${feeText} held for @${tip.toLogin} in the escrow: sent to their Issuepool wallet as soon as they sign in and register.`
        : status === "queued"
          ? `Tip of ${amount}${feeText} to @${tip.toLogin} queued by the contract's outflow limits: it reaches their wallet when the queue runs${delivery?.readyAt ? ` (from ${new Date(Number(delivery.readyAt) * 1000).toISOString().slice(0, 16).replace("T", " ")} UTC)` : ""}.`
        : status === "failed"
          ? `Tip of ${amount} to @${tip.toLogin} failed: nothing was sent.`
          : `Tip of ${amount}${feeText} sent to @${tip.toLogin}.`,
  };
}

function receivedMessage(tip: Tip, from: string, status: TipView["status"], delivery: TipDelivery | undefined): string {
  const amount = `${formatFull(tip.amount, tip.currency)} ${tip.currency}`;
  const net = `${formatFull(tip.amount - tip.fee, tip.currency)} ${tip.currency}`;
  const fee = tip.fee > 0n ? ` (${amount} less the ${formatFull(tip.fee, tip.currency)} ${tip.currency} fee)` : "";
  if (delivery?.state === "dropped") return `Tip from @${from} held in the escrow again: the contract's guardian stopped its queued payout. Issuepool sends ${net} to your wallet again.`;
  if (status === "held") return `Tip from @${from} held for you in the escrow: ${net}${fee} reaches your Issuepool wallet once you sign in and register.`;
  if (status === "queued") return `Tip from @${from} queued by the contract's outflow limits: ${net}${fee} reaches your wallet when the queue runs.`;
  if (status === "failed") return `Tip from @${from} failed: nothing was sent.`;
  if (status === "pending") return `Tip from @${from} on its way: ${net}${fee} to your wallet.`;
  return `Tip from @${from}: ${net}${fee} reached your wallet.`;
}

/** GET /api/tips: the signed-in user's tips, given and received, newest first. */
export async function myTips(ctx: Pick<AppContext, "database" | "chain">, user: Pick<User, "id" | "githubId" | "username">, limit = 50): Promise<{ given: TipView[]; received: TipView[] }> {
  const db = ctx.database.db;
  const rows = (where: ReturnType<typeof eq>) =>
    db.select({ tip: tips, from: users.username }).from(tips).innerJoin(users, eq(users.id, tips.fromUserId)).where(where).orderBy(desc(tips.createdAt), desc(tips.id)).limit(limit);
  const [given, received] = await Promise.all([rows(eq(tips.fromUserId, user.id)), rows(eq(tips.toGithubId, user.githubId))]);
  const view = (received: boolean) => (r: { tip: Tip; from: string }) => tipView(ctx, r.tip, { fromLogin: r.from, received });
  return { given: await Promise.all(given.map(view(false))), received: await Promise.all(received.map(view(true))) };
}

/** Tips a GitHub user received and were confirmed on-chain, for their wallet history (wallets/transactions.ts). */
export async function receivedTipTransfers(ctx: { database: { db: Database } }, githubId: number, limit: number) {
  return ctx.database.db
    .select({ tip: tips, tx: chainTransactions })
    .from(tips)
    // The transaction that reached the recipient: the tip itself, or the operator's payTip of an escrowed one.
    .innerJoin(chainTransactions, sql`${chainTransactions.id} = case when ${tips.escrowed} then ${tips.payTxId} else ${tips.txId} end`)
    .where(and(eq(tips.toGithubId, githubId), inArray(chainTransactions.status, ["sent", "confirmed"]), sql`${chainTransactions.txHash} is not null`))
    .orderBy(desc(tips.createdAt))
    .limit(limit);
}
