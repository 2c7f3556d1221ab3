import { privateKeyToAccount } from "viem/accounts";

/**
 * The browser's half of the key export (spec section 7; docs/wallet.md):
 * a P-256 key pair made for this one export, whose private half never leaves
 * WebCrypto (non-extractable); its public half goes to the server as the raw
 * uncompressed point (65 bytes), base64. The answer is decrypted with
 * AES-256-GCM under SHA-256 of the ECDH shared secret.
 */
export interface EncryptedExport {
  cipherText: string;
  iv: string;
  serverPublicKey: string;
}

export interface EphemeralKey {
  /** Raw uncompressed P-256 point, base64: what the server expects as `ephemeralPublicKey`. */
  publicKey: string;
  decrypt(data: EncryptedExport): Promise<string>;
}

const P256 = { name: "ECDH", namedCurve: "P-256" } as const;

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export async function createEphemeralKey(): Promise<EphemeralKey> {
  const pair = await crypto.subtle.generateKey(P256, false, ["deriveBits"]);
  const publicKey = toBase64(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)));
  return {
    publicKey,
    async decrypt(data) {
      const serverKey = await crypto.subtle.importKey("raw", fromBase64(data.serverPublicKey), P256, false, []);
      const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: serverKey }, pair.privateKey, 256));
      const keyBytes = new Uint8Array(await crypto.subtle.digest("SHA-256", shared));
      try {
        const aesKey = await crypto.subtle.importKey("raw", keyBytes, "AES-GCM", false, ["decrypt"]);
        const plain = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(data.iv) }, aesKey, fromBase64(data.cipherText)));
        const text = new TextDecoder().decode(plain);
        plain.fill(0);
        return text;
      } finally {
        shared.fill(0);
        keyBytes.fill(0);
      }
    },
  };
}

/** True when the response carries the three strings the decryption needs ('Invalid response from server' otherwise). */
export function isEncryptedExport(value: unknown): value is EncryptedExport {
  const v = value as Partial<EncryptedExport> | null;
  return Boolean(v) && typeof v!.cipherText === "string" && typeof v!.iv === "string" && typeof v!.serverPublicKey === "string";
}

/** The xdc… address a decrypted key controls, or null when it is not a private key. */
export function addressOfKey(privateKey: string): string | null {
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) return null;
  try {
    return `xdc${privateKeyToAccount(privateKey as `0x${string}`).address.slice(2)}`;
  } catch {
    return null;
  }
}
