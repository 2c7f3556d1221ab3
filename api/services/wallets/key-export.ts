import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import type { User, Wallet } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { unsealText } from "../../crypto/envelope.ts";
import { exportCodeMail, keyExportedMail } from "../../mail/templates.ts";
import { audit } from "../audit.ts";
import { walletContext, walletOfUser } from "./custodial.ts";
import { CODE_TTL_MS, consumeCode, issueCode, maskEmail, otpMailFailed, retireCode } from "./one-time-codes.ts";
import { networkConfig, type NetworkConfig } from "./network-config.ts";

/**
 * Exporting a custodial wallet's private key (spec sections 4 and 7):
 *
 * 1. export-request e-mails a one-time code (one-time-codes.ts).
 * 2. export-data takes that code and the browser's ephemeral P-256 public key
 *    (raw uncompressed point, 65 bytes, base64). With a fresh server key pair
 *    per export it derives the ECDH shared secret; SHA-256 of that secret is
 *    the AES-256-GCM key; the key's 0x hex text is encrypted under a random
 *    12-byte IV. The answer carries the ciphertext (with the GCM tag), the IV
 *    and the server's public key, all base64, so only the browser that made
 *    the ephemeral key can read it: not a proxy, not a log, not a cache.
 *
 * The key is decrypted from its envelope only here, for this one call. Byte
 * buffers holding secrets are zeroed afterwards; JavaScript strings cannot be,
 * so the key's text lives no longer than this function.
 */
export const EXPORT_KEY_ALGORITHM = "ECDH-P256/SHA-256/AES-256-GCM";

export interface ExportData {
  cipherText: string;
  iv: string;
  serverPublicKey: string;
  networkConfig: NetworkConfig;
  /** The wallet whose key this is, so the browser can check what it decrypted. */
  address: string;
  algorithm: typeof EXPORT_KEY_ALGORITHM;
}

const noWallet = () =>
  new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });

async function requireWallet(ctx: DatabaseDeps, user: User): Promise<Wallet> {
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) throw noWallet();
  return wallet;
}

function requireEmail(user: User): string {
  if (!user.email) {
    throw new DomainError({ code: ErrorCode.EMAIL_REQUIRED, error: "No e-mail address", message: "Add an e-mail address to your profile to receive the code." });
  }
  return user.email;
}

/** POST /api/wallet/export-request */
export async function requestKeyExportCode(ctx: Pick<AppContext, "database" | "appSecret" | "mailer">, input: { user: User; ip?: string }): Promise<{ success: true; message: string; expiresAt: string }> {
  const wallet = await requireWallet(ctx, input.user);
  const email = requireEmail(input.user);
  const issued = await issueCode(ctx, { userId: input.user.id, purpose: "export", subject: wallet.address });
  try {
    await ctx.mailer.send(exportCodeMail({ to: email, code: issued.code, address: toXdcAddress(wallet.address), validMinutes: CODE_TTL_MS / 60_000 }));
  } catch (err) {
    await retireCode(ctx.database.db, issued.id);
    throw otpMailFailed(err);
  }
  await audit(ctx.database.db, { userId: input.user.id, action: "wallet.export_code_sent", ip: input.ip, detail: { address: wallet.address } });
  return { success: true, message: `We sent a 6-digit code to ${maskEmail(email)}.`, expiresAt: issued.expiresAt.toISOString() };
}

const invalidPublicKey = () =>
  new DomainError({
    code: ErrorCode.INVALID_PUBLIC_KEY,
    error: "Invalid public key",
    message: "ephemeralPublicKey must be a P-256 public key: the raw uncompressed point (65 bytes), base64-encoded.",
  });

/** The browser's ephemeral key, checked before the code is spent (a bad key must not cost the user their code). */
export async function importEphemeralPublicKey(base64: string): Promise<CryptoKey> {
  let raw: Uint8Array;
  try {
    raw = decodeBase64(base64.trim());
  } catch {
    throw invalidPublicKey();
  }
  if (raw.byteLength !== 65 || raw[0] !== 0x04) throw invalidPublicKey();
  try {
    // WebCrypto refuses points that are not on the curve (no invalid-curve attacks).
    return await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "ECDH", namedCurve: "P-256" }, false, []);
  } catch {
    throw invalidPublicKey();
  }
}

/** POST /api/wallet/export-data */
export async function exportWalletKey(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "appSecret" | "chain" | "mailer">,
  input: { user: User; ephemeralPublicKey: string; otp: string; ip?: string },
): Promise<ExportData> {
  const wallet = await requireWallet(ctx, input.user);
  const clientKey = await importEphemeralPublicKey(input.ephemeralPublicKey);
  await consumeCode(ctx, { userId: input.user.id, purpose: "export", subject: wallet.address, code: input.otp });

  const privateKey = (await unsealText(ctx.keyring, wallet.privateKeySealed, walletContext(wallet))) as Hex;
  if (privateKeyToAccount(privateKey).address !== wallet.address) throw new Error(`wallet ${wallet.id}: key does not match address`);
  const sealed = await encryptForBrowser(clientKey, privateKey);

  const at = new Date();
  await audit(ctx.database.db, {
    userId: input.user.id,
    action: "wallet.key_exported",
    ip: input.ip,
    detail: { address: wallet.address, algorithm: EXPORT_KEY_ALGORITHM },
  });
  try {
    await ctx.mailer.send(keyExportedMail({ to: requireEmail(input.user), address: toXdcAddress(wallet.address), at, ip: input.ip }));
  } catch (err) {
    // The key is already on its way to the user's browser: the notice failing must not hide it or make them retry.
    ctx.log.warn("key export notice e-mail failed", { userId: input.user.id, err: (err as Error).message });
    await audit(ctx.database.db, { userId: input.user.id, action: "wallet.key_export_notice_failed", ip: input.ip });
  }
  return { ...sealed, networkConfig: networkConfig(ctx), address: toXdcAddress(wallet.address), algorithm: EXPORT_KEY_ALGORITHM };
}

/**
 * ECDH with a fresh server key, SHA-256 of the shared secret as the AES-GCM
 * key. Exported for the tests, which decrypt exactly as the browser does.
 */
export async function encryptForBrowser(clientKey: CryptoKey, secret: string): Promise<{ cipherText: string; iv: string; serverPublicKey: string }> {
  const server = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: clientKey }, server.privateKey, 256));
  const keyBytes = new Uint8Array(await crypto.subtle.digest("SHA-256", shared));
  const plaintext = new TextEncoder().encode(secret);
  try {
    const aesKey = await crypto.subtle.importKey("raw", keyBytes, "AES-GCM", false, ["encrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const cipherText = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, aesKey, plaintext));
    const serverPublicKey = new Uint8Array(await crypto.subtle.exportKey("raw", server.publicKey));
    return { cipherText: encodeBase64(cipherText), iv: encodeBase64(iv), serverPublicKey: encodeBase64(serverPublicKey) };
  } finally {
    shared.fill(0);
    keyBytes.fill(0);
    plaintext.fill(0);
  }
}
