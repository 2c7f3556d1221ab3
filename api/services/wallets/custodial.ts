import { and, eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import type { Address, Hex } from "viem";
import type { Keyring } from "../../crypto/keyring.ts";
import type { Logger } from "../../logger.ts";
import type { Database, DatabaseHandle } from "../../../db/client.ts";
import { users, wallets, type Wallet } from "../../../db/schema/index.ts";
import { sealText, unsealText } from "../../crypto/envelope.ts";

/**
 * Custodial wallets. The private key is generated here, sealed at once
 * (per-wallet data key, wrapped by the master key, bound to wallet id and
 * address) and never stored, logged or returned in plaintext. It is
 * decrypted only inside `withWalletAccount`, for one signing call.
 */
export const CURRENT_KEY_CONTEXT = 2;

/** A wallet's key cannot sign: it does not decrypt (wrong master key, moved or tampered row) or fits another address. Permanent. */
export class WalletKeyError extends Error {}

/**
 * What a wallet's key is sealed for (the additional data of both encryption layers): the wallet id, its
 * address and its owner (issue 15, finding 6: before version 2 the owner was missing, so a row moved to
 * another user still decrypted, for them).
 */
export function walletContext(wallet: Pick<Wallet, "id" | "address" | "userId"> & { keyContextVersion?: number }): string {
  const version = wallet.keyContextVersion ?? CURRENT_KEY_CONTEXT;
  if (version === 1) return `wallet:${wallet.id}:${wallet.address}`;
  return `wallet:${wallet.id}:${wallet.address}:user:${wallet.userId}`;
}

export async function newCustodialWallet(ctx: { keyring: Keyring }, userId: number): Promise<typeof wallets.$inferInsert> {
  const id = crypto.randomUUID();
  const privateKey = generatePrivateKey();
  const address = privateKeyToAccount(privateKey).address;
  const privateKeySealed = await sealText(ctx.keyring, privateKey, walletContext({ id, address, userId }));
  return { id, userId, address, privateKeySealed, keyContextVersion: CURRENT_KEY_CONTEXT };
}

/**
 * Re-seals every wallet key of an older context version for the current one (run at start, idempotent, row by
 * row, each update conditional on the sealed value it read). Returns how many it upgraded.
 */
export async function upgradeWalletKeyContexts(ctx: { keyring: Keyring; database: DatabaseHandle; log: Logger }): Promise<number> {
  const db = ctx.database.db;
  const old = await db.select().from(wallets).where(sql`${wallets.keyContextVersion} < ${CURRENT_KEY_CONTEXT}`);
  let upgraded = 0;
  for (const wallet of old) {
    const privateKey = await unsealText(ctx.keyring, wallet.privateKeySealed, walletContext(wallet));
    if (privateKeyToAccount(privateKey as Hex).address !== wallet.address) throw new Error(`wallet ${wallet.id}: key does not match address`);
    const resealed = await sealText(ctx.keyring, privateKey, walletContext({ ...wallet, keyContextVersion: CURRENT_KEY_CONTEXT }));
    const result = await db
      .update(wallets)
      .set({ privateKeySealed: resealed, keyContextVersion: CURRENT_KEY_CONTEXT })
      .where(and(eq(wallets.id, wallet.id), eq(wallets.privateKeySealed, wallet.privateKeySealed)));
    upgraded += result.rowsAffected;
  }
  if (upgraded) ctx.log.info("wallet keys re-sealed for their owners", { upgraded });
  return upgraded;
}

const walletByUser = preparedQuery((db) => db.select().from(wallets).where(eq(wallets.userId, sql.placeholder("userId"))).limit(1).prepare());

export async function walletOfUser(db: Database, userId: number): Promise<Wallet | undefined> {
  return walletByUser(db).get({ userId });
}

const walletByGitHubUser = preparedQuery((db) =>
  db.select({ address: wallets.address }).from(users).innerJoin(wallets, eq(wallets.userId, users.id)).where(eq(users.githubId, sql.placeholder("githubId"))).limit(1).prepare(),
);

/** The wallet address of the Issuepool user with this GitHub id, if they have registered one. */
export async function walletOfGitHubUser(db: Database, githubId: number): Promise<Address | undefined> {
  return (await walletByGitHubUser(db).get({ githubId }))?.address as Address | undefined;
}

/**
 * Runs `use` with a viem account for the wallet's key. The key is checked
 * against the stored address, so a wrongly sealed key can never sign.
 */
export async function withWalletAccount<T>(
  ctx: { keyring: Keyring },
  wallet: Wallet,
  use: (account: PrivateKeyAccount) => Promise<T>,
): Promise<T> {
  let account: PrivateKeyAccount;
  try {
    account = privateKeyToAccount((await unsealText(ctx.keyring, wallet.privateKeySealed, walletContext(wallet))) as Hex);
  } catch (err) {
    throw new WalletKeyError(`wallet ${wallet.id}: ${(err as Error).message}`, { cause: err });
  }
  if (account.address !== wallet.address) throw new WalletKeyError(`wallet ${wallet.id}: key does not match address`);
  return use(account);
}
