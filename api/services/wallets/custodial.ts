import { eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Hex } from "viem";
import type { AppContext } from "../../context.ts";
import type { Database } from "../../../db/client.ts";
import { wallets, type Wallet } from "../../../db/schema/index.ts";
import { sealText, unsealText } from "../../crypto/envelope.ts";

/**
 * Custodial wallets. The private key is generated here, sealed at once
 * (per-wallet data key, wrapped by the master key, bound to wallet id and
 * address) and never stored, logged or returned in plaintext. It is
 * decrypted only inside `withWalletAccount`, for one signing call.
 */
export const walletContext = (walletId: string, address: string) => `wallet:${walletId}:${address}`;

export async function newCustodialWallet(ctx: AppContext, userId: number): Promise<typeof wallets.$inferInsert> {
  const id = crypto.randomUUID();
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  return { id, userId, address, privateKeySealed: await sealText(ctx.keyring, privateKey, walletContext(id, address)) };
}

const walletByUser = preparedQuery((db) => db.select().from(wallets).where(eq(wallets.userId, sql.placeholder("userId"))).limit(1).prepare());

export async function walletOfUser(db: Database, userId: number): Promise<Wallet | undefined> {
  return walletByUser(db).get({ userId });
}

/**
 * Runs `use` with a viem account for the wallet's key. The key is checked
 * against the stored address, so a wrongly sealed key can never sign.
 */
export async function withWalletAccount<T>(
  ctx: Pick<AppContext, "keyring">,
  wallet: Wallet,
  use: (account: PrivateKeyAccount) => Promise<T>,
): Promise<T> {
  const privateKey = (await unsealText(ctx.keyring, wallet.privateKeySealed, walletContext(wallet.id, wallet.address))) as Hex;
  const account = privateKeyToAccount(privateKey);
  if (account.address !== wallet.address) throw new Error(`wallet ${wallet.id}: key does not match address`);
  return use(account);
}
