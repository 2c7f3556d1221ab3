/**
 * Tips (issue 29, item 5; docs/design.md, "Tips"): a signed-in user gives
 * XDC, ROXN or USDC to any GitHub person, from a `/tip 10 XDC @login`
 * comment (confirmed in the app through a money intent, tip-intent.ts) or
 * the Tip button on a profile (POST /api/tips).
 *
 *   recipient with a wallet  -> sending: the transfer is in the outbox under
 *                               the key `tip:<id>` of the tipper -> sent
 *   recipient without one    -> held: nothing moves; the amount is reserved
 *                               in the tipper's wallet (later tips and this
 *                               check count it), and when the recipient
 *                               registers the transfer goes out -> sent
 * Exactly once: one tip row per (tipper, request key), one outbox row per
 * tip (its key), and a pass (resumeTips) sends a tip whose row exists but
 * whose transfer was never queued (a crash in between).
 */
import { and, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { chainTransactions, tips, users, wallets, type ChainTransaction, type Currency, type Tip, type User } from "../../../db/schema/index.ts";
import { ApiError, ErrorCode, notFound } from "../../errors.ts";
import { parseAmount, toDecimalString, TOKEN_DECIMALS } from "../../chain/amounts.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { forgetBalances, walletBalances } from "../money/balances.ts";
import { GAS_RESERVE, MIN_BOUNTY, requireAmountStep } from "../money/rules.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { unbroadcastXdc } from "../wallets/spendable.ts";
import { tokenContract } from "../wallets/tokens.ts";
import { formatExact } from "../../../lib/money-format.ts";

/** The same minimum as a bounty (and a boost): 1 XDC, 0.0001 ROXN or USDC. */
export const MIN_TIP = MIN_BOUNTY;
export const TIP_KINDS = ["tip_xdc", "tip_token"] as const;

const tipError = (error: string, message: string) => new ApiError({ code: ErrorCode.BAD_REQUEST, error, message });

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
  /** held (until the recipient registers), pending (on its way), confirmed, failed. */
  status: "held" | "pending" | "confirmed" | "failed";
  transactionHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
  message: string;
}

/** POST /api/tips, and a confirmed `/tip` intent. Replaying the same key returns the first tip. */
export async function giveTip(ctx: AppContext, input: TipInput): Promise<TipView> {
  const earlier = await tipByKey(ctx, input.user.id, input.idempotencyKey);
  if (earlier) return tipView(ctx, earlier);
  const decimals = TOKEN_DECIMALS[input.currency];
  const parsed = parseAmount(input.amount, decimals);
  if (!parsed.ok || parsed.value === 0n) throw tipError("Invalid Amount", `Please enter a valid ${input.currency} amount.`);
  const amount = parsed.value;
  if (amount < MIN_TIP[input.currency]) throw tipError("Invalid Amount", `A tip is at least ${formatExact(MIN_TIP[input.currency], input.currency)} ${input.currency}.`);
  requireAmountStep(amount, input.currency);
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw tipError("No wallet", "No wallet is connected. Please check your profile settings.");
  const recipient = await githubPerson(ctx, input.user, input.login);
  if (recipient.id === input.user.githubId) throw tipError("Invalid recipient", "You cannot tip yourself.");
  await requireCovered(ctx, input.user, wallet, input.currency, amount);
  const to = await walletOfGitHubUser(ctx, recipient.id);
  const [row] = await ctx.database.db
    .insert(tips)
    .values({
      fromUserId: input.user.id,
      toGithubId: recipient.id,
      toLogin: recipient.login,
      currency: input.currency,
      amount,
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
  ctx.log.info(to ? "tip sending" : "tip held for a GitHub user without a wallet", { tipId: row.id, from: input.user.username, to: recipient.login, currency: input.currency });
  if (to) return tipView(ctx, await sendTip(ctx, row, to));
  return tipView(ctx, row);
}

async function tipByKey(ctx: Pick<AppContext, "database">, userId: number, key: string): Promise<Tip | undefined> {
  const [row] = await ctx.database.db.select().from(tips).where(and(eq(tips.fromUserId, userId), eq(tips.idempotencyKey, key))).limit(1);
  return row;
}

/** A GitHub person by login, asked with the tipper's token (404 / 400 for an organisation or a bot). */
async function githubPerson(ctx: AppContext, user: User, login: string): Promise<{ id: number; login: string }> {
  const name = login.replace(/^@/, "");
  if (!/^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/.test(name)) throw tipError("Invalid login", "Enter the GitHub login of the person to tip.");
  const client = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, user) });
  let found: { id: number; login: string; type?: string };
  try {
    found = await client.get<{ id: number; login: string; type?: string }>(`/users/${encodeURIComponent(name)}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`GitHub user @${name} was not found.`);
    throw githubUnavailable();
  }
  if (found.type && found.type !== "User") throw tipError("Not a person", `@${found.login} is not a person: tip a person's GitHub login.`);
  return { id: found.id, login: found.login };
}

async function walletOfGitHubUser(ctx: Pick<AppContext, "database">, githubId: number): Promise<Address | undefined> {
  const [row] = await ctx.database.db.select({ address: wallets.address }).from(users).innerJoin(wallets, eq(wallets.userId, users.id)).where(eq(users.githubId, githubId)).limit(1);
  return row?.address as Address | undefined;
}

/** The tipper's wallet covers this tip besides their tips still held (reserved) and XDC on its way out. */
async function requireCovered(ctx: AppContext, user: User, wallet: { id: string; address: string }, currency: Currency, amount: bigint): Promise<void> {
  const [balances, unbroadcast, heldRows] = await Promise.all([
    walletBalances(ctx.chain, wallet.address as Address, { fresh: true }),
    unbroadcastXdc(ctx.database.db, wallet),
    ctx.database.db.select({ amount: tips.amount }).from(tips).where(and(eq(tips.fromUserId, user.id), eq(tips.currency, currency), eq(tips.status, "held"))),
  ]);
  const reserved = heldRows.reduce((s, r) => s + r.amount, 0n);
  const xdc = balances.xdc - unbroadcast;
  const held = currency === "XDC" ? xdc : currency === "ROXN" ? balances.roxn : balances.usdc;
  if (amount + reserved > held) {
    throw tipError(`Insufficient ${currency} Balance`, `Your ${currency} balance (${formatExact(held > reserved ? held - reserved : 0n, currency)} ${currency} after tips you are holding) does not cover this tip.`);
  }
  if (currency === "XDC" ? amount + reserved + GAS_RESERVE > xdc : xdc < GAS_RESERVE) throw tipError("Insufficient funds for gas", "Leave at least 0.1 XDC for gas.");
}

/** The transfer of a tip: a plain transfer from the tipper's wallet to the recipient's (contract v3 routes it through the escrow). */
function tipCall(ctx: Pick<AppContext, "chain">, currency: Currency, to: Address, amount: bigint): { to: Address; data: Hex; value: bigint } {
  const contract = tokenContract(ctx, currency);
  return contract ? { to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] }), value: 0n } : { to, data: "0x", value: amount };
}

/** Queues a tip's transfer (idempotent by the tip's key) and records it. */
async function sendTip(ctx: AppContext, tip: Tip, to: Address): Promise<Tip> {
  const wallet = await walletOfUser(ctx.database.db, tip.fromUserId);
  if (!wallet) throw new Error(`tip ${tip.id}: the tipper has no wallet`);
  const call = tipCall(ctx, tip.currency, to, tip.amount);
  const { tx } = await ctx.outbox.submit({
    userId: tip.fromUserId,
    idempotencyKey: `tip:${tip.id}`,
    request: { tipId: tip.id },
    kind: tip.currency === "XDC" ? "tip_xdc" : "tip_token",
    githubRepoId: tip.githubRepoId ?? undefined,
    issueNumber: tip.issueNumber ?? undefined,
    intent: { tipId: tip.id, currency: tip.currency, to, toLogin: tip.toLogin, amount: tip.amount.toString() },
    signer: { kind: "wallet", wallet },
    to: call.to,
    data: call.data,
    value: call.value,
  });
  forgetBalances(ctx.chain, wallet.address as Address);
  const [updated] = await ctx.database.db.update(tips).set({ status: "sent", txId: tx.id, sentAt: new Date() }).where(eq(tips.id, tip.id)).returning();
  ctx.changes.publish([`tips:${tip.toGithubId}`]);
  return updated!;
}

/**
 * Sends the held tips of people who now have a wallet (only `githubUserId`'s when given), and any tip whose row
 * exists without its transfer (a crash between the two). Run on registration and on each webhook pass.
 */
export async function releaseHeldTips(ctx: AppContext, only?: { githubUserId: number }): Promise<number> {
  const due = await ctx.database.db
    .select({ tip: tips, address: wallets.address })
    .from(tips)
    .innerJoin(users, eq(users.githubId, tips.toGithubId))
    .innerJoin(wallets, eq(wallets.userId, users.id))
    .where(and(or(eq(tips.status, "held"), and(eq(tips.status, "sending"), isNull(tips.txId))), only ? eq(tips.toGithubId, only.githubUserId) : undefined))
    .limit(100);
  let sent = 0;
  for (const { tip, address } of due) {
    try {
      // held -> sending first: two passes at once both reach sendTip, whose outbox key lets only one transfer exist.
      await ctx.database.db.update(tips).set({ status: "sending" }).where(and(eq(tips.id, tip.id), inArray(tips.status, ["held", "sending"])));
      await sendTip(ctx, tip, address as Address);
      sent++;
    } catch (err) {
      ctx.log.warn("held tip not sent yet; retried on the next pass", { tipId: tip.id, err: (err as Error).message });
    }
  }
  return sent;
}

const statusOf = (tip: Tip, tx: Pick<ChainTransaction, "status"> | null): TipView["status"] =>
  tip.status === "held"
    ? "held"
    : tip.status === "failed" || tx?.status === "failed" || tx?.status === "reverted"
      ? "failed"
      : tx?.status === "confirmed"
        ? "confirmed"
        : "pending";

export async function tipView(ctx: Pick<AppContext, "database" | "chain">, tip: Tip, known?: { fromLogin?: string; tx?: ChainTransaction | null }): Promise<TipView> {
  const [tx] = known?.tx !== undefined ? [known.tx] : tip.txId ? await ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.id, tip.txId)).limit(1) : [null];
  const fromLogin = known?.fromLogin ?? (await ctx.database.db.select({ username: users.username }).from(users).where(eq(users.id, tip.fromUserId)).limit(1))[0]?.username ?? "";
  const status = statusOf(tip, tx ?? null);
  const amount = `${formatExact(tip.amount, tip.currency)} ${tip.currency}`;
  return {
    id: tip.id,
    from: fromLogin,
    to: tip.toLogin,
    currency: tip.currency,
    amount: toDecimalString(tip.amount, TOKEN_DECIMALS[tip.currency]),
    status,
    transactionHash: tx?.txHash ?? null,
    explorerUrl: tx?.txHash ? explorerTxUrl(ctx.chain.config.network, tx.txHash) : null,
    createdAt: tip.createdAt.toISOString(),
    message:
      status === "held"
        ? `Tip of ${amount} held for @${tip.toLogin}: sent to their Issuepool wallet as soon as they sign in and register.`
        : status === "failed"
          ? `Tip of ${amount} to @${tip.toLogin} failed: nothing was sent.`
          : `Tip of ${amount} sent to @${tip.toLogin}.`,
  };
}

/** GET /api/tips: the signed-in user's tips, given and received, newest first. */
export async function myTips(ctx: Pick<AppContext, "database" | "chain">, user: Pick<User, "id" | "githubId" | "username">, limit = 50): Promise<{ given: TipView[]; received: TipView[] }> {
  const db = ctx.database.db;
  const rows = async (where: ReturnType<typeof eq>) =>
    db
      .select({ tip: tips, tx: chainTransactions, from: users.username })
      .from(tips)
      .innerJoin(users, eq(users.id, tips.fromUserId))
      .leftJoin(chainTransactions, eq(chainTransactions.id, tips.txId))
      .where(where)
      .orderBy(desc(tips.createdAt), desc(tips.id))
      .limit(limit);
  const [given, received] = await Promise.all([rows(eq(tips.fromUserId, user.id)), rows(eq(tips.toGithubId, user.githubId))]);
  const view = (r: { tip: Tip; tx: ChainTransaction | null; from: string }) => tipView(ctx, r.tip, { fromLogin: r.from, tx: r.tx });
  return { given: await Promise.all(given.map(view)), received: await Promise.all(received.map(view)) };
}

/** Tips a GitHub user received and were confirmed on-chain, for their wallet history (wallets/transactions.ts). */
export async function receivedTipTransfers(ctx: { database: { db: Database } }, githubId: number, limit: number) {
  return ctx.database.db
    .select({ tip: tips, tx: chainTransactions })
    .from(tips)
    .innerJoin(chainTransactions, eq(chainTransactions.id, tips.txId))
    .where(and(eq(tips.toGithubId, githubId), inArray(chainTransactions.status, ["sent", "confirmed"]), sql`${chainTransactions.txHash} is not null`))
    .orderBy(desc(tips.createdAt))
    .limit(limit);
}
