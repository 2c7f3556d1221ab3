import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { Keyring } from "./keyring.ts";

/**
 * Envelope encryption for secrets at rest (wallet private keys, GitHub
 * tokens): each secret gets its own random AES-256-GCM data key; the data
 * key is wrapped (AES-256-GCM) by the active master key. Both layers bind
 * `context` as additional data (e.g. wallet id + address), so a sealed value
 * copied to another row does not decrypt. Stored as one string:
 *
 *   v1.<keyId>.<wrapIv>.<wrappedKey>.<iv>.<ciphertext>   (base64url parts)
 */
export class SealedSecretError extends Error {}

const VERSION = "v1";

export async function seal(keyring: Keyring, plaintext: Uint8Array, context: string): Promise<string> {
  const aad = new TextEncoder().encode(context);
  const dataKeyBytes = crypto.getRandomValues(new Uint8Array(32));
  try {
    const dataKey = await crypto.subtle.importKey("raw", dataKeyBytes, "AES-GCM", false, ["encrypt"]);
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ciphertext = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, dataKey, plaintext as Uint8Array<ArrayBuffer>);
    const wrapIv = crypto.getRandomValues(new Uint8Array(12));
    const wrapped = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: wrapIv, additionalData: wrapContext(keyring.active.id, aad) },
      keyring.active.key,
      dataKeyBytes,
    );
    return [VERSION, keyring.active.id, b64(wrapIv), b64(new Uint8Array(wrapped)), b64(iv), b64(new Uint8Array(ciphertext))].join(".");
  } finally {
    dataKeyBytes.fill(0);
  }
}

export async function unseal(keyring: Keyring, sealed: string, context: string): Promise<Uint8Array> {
  const envelope = parseSealed(keyring, sealed);
  const aad = new TextEncoder().encode(context);
  let dataKeyBytes: Uint8Array | undefined;
  try {
    dataKeyBytes = await unwrapDataKey(envelope, aad);
    const dataKey = await crypto.subtle.importKey("raw", dataKeyBytes as Uint8Array<ArrayBuffer>, "AES-GCM", false, ["decrypt"]);
    return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(envelope.iv), additionalData: aad }, dataKey, unb64(envelope.ciphertext)));
  } catch (err) {
    if (err instanceof SealedSecretError) throw err;
    throw new SealedSecretError("the secret could not be decrypted (wrong key or context, or tampered)");
  } finally {
    dataKeyBytes?.fill(0);
  }
}

/**
 * Re-wraps the data key under the active master key (key rotation). The
 * secret's own ciphertext is kept; only the wrapped data key changes.
 */
export async function rewrap(keyring: Keyring, sealed: string, context: string): Promise<string> {
  const envelope = parseSealed(keyring, sealed);
  if (envelope.keyId === keyring.active.id) return sealed;
  const aad = new TextEncoder().encode(context);
  let dataKeyBytes: Uint8Array | undefined;
  try {
    dataKeyBytes = await unwrapDataKey(envelope, aad);
    const newWrapIv = crypto.getRandomValues(new Uint8Array(12));
    const rewrapped = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv: newWrapIv, additionalData: wrapContext(keyring.active.id, aad) },
      keyring.active.key,
      dataKeyBytes as Uint8Array<ArrayBuffer>,
    );
    return [VERSION, keyring.active.id, b64(newWrapIv), b64(new Uint8Array(rewrapped)), envelope.iv, envelope.ciphertext].join(".");
  } catch (err) {
    if (err instanceof SealedSecretError) throw err;
    throw new SealedSecretError("the data key could not be unwrapped (wrong key or context, or tampered)");
  } finally {
    dataKeyBytes?.fill(0);
  }
}

export function sealedKeyId(sealed: string): string | undefined {
  return sealed.split(".")[1];
}

export async function sealText(keyring: Keyring, text: string, context: string): Promise<string> {
  return seal(keyring, new TextEncoder().encode(text), context);
}

export async function unsealText(keyring: Keyring, sealed: string, context: string): Promise<string> {
  return new TextDecoder().decode(await unseal(keyring, sealed, context));
}

interface Envelope {
  keyId: string;
  master: CryptoKey;
  wrapIv: string;
  wrapped: string;
  iv: string;
  ciphertext: string;
}

/** The parts of a sealed string, and the master key that wrapped it (which must be configured). */
function parseSealed(keyring: Keyring, sealed: string): Envelope {
  const parts = sealed.split(".");
  if (parts.length !== 6 || parts[0] !== VERSION) throw new SealedSecretError("not a sealed secret");
  const [, keyId, wrapIv, wrapped, iv, ciphertext] = parts as [string, string, string, string, string, string];
  const master = keyring.byId.get(keyId);
  if (!master) throw new SealedSecretError(`master key "${keyId}" is not configured`);
  return { keyId, master: master.key, wrapIv, wrapped, iv, ciphertext };
}

/** The secret's own data key (the caller wipes it when done). */
async function unwrapDataKey(envelope: Envelope, aad: Uint8Array): Promise<Uint8Array> {
  const { keyId, master, wrapIv, wrapped } = envelope;
  return new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(wrapIv), additionalData: wrapContext(keyId, aad) }, master, unb64(wrapped)));
}

function wrapContext(keyId: string, aad: Uint8Array): Uint8Array<ArrayBuffer> {
  const prefix = new TextEncoder().encode(`wrap:${keyId}:`);
  const out = new Uint8Array(prefix.byteLength + aad.byteLength);
  out.set(prefix);
  out.set(aad, prefix.byteLength);
  return out;
}

const b64 = (bytes: Uint8Array) => encodeBase64urlNoPadding(bytes);
const unb64 = (text: string) => decodeBase64urlIgnorePadding(text) as Uint8Array<ArrayBuffer>;
