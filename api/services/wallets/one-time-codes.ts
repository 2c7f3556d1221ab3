import { and, asc, desc, eq, gte, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { oneTimeCodes } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { constantTimeEqualStrings, hmacBase64url } from "../../crypto/tokens.ts";

/**
 * E-mailed one-time codes (key export, large sends). A code is 6 digits from
 * the CSPRNG, stored only as an HMAC under the server's secret (a copy of the
 * database does not give the codes away by trying all 10^6), bound to the
 * user, the purpose and a subject (the wallet for an export; token, recipient
 * and amount for a send), valid 10 minutes, used once, locked after 5 wrong
 * tries. At most 3 are issued per user and purpose in any hour, counted from
 * the rows themselves, so every process sees the same count.
 */
export type CodePurpose = "export" | "send";

export const CODE_LENGTH = 6;
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
export const CODE_REQUESTS_PER_HOUR = 3;
const HOUR_MS = 3600_000;

/** Uniform over 000000-999999: draws above the largest multiple of 10^6 are thrown back, so no code is likelier. */
export function generateCode(): string {
  const limit = Math.floor(0x1_0000_0000 / 1_000_000) * 1_000_000;
  const draw = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(draw);
    if (draw[0]! < limit) return String(draw[0]! % 1_000_000).padStart(CODE_LENGTH, "0");
  }
}

function codeHash(ctx: Pick<AppContext, "appSecret">, userId: number, purpose: CodePurpose, subject: string, code: string): Promise<string> {
  return hmacBase64url(ctx.appSecret, `otp:v1:${userId}:${purpose}:${subject}:${code}`);
}

export interface IssuedCode {
  id: number;
  /** The plaintext code: goes into the e-mail and nowhere else. */
  code: string;
  expiresAt: Date;
}

/**
 * Issues a new code and retires the user's earlier live codes of the same
 * purpose (only the newest works). The hourly count and the insert share one
 * write transaction, so concurrent requests cannot exceed it.
 */
export async function issueCode(
  ctx: Pick<AppContext, "appSecret" | "database">,
  input: { userId: number; purpose: CodePurpose; subject: string; now?: number },
): Promise<IssuedCode> {
  const now = input.now ?? Date.now();
  const code = generateCode();
  const hash = await codeHash(ctx, input.userId, input.purpose, input.subject, code);
  const expiresAt = new Date(now + CODE_TTL_MS);
  const result = await ctx.database.db.transaction(
    async (tx) => {
      const recent = await tx
        .select({ createdAt: oneTimeCodes.createdAt })
        .from(oneTimeCodes)
        .where(and(eq(oneTimeCodes.userId, input.userId), eq(oneTimeCodes.purpose, input.purpose), gte(oneTimeCodes.createdAt, new Date(now - HOUR_MS))))
        .orderBy(asc(oneTimeCodes.createdAt));
      if (recent.length >= CODE_REQUESTS_PER_HOUR) {
        return { limited: true as const, retryAt: recent[0]!.createdAt.getTime() + HOUR_MS };
      }
      await tx
        .update(oneTimeCodes)
        .set({ consumedAt: new Date(now) })
        .where(and(eq(oneTimeCodes.userId, input.userId), eq(oneTimeCodes.purpose, input.purpose), isNull(oneTimeCodes.consumedAt)));
      const [row] = await tx
        .insert(oneTimeCodes)
        .values({ userId: input.userId, purpose: input.purpose, codeHash: hash, expiresAt, createdAt: new Date(now) })
        .returning({ id: oneTimeCodes.id });
      return { limited: false as const, id: row!.id };
    },
    { behavior: "immediate" },
  );
  if (result.limited) throw tooManyCodes(Math.max(1, Math.ceil((result.retryAt - now) / 1000)));
  return { id: result.id, code, expiresAt };
}

/** A code whose e-mail never left cannot be used (the person never saw it). */
export async function retireCode(db: Database, id: number, now = Date.now()): Promise<void> {
  await db.update(oneTimeCodes).set({ consumedAt: new Date(now) }).where(and(eq(oneTimeCodes.id, id), isNull(oneTimeCodes.consumedAt)));
}

type Verdict = { ok: true } | { ok: false; reason: "missing" | "locked" } | { ok: false; reason: "wrong"; attemptsLeft: number };

/**
 * Checks `code` against the user's newest live code for this purpose and
 * subject, and uses it up when it matches. A wrong code counts an attempt;
 * the fifth wrong one locks the code for good. The count is committed before
 * the error is raised (an error inside the transaction would roll it back).
 */
export async function consumeCode(
  ctx: Pick<AppContext, "appSecret" | "database">,
  input: { userId: number; purpose: CodePurpose; subject: string; code: string; now?: number },
): Promise<void> {
  const now = input.now ?? Date.now();
  const candidate = await codeHash(ctx, input.userId, input.purpose, input.subject, input.code);
  const verdict = await ctx.database.db.transaction(
    async (tx): Promise<Verdict> => {
      const [live] = await tx
        .select()
        .from(oneTimeCodes)
        .where(and(eq(oneTimeCodes.userId, input.userId), eq(oneTimeCodes.purpose, input.purpose), isNull(oneTimeCodes.consumedAt)))
        .orderBy(desc(oneTimeCodes.id))
        .limit(1);
      if (!live || live.expiresAt.getTime() <= now) return { ok: false, reason: "missing" };
      if (live.attempts >= CODE_MAX_ATTEMPTS) return { ok: false, reason: "locked" };
      if (constantTimeEqualStrings(candidate, live.codeHash)) {
        await tx.update(oneTimeCodes).set({ consumedAt: new Date(now) }).where(eq(oneTimeCodes.id, live.id));
        return { ok: true };
      }
      const attempts = live.attempts + 1;
      await tx.update(oneTimeCodes).set({ attempts }).where(eq(oneTimeCodes.id, live.id));
      return attempts >= CODE_MAX_ATTEMPTS ? { ok: false, reason: "locked" } : { ok: false, reason: "wrong", attemptsLeft: CODE_MAX_ATTEMPTS - attempts };
    },
    { behavior: "immediate" },
  );
  if (verdict.ok) return;
  if (verdict.reason === "locked") throw codeLocked();
  if (verdict.reason === "wrong") throw wrongCode(verdict.attemptsLeft);
  throw codeMissing();
}

/** "in 1 minute", "in 42 minutes": the wait, rounded up to whole minutes. */
export function waitText(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `${minutes} minute${minutes === 1 ? "" : "s"}`;
}

/** Titled as the limit it is: nothing failed (issue 16: the site showed it under 'Failed to send OTP'). */
export const tooManyCodes = (retryAfterSeconds: number) =>
  new DomainError({
    code: ErrorCode.RATE_LIMITED,
    error: "Too many codes requested",
    message: `You asked for ${CODE_REQUESTS_PER_HOUR} codes in the last hour. Try again in ${waitText(retryAfterSeconds)}.`,
    details: { retryAfterSeconds },
    headers: { "Retry-After": String(retryAfterSeconds) },
  });

export const codeMissing = () =>
  new DomainError({ code: ErrorCode.INVALID_CODE, error: "Invalid code", message: "This code is invalid, used or expired. Request a new code." });

export const wrongCode = (attemptsLeft: number) =>
  new DomainError({
    code: ErrorCode.INVALID_CODE,
    error: "Invalid code",
    message: `The code is not correct. ${attemptsLeft} ${attemptsLeft === 1 ? "attempt" : "attempts"} left.`,
    details: { attemptsLeft },
  });

export const codeLocked = () =>
  new DomainError({
    code: ErrorCode.RATE_LIMITED,
    error: "Too many attempts",
    message: "Too many wrong codes: this code is locked. Request a new code.",
    details: { locked: true },
  });

/** The spec's text when the e-mail with the code cannot be sent. */
export const otpMailFailed = (cause?: unknown) =>
  new DomainError({ code: ErrorCode.MAIL_UNAVAILABLE, error: "Failed to send OTP", message: "Failed to send OTP", cause });

/** b***@example.com: enough to recognise the address, not to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "your e-mail address";
  return `${email[0]}***${email.slice(at)}`;
}
