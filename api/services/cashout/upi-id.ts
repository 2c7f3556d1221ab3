import { and, eq } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { confirmedUpiIds } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import type { WriteTransaction } from "../wallets/one-time-codes.ts";

/**
 * A UPI id (`name@bank`), and which ones a user has confirmed with an e-mailed code (issue 40: a cash-out to any
 * other id, and automatic cash-out, need the code first; api/services/cashout/codes.ts).
 */
export const UPI_ID_PATTERN = /^[a-zA-Z0-9.\-_]{2,256}@[a-zA-Z]{2,64}$/;

export function parseUpiId(input: unknown): string {
  const text = typeof input === "string" ? input.trim() : "";
  if (!UPI_ID_PATTERN.test(text)) {
    throw new DomainError({ code: ErrorCode.INVALID_UPI_ID, error: "Invalid UPI id", message: "Enter your UPI id as name@bank, for example ravi@okaxis." });
  }
  return text;
}

/** UPI ids are case-insensitive: `Bob@OkAxis` and `bob@okaxis` are one account. */
export const upiKey = (upiId: string) => upiId.trim().toLowerCase();

export async function isConfirmedUpiId(db: Database | WriteTransaction, userId: number, upiId: string): Promise<boolean> {
  const [row] = await db
    .select({ upiId: confirmedUpiIds.upiId })
    .from(confirmedUpiIds)
    .where(and(eq(confirmedUpiIds.userId, userId), eq(confirmedUpiIds.upiId, upiKey(upiId))));
  return Boolean(row);
}

/** Records a UPI id as confirmed by a code, inside the transaction that used the code. */
export async function confirmUpiId(tx: WriteTransaction, userId: number, upiId: string, via: "cashout" | "upi"): Promise<void> {
  await tx.insert(confirmedUpiIds).values({ userId, upiId: upiKey(upiId), via }).onConflictDoNothing();
}
