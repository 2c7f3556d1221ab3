import { decodeBase64, decodeBase64urlIgnorePadding } from "@oslojs/encoding";

/**
 * Master keys that wrap the per-record data keys. The first key is the active
 * one (new secrets are wrapped with it); the others only unwrap, so keys can
 * be rotated without re-encrypting data (scripts/rotate-keys.ts rewraps).
 *
 * Configured as ENCRYPTION_KEYS="id2:base64key,id1:base64key", 32-byte keys.
 */
export interface MasterKey {
  id: string;
  key: CryptoKey;
}

export interface Keyring {
  active: MasterKey;
  byId: Map<string, MasterKey>;
}

export class KeyringError extends Error {}

export function parseKeyringSpec(spec: string): { id: string; bytes: Uint8Array }[] {
  const entries = spec
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const separator = part.indexOf(":");
      if (separator <= 0) throw new KeyringError("each key must be written as id:base64key");
      const id = part.slice(0, separator);
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) throw new KeyringError(`key id "${id}" must be 1-32 letters, digits, - or _`);
      const bytes = decodeKey(part.slice(separator + 1));
      if (bytes.byteLength !== 32) throw new KeyringError(`key "${id}" must be 32 bytes (got ${bytes.byteLength})`);
      return { id, bytes };
    });
  if (entries.length === 0) throw new KeyringError("at least one key is required");
  const ids = new Set(entries.map((e) => e.id));
  if (ids.size !== entries.length) throw new KeyringError("key ids must be unique");
  return entries;
}

function decodeKey(text: string): Uint8Array {
  try {
    return /[-_]/.test(text) ? decodeBase64urlIgnorePadding(text) : decodeBase64(text);
  } catch {
    throw new KeyringError("a key is not valid base64");
  }
}

export async function createKeyring(spec: string): Promise<Keyring> {
  const entries = parseKeyringSpec(spec);
  const keys = await Promise.all(
    entries.map(async ({ id, bytes }) => ({
      id,
      key: await crypto.subtle.importKey("raw", bytes as Uint8Array<ArrayBuffer>, "AES-GCM", false, ["encrypt", "decrypt"]),
    })),
  );
  return { active: keys[0]!, byId: new Map(keys.map((k) => [k.id, k])) };
}
