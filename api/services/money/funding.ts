import { and, eq, inArray } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, type Address } from "viem";
import type { AppContext, ChainSendDeps, DatabaseDeps } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { chainTransactions, type User, type Wallet } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { parseAmount, toDecimalString, toXdcString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { formatAmount } from "../../../lib/money-format.ts";
import { ensurePoolManager, requireManagedRepository } from "./access.ts";
import { forgetBalances, tokenAllowance, walletBalances } from "./balances.ts";
import { GAS_RESERVE, MIN_XDC_FUNDING_EXCLUSIVE } from "./rules.ts";
import { transactionResult, type TransactionResult } from "./transaction-result.ts";
import { CURRENCY_INDEX, MAX_FUNDING_FEE_BPS, requireAmountStep } from "./rules.ts";
import { allowanceFrom, allowanceOf, enforceLimits, limitFigure, limitFigureJson, type LimitFigureJson, type LimitScopeName } from "./limits.ts";

const invalidAmount = (symbol: string) =>
  new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message: `Please enter a valid ${symbol} amount.` });

/**
 * GET /api/blockchain/repository/{id}/funding-status. The spec's clients read dailyLimit, currentTotal and
 * remainingLimit as numbers of XDC (they call `.toFixed`); the exact amounts are beside them as decimal strings.
 * `limits` has both figures a funding is checked against (limits.ts): the repository's, and for a signed-in
 * caller their own as a funder, and which of them binds.
 */
export interface FundingStatus {
  dailyLimit: number;
  currentTotal: number;
  remainingLimit: number;
  dailyLimitXdc: string;
  currentTotalXdc: string;
  remainingLimitXdc: string;
  /** When the binding figure grows again (its oldest funding leaves the window); null when nothing counts in it. */
  windowEndTime: string | null;
  limits: { repository: LimitFigureJson; funder: LimitFigureJson | null; binding: LimitScopeName };
}

/**
 * The repository's window; for a signed-in funder, `remainingLimit` is what their next XDC funding of this
 * repository may be (the smaller of what the repository and the funder have left, exactly what the write path
 * allows: limits.ts), and `windowEndTime` when that grows again. `currentTotal` stays the repository's.
 */
export async function fundingStatus(ctx: Pick<AppContext, "database" | "clock">, repoId: number, funderUserId?: number, now = ctx.clock.now()): Promise<FundingStatus> {
  const db = ctx.database.db;
  // Signed in: exactly what the write path will check (the same function, the same scopes); a visitor: the repository's.
  const allowance =
    funderUserId === undefined
      ? allowanceFrom([await limitFigure(db, { name: "repository", repoId }, now)])
      : await allowanceOf(db, { kind: "fund_xdc", userId: funderUserId, repoId }, now);
  const repository = allowance.figures.find((f) => f.scope === "repository")!;
  const funder = allowance.figures.find((f) => f.scope === "funder");
  return {
    dailyLimit: Number(toXdcString(repository.limit)),
    currentTotal: Number(toXdcString(repository.used)),
    remainingLimit: Number(toXdcString(allowance.remaining)),
    dailyLimitXdc: toXdcString(repository.limit),
    currentTotalXdc: toXdcString(repository.used),
    remainingLimitXdc: toXdcString(allowance.remaining),
    windowEndTime: allowance.binding.resetsAt?.toISOString() ?? null,
    limits: { repository: limitFigureJson(repository), funder: funder ? limitFigureJson(funder) : null, binding: allowance.binding.scope },
  };
}

/** XDC the wallet has committed in the outbox but not yet broadcast (the chain's pending balance does not know it yet). */
async function unbroadcastSpend(db: Database, wallet: Wallet): Promise<bigint> {
  const rows = await db
    .select({ value: chainTransactions.value })
    .from(chainTransactions)
    .where(and(eq(chainTransactions.walletId, wallet.id), inArray(chainTransactions.status, ["queued", "signed"])));
  return rows.reduce((sum, r) => sum + r.value, 0n);
}

export interface FundXdcInput {
  user: User;
  repoId: number;
  amountXdc: unknown;
  repositoryFullName?: string | null;
  idempotencyKey: string;
}

/**
 * POST /api/blockchain/repository/{repoId}/fund. Rules (spec section 5):
 * more than 1 XDC; 0.1 XDC left for gas; within the repository's rolling
 * 24-hour limit of 1000 XDC, and within the funder's own 1000 XDC across
 * pools and boosts (issue 29), both from limits.ts. The limits and the
 * wallet's spendable balance are checked again inside the write transaction
 * that records the funding, so concurrent requests cannot overrun them.
 */
export async function fundRepositoryXdc(ctx: Pick<AppContext, "env" | "clock" | "database" | "keyring" | "chain" | "outbox">, input: FundXdcInput): Promise<TransactionResult> {
  const request = { route: "fund_xdc", repoId: input.repoId, amountXdc: String(input.amountXdc), repositoryFullName: input.repositoryFullName };
  const messages = { pending: "XDC funding submitted", confirmed: "XDC funding confirmed", failedTitle: "Error Adding XDC Funds" };
  const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (earlier) return transactionResult(ctx, await ctx.outbox.untilBroadcast(earlier), messages);

  const parsed = parseAmount(input.amountXdc, DECIMALS.XDC);
  if (!parsed.ok || parsed.value === 0n) throw invalidAmount("XDC");
  const amount = parsed.value;
  if (amount <= MIN_XDC_FUNDING_EXCLUSIVE) {
    throw new DomainError({ code: ErrorCode.BELOW_MINIMUM, error: "Minimum funding amount not met", message: "Minimum is > 1 XDC" });
  }
  const { repository, wallet } = await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.repositoryFullName, action: "fund" });
  const balance = await ctx.chain.client.getBalance({ address: wallet.address as Address, blockTag: "pending" });
  if (balance < amount) {
    throw new DomainError({ code: ErrorCode.INSUFFICIENT_BALANCE, error: "Insufficient XDC Balance", message: `Your XDC balance is ${formatAmount(balance, "XDC")} XDC.` });
  }
  const insufficientForGas = new DomainError({ code: ErrorCode.INSUFFICIENT_GAS, error: "Insufficient funds for gas", message: "Leave at least 0.1 XDC for gas." });
  if (balance < amount + GAS_RESERVE) throw insufficientForGas;
  await ensurePoolManager(ctx, repository.githubRepoId, wallet.address as Address, undefined, { wait: false });

  // The instant the limits are measured at, and the one the row counts from.
  const now = ctx.clock.now();
  const { tx } = await ctx.outbox.submit(
    {
      userId: input.user.id,
      idempotencyKey: input.idempotencyKey,
      request,
      kind: "fund_xdc",
      githubRepoId: repository.githubRepoId,
      intent: { repoId: repository.githubRepoId, fullName: repository.fullName, currency: "XDC", amount: amount.toString() },
      signer: { kind: "wallet", wallet },
      to: ctx.chain.config.contracts.rewards,
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [BigInt(repository.githubRepoId), MAX_FUNDING_FEE_BPS] }),
      value: amount,
      createdAt: new Date(now),
    },
    {
      guard: async (tx) => {
        // The repository's 1000 XDC a day and the funder's own across every pool and boost (limits.ts).
        await enforceLimits(tx, { kind: "fund_xdc", userId: input.user.id, repoId: repository.githubRepoId }, amount, now);
        if (balance - (await unbroadcastSpend(tx, wallet)) < amount + GAS_RESERVE) throw insufficientForGas;
      },
    },
  );
  forgetBalances(ctx.chain, wallet.address as Address);
  return transactionResult(ctx, tx, messages);
}

export interface FundRoxnInput {
  user: User;
  repoId: number;
  roxnAmount: unknown;
  repositoryFullName?: string | null;
  idempotencyKey: string;
}

/** POST /api/blockchain/fund-roxn/{repoId}: above 0, not above the ROXN balance, within the allowance. */
export function fundRepositoryRoxn(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox">, input: FundRoxnInput): Promise<TransactionResult> {
  const { roxnAmount, ...rest } = input;
  return fundRepositoryToken(ctx, "ROXN", { ...rest, amount: roxnAmount }, { route: "fund_roxn", roxnAmount: String(roxnAmount) });
}

/**
 * POST /api/blockchain/fund-usdc/{repoId} (issue 11): USDC like ROXN, approve then fund, 6 decimals in steps
 * of 0.0001, the same 0.5% fee.
 */
export function fundRepositoryUsdc(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox">, input: Omit<FundRoxnInput, "roxnAmount"> & { usdcAmount: unknown }): Promise<TransactionResult> {
  const { usdcAmount, ...rest } = input;
  return fundRepositoryToken(ctx, "USDC", { ...rest, amount: usdcAmount }, { route: "fund_usdc", usdcAmount: String(usdcAmount) });
}

/** A token funding: above 0, in the token's step, not above the wallet's balance, within the allowance. */
async function fundRepositoryToken(
  ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox">,
  token: "ROXN" | "USDC",
  input: Omit<FundRoxnInput, "roxnAmount"> & { amount: unknown },
  requestFields: Record<string, string>,
): Promise<TransactionResult> {
  const request = { ...requestFields, repoId: input.repoId, repositoryFullName: input.repositoryFullName };
  const messages = { pending: `${token} funding submitted`, confirmed: `${token} funding confirmed`, failedTitle: `Error Adding ${token} Funds` };
  const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (earlier) return transactionResult(ctx, await ctx.outbox.untilBroadcast(earlier), messages);

  const parsed = parseAmount(input.amount, DECIMALS[token]);
  if (!parsed.ok || parsed.value === 0n) {
    throw new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message: `Please enter a valid ${token} amount.` });
  }
  const amount = parsed.value;
  requireAmountStep(amount, token);
  const { repository, wallet } = await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.repositoryFullName, action: "fund" });
  const address = wallet.address as Address;
  const [balances, allowance] = await Promise.all([walletBalances(ctx.chain, address, { fresh: true }), tokenAllowance(ctx.chain, token, address)]);
  const balance = token === "ROXN" ? balances.roxn : balances.usdc;
  if (amount > balance) {
    throw new DomainError({
      code: ErrorCode.INSUFFICIENT_BALANCE,
      error: `Insufficient ${token} Balance`,
      message: `Your ${token} balance is ${formatAmount(balance, token)} ${token}.`,
    });
  }
  if (amount > allowance) {
    throw new DomainError({
      code: ErrorCode.INSUFFICIENT_ALLOWANCE,
      error: `Insufficient ${token} allowance`,
      message: `Approve ${token} before adding it to the pool.`,
      details: { allowance: toDecimalString(allowance, DECIMALS[token]) },
    });
  }
  await ensurePoolManager(ctx, repository.githubRepoId, address, undefined, { wait: false });
  const { tx } = await ctx.outbox.submit({
    userId: input.user.id,
    idempotencyKey: input.idempotencyKey,
    request,
    kind: token === "ROXN" ? "fund_roxn" : "fund_usdc",
    githubRepoId: repository.githubRepoId,
    intent: { repoId: repository.githubRepoId, fullName: repository.fullName, currency: token, amount: amount.toString() },
    signer: { kind: "wallet", wallet },
    to: ctx.chain.config.contracts.rewards,
    data: encodeFunctionData({
      abi: RepoRewardsAbi,
      functionName: "fundPoolToken",
      args: [BigInt(repository.githubRepoId), CURRENCY_INDEX[token], amount, MAX_FUNDING_FEE_BPS],
    }),
  });
  forgetBalances(ctx.chain, address);
  return transactionResult(ctx, tx, messages);
}

/**
 * POST /api/blockchain/approve-roxn (and approve-usdc): lets the rewards contract take `amount` of the token
 * from the wallet. Waits for the approval to be confirmed, because the next step (funding) depends on it.
 */
export function approveRoxn(
  ctx: ChainSendDeps,
  input: { user: User; wallet: Wallet; amount: unknown; idempotencyKey: string },
): Promise<TransactionResult & { allowance: string }> {
  return approveToken(ctx, "ROXN", input);
}

export async function approveToken(
  ctx: ChainSendDeps,
  token: "ROXN" | "USDC",
  input: { user: User; wallet: Wallet; amount: unknown; idempotencyKey: string },
): Promise<TransactionResult & { allowance: string }> {
  const request = { route: token === "ROXN" ? "approve_roxn" : "approve_usdc", amount: String(input.amount) };
  const messages = { pending: `${token} approval submitted`, confirmed: `${token} approved`, failedTitle: `${token} Approval Failed` };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    const parsed = parseAmount(input.amount, DECIMALS[token]);
    if (!parsed.ok || parsed.value === 0n) {
      throw new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message: `Please enter a valid ${token} amount.` });
    }
    requireAmountStep(parsed.value, token);
    const tokenAddress = token === "ROXN" ? ctx.chain.config.contracts.roxn : ctx.chain.config.contracts.usdc;
    ({ tx } = await ctx.outbox.submit({
      userId: input.user.id,
      idempotencyKey: input.idempotencyKey,
      request,
      kind: token === "ROXN" ? "approve_roxn" : "approve_usdc",
      intent: { currency: token, amount: parsed.value.toString(), spender: ctx.chain.config.contracts.rewards },
      signer: { kind: "wallet", wallet: input.wallet },
      to: tokenAddress,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [ctx.chain.config.contracts.rewards, parsed.value] }),
    }));
  }
  const settled = await ctx.outbox.waitForSettled(tx, 15_000);
  const result = transactionResult(ctx, settled, messages);
  const allowance = await tokenAllowance(ctx.chain, token, input.wallet.address as Address);
  return { ...result, allowance: toDecimalString(allowance, DECIMALS[token]) };
}
