import { and, eq, inArray } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import type { DbOrTx } from "../../../db/client.ts";
import { chainTransactions, type Wallet } from "../../../db/schema/index.ts";

/**
 * XDC the wallet has committed in the outbox but not yet broadcast: the
 * chain's pending balance does not know it yet, so every spending decision
 * subtracts it. Read inside the outbox's insert transaction (`guard`), it
 * makes concurrent spends from one wallet add up instead of each seeing the
 * whole balance.
 */
export async function unbroadcastXdc(db: DbOrTx, wallet: Pick<Wallet, "id">): Promise<bigint> {
  const rows = await db
    .select({ value: chainTransactions.value })
    .from(chainTransactions)
    .where(and(eq(chainTransactions.walletId, wallet.id), inArray(chainTransactions.status, ["queued", "signed"])));
  return rows.reduce((sum, r) => sum + r.value, 0n);
}

/** The wallet's XDC as the next transaction would find it: pending balance minus outbox rows not yet sent. */
export async function pendingXdcBalance(ctx: Pick<AppContext, "chain">, wallet: Pick<Wallet, "address">): Promise<bigint> {
  return ctx.chain.client.getBalance({ address: wallet.address as Address, blockTag: "pending" });
}
