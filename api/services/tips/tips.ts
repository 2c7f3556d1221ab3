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
import { and, eq } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, parseEventLogs, type Address, type Hex } from "viem";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import type { AppContext } from "../../context.ts";
import { tips, type Currency, type Tip, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { parseAmount } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { forgetBalances, walletBalances } from "../money/balances.ts";
import { CURRENCY_INDEX, GAS_RESERVE, MAX_FUNDING_FEE_BPS, MIN_BOUNTY, requireAmountStep } from "../money/rules.ts";
import { walletOfGitHubUser, walletOfUser } from "../wallets/custodial.ts";
import { unbroadcastXdc } from "../wallets/spendable.ts";
import { tokenContract } from "../wallets/tokens.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { type TipView, tipView } from "./tip-read.ts";

/** What sending and releasing tips use. */
export type TipDeps = Pick<AppContext, "database" | "chain" | "outbox" | "log" | "changes">;

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
  const to = await walletOfGitHubUser(ctx.database.db, recipient.id);
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
export async function sendTip(ctx: TipDeps, tip: Tip, to: Address | undefined): Promise<Tip> {
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
export async function escrowedTipId(ctx: TipDeps, tip: Tip): Promise<bigint | undefined> {
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
