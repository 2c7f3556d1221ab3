import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { users, wallets, type Role, type User } from "../../../db/schema/index.ts";
import { isUniqueViolation } from "../../../db/client.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { newCustodialWallet, walletOfUser } from "../wallets/custodial.ts";
import { audit } from "../audit.ts";
import { releaseHeldPayouts } from "../github-events/held-payouts.ts";
import { releaseHeldShares } from "../splits/release.ts";
import { releaseHeldTips } from "../tips/tips.ts";
import { toUserObject, type UserObject } from "./user-object.ts";

export const ALREADY_REGISTERED = new DomainError({
  code: ErrorCode.ALREADY_REGISTERED,
  error: "Registration Error",
  message: "User already has a wallet address registered.",
});

/**
 * Completes registration: chooses the role, records the e-mail, creates the
 * custodial wallet and marks the profile complete. A user has at most one
 * wallet: a second registration (even a concurrent one, thanks to the
 * unique index on wallets.user_id) is refused and changes nothing.
 */
export async function registerUser(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox" | "changes">,
  input: { user: User; role: Role; email: string; ip?: string },
): Promise<UserObject> {
  const db = ctx.database.db;
  if (await walletOfUser(db, input.user.id)) throw ALREADY_REGISTERED;
  const wallet = await newCustodialWallet(ctx, input.user.id);
  let updated: User;
  try {
    updated = await db.transaction(async (tx) => {
      await tx.insert(wallets).values(wallet);
      const [row] = await tx
        .update(users)
        .set({ role: input.role, email: input.email, isProfileComplete: true, updatedAt: new Date() })
        .where(eq(users.id, input.user.id))
        .returning();
      return row!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw ALREADY_REGISTERED;
    throw err;
  }
  await audit(db, { userId: input.user.id, action: "register", ip: input.ip, detail: { role: input.role, address: wallet.address } });
  // Bounties held for this GitHub user (fixes merged before they had a wallet) are paid now; if this fails or
  // the process dies here, the webhook worker's next pass releases them.
  await releaseHeldPayouts(ctx, { githubUserId: updated.githubId }).catch((err: unknown) =>
    ctx.log.warn("releasing held bounties after registration failed; the worker retries", { userId: updated.id, err: (err as Error).message }),
  );
  // Their held shares of split bounties and the tips held for them, likewise (splits/release.ts, tips/tips.ts).
  await releaseHeldShares(ctx, { githubUserId: updated.githubId }).catch((err: unknown) =>
    ctx.log.warn("releasing held split shares after registration failed; the worker retries", { userId: updated.id, err: (err as Error).message }),
  );
  await releaseHeldTips(ctx, { githubUserId: updated.githubId }).catch((err: unknown) =>
    ctx.log.warn("sending held tips after registration failed; the worker retries", { userId: updated.id, err: (err as Error).message }),
  );
  return toUserObject(updated, { address: wallet.address });
}
