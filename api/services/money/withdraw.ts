/**
 * POST /api/blockchain/repository/{repoId}/withdraw (issue 11): a pool
 * manager takes unallocated money back out of a pool, to their own wallet,
 * fee-free. The same guards as funding: a pool manager with admin rights on
 * GitHub, the anti-forgery token and an idempotency key; the amount in the
 * currency's step, above zero and at most the pool's unallocated balance
 * (bounties, open or claimed, are never touched: the contract debits only the
 * pool). The transaction is the manager's own (their custodial wallet is the
 * pool manager on-chain), so it needs a little XDC for gas.
 */
import { encodeFunctionData, type Address } from "viem";
import type { AppContext } from "../../context.ts";
import { CURRENCIES, type Currency, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { formatAmount } from "../../../lib/money-format.ts";
import { ensurePoolManager, requireManagedRepository } from "./access.ts";
import { CURRENCY_INDEX, GAS_RESERVE, requireAmountStep } from "./rules.ts";
import { poolDebitsAfter, poolSnapshot, withPoolLock } from "./pool-guard.ts";
import { transactionResult, withQueuedOutflow, type TransactionResult } from "./transaction-result.ts";

const WITHDRAW_WAIT_MS = 12_000;

const invalid = (message: string) => new DomainError({ code: ErrorCode.INVALID_AMOUNT, error: "Invalid Amount", message });

export interface WithdrawInput {
  user: User;
  repoId: number;
  currency: unknown;
  amount: unknown;
  repositoryFullName?: string | null;
  idempotencyKey: string;
}

export async function withdrawFromPool(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "indexer">, input: WithdrawInput): Promise<TransactionResult & { currency: Currency; amount: string }> {
  const request = { route: "withdraw_pool", repoId: input.repoId, currency: String(input.currency), amount: String(input.amount) };
  const messages = { pending: "Withdrawal submitted", confirmed: "Withdrawn to your wallet", failedTitle: "Withdrawal Failed" };
  const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (earlier) {
    const intent = JSON.parse(earlier.intent) as { currency: Currency; amountText: string };
    return { ...(await transactionResult(ctx, await ctx.outbox.waitForSettled(earlier, WITHDRAW_WAIT_MS), messages)), currency: intent.currency, amount: intent.amountText };
  }

  if (typeof input.currency !== "string" || !(CURRENCIES as readonly string[]).includes(input.currency)) {
    throw new DomainError({ code: ErrorCode.INVALID_CURRENCY, error: "Invalid currency", message: "Choose XDC, ROXN or USDC." });
  }
  const currency = input.currency as Currency;
  const parsed = parseAmount(input.amount, DECIMALS[currency]);
  if (!parsed.ok || parsed.value === 0n) throw invalid(`Please enter a valid ${currency} amount.`);
  const amount = parsed.value;
  requireAmountStep(amount, currency);

  const { repository, wallet } = await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.repositoryFullName, orRegisteredName: true, action: "withdraw" });
  const address = wallet.address as Address;
  const gas = await ctx.chain.client.getBalance({ address, blockTag: "pending" });
  if (gas < GAS_RESERVE / 10n) {
    throw new DomainError({ code: ErrorCode.INSUFFICIENT_GAS, error: "Insufficient funds for gas", message: "Keep at least 0.01 XDC in your wallet to pay for the withdrawal's gas." });
  }
  await ensurePoolManager(ctx, repository.githubRepoId, address);

  const amountText = toDecimalString(amount, DECIMALS[currency]);
  // Check and queue under the pool's lock, counting debits already queued: of concurrent withdrawals only those the
  // pool covers are sent, the rest get this 400 (issue 25).
  // Only the row is written under the lock (the next holder counts it from then on); its broadcast waits outside.
  // The pool read before the lock at one block, what the outbox took out since counted under it (PoolSnapshot).
  const snapshot = await poolSnapshot(ctx, repository.githubRepoId);
  const { tx: queued } = await withPoolLock(ctx, repository.githubRepoId, async (lock) => {
    const pool = snapshot.pool[currency] - (await poolDebitsAfter(ctx, repository.githubRepoId, currency, snapshot));
    if (amount > pool) {
      throw invalid(`Amount cannot exceed available ${currency} pool balance (${formatAmount(pool > 0n ? pool : 0n, currency, 4)} ${currency})`);
    }
    return ctx.outbox.enqueue(
      {
        userId: input.user.id,
        idempotencyKey: input.idempotencyKey,
        request,
        kind: "withdraw_pool",
        githubRepoId: repository.githubRepoId,
        intent: { repoId: repository.githubRepoId, fullName: repository.fullName, currency, amount: amount.toString(), amountText, to: address },
        signer: { kind: "wallet", wallet },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({
          abi: RepoRewardsAbi,
          functionName: "withdrawPool",
          args: [BigInt(repository.githubRepoId), CURRENCY_INDEX[currency], amount, address],
        }),
      },
      undefined,
      // Written only while this request still holds the pool's lock (pool-guard.ts): the check above then still stands.
      { replayChecked: true, fence: lock.fence },
    );
  });
  const tx = await ctx.outbox.untilBroadcast(queued);
  const settled = await ctx.outbox.waitForSettled(tx, WITHDRAW_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return { ...(await withQueuedOutflow(ctx, settled, transactionResult(ctx, settled, messages), "Withdrawal")), currency, amount: amountText };
}
