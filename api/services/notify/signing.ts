import { decodeBase64, encodeBase64 } from "@oslojs/encoding";

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of random
 * bytes; a message carries `webhook-id`, `webhook-timestamp` (seconds) and `webhook-signature:
 * v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. Receivers verify with any implementation of the
 * specification (the `standardwebhooks` npm package is its reference; docs/webhooks.md).
 */
export const SECRET_PREFIX = "whsec_";

export function newEndpointSecret(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return `${SECRET_PREFIX}${encodeBase64(bytes)}`;
}

export async function signatureOf(secret: string, messageId: string, timestampSeconds: number, body: string): Promise<string> {
  const key = decodeBase64(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret);
  const cryptoKey = await crypto.subtle.importKey("raw", key as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(`${messageId}.${timestampSeconds}.${body}`));
  return `v1,${encodeBase64(new Uint8Array(mac))}`;
}

/** The three headers of a signed message, stamped now: every attempt signs afresh (receivers refuse old timestamps). */
export async function signedHeaders(secret: string, messageId: string, body: string, nowMs: number): Promise<Record<string, string>> {
  const timestamp = Math.floor(nowMs / 1000);
  return {
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureOf(secret, messageId, timestamp, body),
  };
}
