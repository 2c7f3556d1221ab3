import { and, desc, eq, inArray } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, zeroAddress, type Address, type Hex } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import type { OutboxRequest } from "../../chain/outbox.ts";
import { chainTransactions, type ChainTransaction, type User, type Wallet } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { parseAmount, toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS, type Currency } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { describeChainError, isPermanentEstimateError } from "../../chain/errors.ts";
import { formatAmount } from "../../../lib/money-format.ts";
import { sendCodeMail } from "../../mail/templates.ts";
import { audit } from "../audit.ts";
import { forgetBalances, walletBalances } from "../money/balances.ts";
import { GAS_RESERVE } from "../money/rules.ts";
import { transactionResult, type TransactionResult } from "../money/transaction-result.ts";
import { walletOfUser } from "./custodial.ts";
import { CODE_TTL_MS, consumeCode, issueCode, maskEmail, otpMailFailed, retireCode } from "./one-time-codes.ts";
import { pendingXdcBalance, unbroadcastXdc } from "./spendable.ts";
import { tokenContract, WALLET_TOKENS } from "./tokens.ts";

/**
 * Sending XDC, ROXN or USDC from the custodial wallet to an outside address
 * (beyond the spec: users must be able to move their rewards out). Rules, all
 * checked on the server:
 * - the recipient is an XDC address in xdc… or 0x… form, with a valid
 *   checksum when written in mixed case, not the zero address and not the
 *   wallet itself;
 * - the amount is above 0, has no more decimals than the token, and is
 *   within the balance; XDC sends leave the 0.1 XDC gas reserve after the
 *   fee, token sends need XDC for the fee;
 * - above SEND_OTP_THRESHOLD (in the token's units) a one-time code e-mailed
 *   for exactly this token, recipient and amount is required;
 * - the transaction goes through the outbox under the request's
 *   Idempotency-Key: a retry returns the first result and never sends twice.
 */
export const SEND_KINDS = ["send_xdc", "send_token"] as const;

export interface SendInput {
  token: unknown;
  to: unknown;
  amount: unknown;
}

export interface CheckedSend {
  wallet: Wallet;
  token: Currency;
  recipient: Address;
  amount: bigint;
  /** Estimated network fee in XDC (gas estimate x gas price). */
  fee: bigint;
  /** The fee the outbox may spend at most (it signs with 20% more gas than estimated). */
  maxFee: bigint;
  /** The chain's pending XDC balance when checked (outbox rows not yet broadcast are not in it). */
  xdcPending: bigint;
  /** Spendable XDC when checked: the pending balance minus unbroadcast outbox rows. */
  xdcAvailable: bigint;
  otpRequired: boolean;
  call: { to: Address; data: Hex; value: bigint };
}

export interface SendQuote {
  token: Currency;
  to: string;
  amount: string;
  fee: string;
  feeCurrency: "XDC";
  /** amount + fee for XDC; for tokens the fee is paid in XDC, so there is no single total. */
  total: string | null;
  otpRequired: boolean;
  otpThreshold: string;
}

export interface SendResult extends TransactionResult {
  id: string;
  token: Currency;
  to: string;
  amount: string;
}

const sendError = (code: ErrorCode, error: string, message: string, details?: Record<string, unknown>) => new DomainError({ code, error, message, details });

const invalidAmount = (symbol: string) => sendError(ErrorCode.INVALID_AMOUNT, "Invalid Amount", `Please enter a valid ${symbol} amount.`);

export function parseToken(input: unknown): Currency {
  if (typeof input === "string" && (WALLET_TOKENS as readonly string[]).includes(input)) return input as Currency;
  throw sendError(ErrorCode.INVALID_CURRENCY, "Invalid token", "Choose XDC, ROXN or USDC.");
}

/** The recipient, or the error that says what is wrong with it. */
export function parseRecipient(input: unknown): Address {
  const text = typeof input === "string" ? input.trim() : "";
  if (!text) throw sendError(ErrorCode.INVALID_ADDRESS, "Invalid address", "Enter the recipient's address (xdc… or 0x…).");
  const hex = /^xdc/i.test(text) ? `0x${text.slice(3)}` : text;
  if (!/^0x[0-9a-fA-F]{40}$/.test(hex)) {
    throw sendError(ErrorCode.INVALID_ADDRESS, "Invalid address", "Enter a valid XDC address: xdc or 0x followed by 40 hexadecimal characters.");
  }
  const address = parseAddress(text);
  if (!address) {
    throw sendError(ErrorCode.INVALID_ADDRESS, "Invalid address checksum", "The address's mixed upper and lower case does not match its checksum: check it for a typo.");
  }
  if (address === zeroAddress) throw sendError(ErrorCode.INVALID_ADDRESS, "Invalid address", "Sending to the zero address would destroy the funds.");
  return address;
}

export function parseSendAmount(input: unknown, token: Currency): bigint {
  const parsed = parseAmount(input, DECIMALS[token]);
  if (!parsed.ok) {
    if (parsed.reason === "decimals") throw sendError(ErrorCode.INVALID_AMOUNT, "Invalid Amount", `${token} amounts have at most ${DECIMALS[token]} decimal places.`);
    throw invalidAmount(token);
  }
  if (parsed.value === 0n) throw invalidAmount(token);
  return parsed.value;
}

/** SEND_OTP_THRESHOLD in the token's smallest unit (extra decimals beyond the token's are dropped). */
export function otpThreshold(ctx: Pick<AppContext, "env">, token: Currency): bigint {
  const [whole = "0", fraction = ""] = ctx.env.SEND_OTP_THRESHOLD.split(".");
  const decimals = DECIMALS[token];
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.slice(0, decimals).padEnd(decimals, "0") || "0");
}

/**
 * What a wallet can spend now: the pending XDC balance less XDC already on
 * its way in transactions not broadcast yet, and of a token its balance
 * (read fresh). Shared by the checks of a send and by Max.
 */
async function spendable(ctx: Pick<AppContext, "database" | "chain">, wallet: Wallet, token: Currency): Promise<{ pending: bigint; xdcAvailable: bigint; held: bigint }> {
  const [pending, unbroadcast, balances] = await Promise.all([
    pendingXdcBalance(ctx, wallet),
    unbroadcastXdc(ctx.database.db, wallet),
    token === "XDC" ? undefined : walletBalances(ctx.chain, wallet.address as Address, { fresh: true }),
  ]).catch((err) => {
    if (err instanceof DomainError) throw err;
    throw chainUnavailable(err);
  });
  const xdcAvailable = pending > unbroadcast ? pending - unbroadcast : 0n;
  return { pending, xdcAvailable, held: token === "XDC" ? xdcAvailable : token === "ROXN" ? balances!.roxn : balances!.usdc };
}

const gasReserveError = () => sendError(ErrorCode.INSUFFICIENT_GAS, "Insufficient funds for gas", "Leave at least 0.1 XDC for gas.");

/**
 * Every rule of a send, checked, and its fee estimated: also what a cash-out to the provider's deposit address
 * goes through (api/services/cashout/), since a cash-out is a send.
 */
export async function checkSend(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox">, user: User, input: SendInput): Promise<CheckedSend> {
  const token = parseToken(input.token);
  const recipient = parseRecipient(input.to);
  const amount = parseSendAmount(input.amount, token);
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) throw sendError(ErrorCode.WALLET_REQUIRED, "No wallet", "No wallet is connected. Please check your profile settings.");
  if (recipient === wallet.address) throw sendError(ErrorCode.INVALID_ADDRESS, "Invalid address", "This is your own wallet: enter the address you want to send to.");

  const decimals = DECIMALS[token];
  const { pending, xdcAvailable, held } = await spendable(ctx, wallet, token);
  if (amount > held) {
    throw sendError(ErrorCode.INSUFFICIENT_BALANCE, `Insufficient ${token} Balance`, `Your ${token} balance is ${formatAmount(held, token)} ${token}.`, {
      balance: toDecimalString(held, decimals),
    });
  }
  if (token === "XDC" && amount + GAS_RESERVE > xdcAvailable) throw gasReserveError();

  const call = transferCall(ctx, token, recipient, amount);
  const { fee, maxFee } = await estimateFee(ctx, user, wallet, token, call);
  // The reserve is what stays after the fee: the form promises "0.1 XDC stays in the wallet" (issue 16).
  if (token === "XDC" && (amount + fee + GAS_RESERVE > xdcAvailable || amount + maxFee > xdcAvailable)) throw gasReserveError();
  if (token !== "XDC" && maxFee > xdcAvailable) {
    throw sendError(ErrorCode.INSUFFICIENT_GAS, "Insufficient funds for gas", `You need about ${formatAmount(maxFee, "XDC")} XDC in your wallet to pay the network fee.`);
  }
  return { wallet, token, recipient, amount, fee, maxFee, xdcPending: pending, xdcAvailable, otpRequired: amount > otpThreshold(ctx, token), call };
}

function transferCall(ctx: Pick<AppContext, "chain">, token: Currency, recipient: Address, amount: bigint): { to: Address; data: Hex; value: bigint } {
  const contract = tokenContract(ctx, token);
  return contract
    ? { to: contract, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [recipient, amount] }), value: 0n }
    : { to: recipient, data: "0x" as Hex, value: amount };
}

/** The network fee of a call: estimated (gas x gas price), and the most the outbox may spend (it signs with 20% more gas). */
async function estimateFee(
  ctx: Pick<AppContext, "log" | "chain" | "outbox">,
  user: User,
  wallet: Wallet,
  token: Currency,
  call: { to: Address; data: Hex; value: bigint },
): Promise<{ fee: bigint; maxFee: bigint }> {
  try {
    const [gas, gasPrice] = await Promise.all([
      ctx.chain.client.estimateGas({ account: wallet.address as Address, to: call.to, data: call.data, value: call.value, blockTag: "pending" }),
      ctx.outbox.currentGasPrice(),
    ]);
    return { fee: gas * gasPrice, maxFee: ((gas * 12n) / 10n) * gasPrice };
  } catch (err) {
    if (isPermanentEstimateError(err)) {
      ctx.log.info("send refused by the estimate", { userId: user.id, token, err: describeChainError(err) });
      throw new DomainError({ code: ErrorCode.TRANSACTION_FAILED, error: "Send Failed", message: "The network refused this transfer: nothing was sent." });
    }
    throw chainUnavailable(err);
  }
}

export interface SendMax {
  token: Currency;
  /** The most that can be sent: for XDC the spendable balance less the 0.1 XDC reserve and the estimated fee. */
  amount: string;
  fee: string;
  reserve: string;
}

/**
 * GET /api/wallet/send-max: what the form's Max button fills in, computed
 * with the same estimate as the quote. For XDC it is balance − reserve −
 * fee, so after sending it exactly 0.1 XDC stays (issue 16: Max was balance
 * − 0.1 and the fee came out of the reserve). Without a valid recipient the
 * fee of a plain transfer is estimated (the same for any ordinary address).
 */
export async function quoteMaxSend(ctx: Pick<AppContext, "database" | "log" | "chain" | "outbox">, user: User, input: { token: unknown; to?: unknown }): Promise<SendMax> {
  const token = parseToken(input.token);
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) throw sendError(ErrorCode.WALLET_REQUIRED, "No wallet", "No wallet is connected. Please check your profile settings.");
  let recipient: Address | undefined;
  try {
    recipient = input.to ? parseRecipient(input.to) : undefined;
  } catch {
    recipient = undefined;
  }
  if (!recipient || recipient === wallet.address) recipient = MAX_ESTIMATE_RECIPIENT;
  const decimals = DECIMALS[token];
  const { held } = await spendable(ctx, wallet, token);
  // A token's fee is paid in XDC, so all of the token can go. For XDC the estimate's value does not change the
  // gas of a plain transfer; 1 unit keeps the estimate valid whatever the balance.
  if (token !== "XDC") return { token, amount: toDecimalString(held, decimals), fee: "0", reserve: "0" };
  const { fee } = held > GAS_RESERVE ? await estimateFee(ctx, user, wallet, token, transferCall(ctx, token, recipient, 1n)) : { fee: 0n };
  const most = held - GAS_RESERVE - fee;
  return { token, amount: toDecimalString(most > 0n ? most : 0n, decimals), fee: toDecimalString(fee, decimals), reserve: toDecimalString(GAS_RESERVE, decimals) };
}

/** An ordinary address no one holds the key of, for estimating a plain transfer's fee before a recipient is known. */
const MAX_ESTIMATE_RECIPIENT: Address = "0x000000000000000000000000000000000000dEaD";

const chainUnavailable = (cause: unknown) =>
  new DomainError({ code: ErrorCode.CHAIN_UNAVAILABLE, error: "Network unavailable", message: "Could not reach the XDC network. Please try again in a moment.", cause });

/** What the one-time code of a send is bound to: the exact token, recipient and amount. */
const sendSubject = (send: Pick<CheckedSend, "token" | "recipient" | "amount">) => `${send.token}:${send.recipient}:${send.amount}`;

/** GET /api/wallet/send-quote: every rule checked, the fee estimated, nothing changed. */
export async function quoteSend(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox">, user: User, input: SendInput): Promise<SendQuote> {
  const send = await checkSend(ctx, user, input);
  const decimals = DECIMALS[send.token];
  return {
    token: send.token,
    to: toXdcAddress(send.recipient),
    amount: toDecimalString(send.amount, decimals),
    fee: toDecimalString(send.fee, DECIMALS.XDC),
    feeCurrency: "XDC",
    total: send.token === "XDC" ? toDecimalString(send.amount + send.fee, decimals) : null,
    otpRequired: send.otpRequired,
    otpThreshold: toDecimalString(otpThreshold(ctx, send.token), decimals),
  };
}

/** POST /api/wallet/send-code: e-mails the code for this one send. */
export async function requestSendCode(ctx: Pick<AppContext, "env" | "database" | "log" | "appSecret" | "chain" | "outbox" | "mailer">, input: { user: User; send: SendInput; ip?: string }): Promise<{ success: true; message: string; expiresAt: string }> {
  const send = await checkSend(ctx, input.user, input.send);
  if (!send.otpRequired) {
    throw sendError(ErrorCode.CODE_NOT_NEEDED, "No code needed", `Only sends above ${ctx.env.SEND_OTP_THRESHOLD} ${send.token} need a code.`);
  }
  if (!input.user.email) throw sendError(ErrorCode.EMAIL_REQUIRED, "No e-mail address", "Add an e-mail address to your profile to receive the code.");
  const issued = await issueCode(ctx, { userId: input.user.id, purpose: "send", subject: sendSubject(send) });
  try {
    await ctx.mailer.send(
      sendCodeMail({
        to: input.user.email,
        code: issued.code,
        amount: toDecimalString(send.amount, DECIMALS[send.token]),
        token: send.token,
        recipient: toXdcAddress(send.recipient),
        validMinutes: CODE_TTL_MS / 60_000,
      }),
    );
  } catch (err) {
    await retireCode(ctx.database.db, issued.id);
    throw otpMailFailed(err);
  }
  await audit(ctx.database.db, { userId: input.user.id, action: "wallet.send_code_sent", ip: input.ip, detail: { token: send.token, to: send.recipient } });
  return { success: true, message: `We sent a 6-digit code to ${maskEmail(input.user.email)}.`, expiresAt: issued.expiresAt.toISOString() };
}

/** POST /api/wallet/send */
export async function sendFromWallet(
  ctx: Pick<AppContext, "env" | "database" | "log" | "appSecret" | "chain" | "outbox">,
  input: { user: User; send: SendInput; otp?: string; idempotencyKey: string; ip?: string },
): Promise<SendResult> {
  // The code is not part of the request's identity: a retry after a lost answer carries the same (spent) code.
  const request = { route: "wallet_send", token: String(input.send.token), to: String(input.send.to).trim(), amount: String(input.send.amount) };
  const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (earlier) return sendResult(ctx, await ctx.outbox.untilBroadcast(earlier));

  const send = await checkSend(ctx, input.user, input.send);
  if (send.otpRequired) {
    if (!input.otp) {
      throw sendError(ErrorCode.CODE_REQUIRED, "Confirmation code required", `Sends above ${ctx.env.SEND_OTP_THRESHOLD} ${send.token} need the 6-digit code we e-mail you.`, {
        otpRequired: true,
      });
    }
    await consumeCode(ctx, { userId: input.user.id, purpose: "send", subject: sendSubject(send), code: input.otp });
  }
  const { wallet, token, recipient, amount } = send;
  const { tx } = await ctx.outbox.submit(sendRequest(send, { userId: input.user.id, idempotencyKey: input.idempotencyKey, request }), {
    guard: sendGuard(send),
  });
  forgetBalances(ctx.chain, wallet.address as Address);
  await audit(ctx.database.db, {
    userId: input.user.id,
    action: "wallet.send",
    ip: input.ip,
    detail: { token, to: recipient, amount: amount.toString(), outboxId: tx.id, confirmedByCode: send.otpRequired },
  });
  return sendResult(ctx, tx);
}

/**
 * The outbox row of a checked send: kind `send_xdc` / `send_token` whoever starts it (the user's send form, or a
 * cash-out to the provider's deposit address), so every send counts alike in the wallet's daily figures
 * (transactions.ts, walletLimits) and history. `intent` adds to what the row records (a cash-out's id).
 */
export function sendRequest(
  send: CheckedSend,
  input: { userId: number | null; idempotencyKey: string; request: unknown; intent?: Record<string, unknown> },
): OutboxRequest {
  return {
    userId: input.userId,
    idempotencyKey: input.idempotencyKey,
    request: input.request,
    kind: send.token === "XDC" ? "send_xdc" : "send_token",
    intent: { currency: send.token, to: send.recipient, amount: send.amount.toString(), ...input.intent },
    signer: { kind: "wallet", wallet: send.wallet },
    to: send.call.to,
    data: send.call.data,
    value: send.call.value,
  };
}

/** Checked again inside the outbox's insert transaction, so concurrent sends from one wallet add up. */
export function sendGuard(send: CheckedSend): ((db: Database) => Promise<void>) | undefined {
  if (send.token !== "XDC") return undefined;
  return async (db) => {
    if (send.xdcPending - (await unbroadcastXdc(db, send.wallet)) < send.amount + send.fee + GAS_RESERVE) throw gasReserveError();
  };
}

function sendResult(ctx: Pick<AppContext, "chain">, tx: ChainTransaction): SendResult {
  const intent = JSON.parse(tx.intent) as { currency: Currency; to: string; amount: string };
  const token = intent.currency;
  const result = transactionResult(ctx, tx, { pending: `${token} sent: waiting for confirmation`, confirmed: `${token} sent`, failedTitle: "Send Failed" });
  return { ...result, id: tx.id, token, to: toXdcAddress(intent.to), amount: toDecimalString(BigInt(intent.amount), DECIMALS[token]) };
}

export interface SentTransaction {
  id: string;
  token: Currency;
  to: string;
  amount: string;
  status: "pending" | "confirmed" | "failed";
  transactionHash: string | null;
  explorerUrl: string | null;
  createdAt: string;
}

/** GET /api/wallet/sends: the wallet's latest sends, newest first. */
export async function listSends(ctx: Pick<AppContext, "database" | "chain">, user: User, limit: number): Promise<SentTransaction[]> {
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) return [];
  const rows = await ctx.database.db
    .select()
    .from(chainTransactions)
    .where(and(eq(chainTransactions.walletId, wallet.id), inArray(chainTransactions.kind, [...SEND_KINDS])))
    .orderBy(desc(chainTransactions.createdAt))
    .limit(limit);
  return rows.map((tx) => {
    const intent = JSON.parse(tx.intent) as { currency: Currency; to: string; amount: string };
    return {
      id: tx.id,
      token: intent.currency,
      to: toXdcAddress(intent.to),
      amount: toDecimalString(BigInt(intent.amount), DECIMALS[intent.currency]),
      status: tx.status === "confirmed" ? "confirmed" : tx.status === "failed" || tx.status === "reverted" ? "failed" : "pending",
      transactionHash: tx.txHash,
      explorerUrl: tx.txHash ? explorerTxUrl(ctx.chain.config.network, tx.txHash) : null,
      createdAt: tx.createdAt.toISOString(),
    };
  });
}
