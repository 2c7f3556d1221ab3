import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { dirname, join } from "node:path";
import { encodeBase64 } from "@oslojs/encoding";

/**
 * Secrets for the embedded default and for tests: generated once, kept in
 * DATA_DIR/dev-secrets.json (mode 0600) so a restart keeps sessions,
 * wallets and the GitHub App identity. Production sets its own.
 */
export interface DevSecrets {
  APP_SECRET: string;
  ENCRYPTION_KEYS: string;
  GITHUB_CLIENT_ID: string;
  GITHUB_CLIENT_SECRET: string;
  GITHUB_APP_ID: string;
  GITHUB_APP_SLUG: string;
  GITHUB_APP_PRIVATE_KEY: string;
  /** Given to the GitHub emulator so it can verify the app's JWTs. */
  GITHUB_APP_PUBLIC_KEY: string;
  GITHUB_WEBHOOK_SECRET: string;
  ONRAMP_APP_ID: string;
  ONRAMP_APP_SECRET: string;
}

const random = (bytes: number) => encodeBase64(crypto.getRandomValues(new Uint8Array(bytes)));

function pem(label: string, der: ArrayBuffer): string {
  const body = encodeBase64(new Uint8Array(der)).replace(/(.{64})/g, "$1\n").trim();
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----`;
}

export async function generateDevSecrets(): Promise<DevSecrets> {
  const keys = await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  return {
    APP_SECRET: random(32),
    ENCRYPTION_KEYS: `dev1:${random(32)}`,
    GITHUB_CLIENT_ID: `Iv1.${Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString("hex")}`,
    GITHUB_CLIENT_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString("hex"),
    GITHUB_APP_ID: "424242",
    GITHUB_APP_SLUG: "issuepool-dev",
    GITHUB_APP_PRIVATE_KEY: pem("PRIVATE KEY", await crypto.subtle.exportKey("pkcs8", keys.privateKey)),
    GITHUB_APP_PUBLIC_KEY: pem("PUBLIC KEY", await crypto.subtle.exportKey("spki", keys.publicKey)),
    GITHUB_WEBHOOK_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex"),
    ONRAMP_APP_ID: "issuepool-dev",
    ONRAMP_APP_SECRET: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex"),
  };
}

export async function loadOrCreateDevSecrets(dataDir: string): Promise<DevSecrets> {
  const file = join(dataDir, "dev-secrets.json");
  if (existsSync(file)) {
    // Secrets added in later versions are generated and kept alongside the old ones.
    const stored = JSON.parse(readFileSync(file, "utf8")) as Partial<DevSecrets>;
    const missing = Object.keys(await generateDevSecrets()).some((k) => !(k in stored));
    if (!missing) return stored as DevSecrets;
    const merged = { ...(await generateDevSecrets()), ...stored };
    writeFileSync(file, JSON.stringify(merged, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
    return merged;
  }
  const secrets = await generateDevSecrets();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Created 0600, not chmod-ed after: no moment in which another user can read it.
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600, flag: "wx" });
  return secrets;
}

let testSecrets: Promise<DevSecrets> | undefined;
/** One set per test process: RSA key generation is slow enough to share. */
export function sharedTestSecrets(): Promise<DevSecrets> {
  return (testSecrets ??= generateDevSecrets());
}
