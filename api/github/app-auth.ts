import { decodeBase64, encodeBase64urlNoPadding } from "@oslojs/encoding";
import type { AppContext } from "../context.ts";
import { createGitHubClient, type GitHubClient } from "./client.ts";

/**
 * GitHub App authentication: an RS256 JWT signed with the app's private key
 * (GITHUB_APP_PRIVATE_KEY) authenticates as the app; the app exchanges it for
 * short-lived installation tokens, which act on the repositories of one
 * installation (the bot's comments, reading repositories without a user).
 */
let signingKey: { pem: string; key: Promise<CryptoKey> } | undefined;

function importKey(pem: string): Promise<CryptoKey> {
  if (signingKey?.pem === pem) return signingKey.key;
  const body = pem.replace(/-----(BEGIN|END) (RSA )?PRIVATE KEY-----/g, "").replace(/\s+/g, "");
  if (/BEGIN RSA PRIVATE KEY/.test(pem)) {
    throw new Error("GITHUB_APP_PRIVATE_KEY is PKCS#1 (BEGIN RSA PRIVATE KEY): convert it with `openssl pkcs8 -topk8 -nocrypt -in key.pem`");
  }
  const key = crypto.subtle.importKey("pkcs8", decodeBase64(body) as Uint8Array<ArrayBuffer>, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  signingKey = { pem, key };
  return key;
}

const b64json = (value: unknown) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(value)));

/** A JWT for the app itself: issued a minute in the past (clock skew), valid nine minutes. */
export async function appJwt(ctx: Pick<AppContext, "env">, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000) - 60;
  const input = `${b64json({ alg: "RS256", typ: "JWT" })}.${b64json({ iat, exp: iat + 9 * 60, iss: String(ctx.env.GITHUB_APP_ID) })}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", await importKey(ctx.env.GITHUB_APP_PRIVATE_KEY), new TextEncoder().encode(input));
  return `${input}.${encodeBase64urlNoPadding(new Uint8Array(signature))}`;
}

export async function appClient(ctx: Pick<AppContext, "env">): Promise<GitHubClient> {
  return createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await appJwt(ctx) });
}

/**
 * Installation tokens by GitHub and installation: an installation id is only
 * unique within one GitHub. (Keyed by the id alone, a process that talks to
 * two GitHubs, as the test suite does with one emulator per stack, sent one
 * GitHub's token to the other: "Bad credentials", depending on test order.)
 */
const tokens = new Map<string, { token: string; expiresAt: number }>();
const tokenKey = (ctx: Pick<AppContext, "env">, installationId: number) => `${ctx.env.GITHUB_API_URL}#${installationId}`;
/** Installation tokens live an hour; a new one is fetched five minutes before the old one ends. */
const RENEW_BEFORE_MS = 5 * 60 * 1000;

export async function installationToken(ctx: Pick<AppContext, "env">, installationId: number): Promise<string> {
  const cached = tokens.get(tokenKey(ctx, installationId));
  if (cached && cached.expiresAt - RENEW_BEFORE_MS > Date.now()) return cached.token;
  const { token, expires_at } = await (await appClient(ctx)).post<{ token: string; expires_at: string }>(
    `/app/installations/${installationId}/access_tokens`,
    {},
  );
  tokens.set(tokenKey(ctx, installationId), { token, expiresAt: Date.parse(expires_at) });
  return token;
}

export async function installationClient(ctx: Pick<AppContext, "env">, installationId: number): Promise<GitHubClient> {
  return createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await installationToken(ctx, installationId) });
}

/** Forgets a token GitHub refused (installation removed or suspended). */
export function forgetInstallationToken(ctx: Pick<AppContext, "env">, installationId: number): void {
  tokens.delete(tokenKey(ctx, installationId));
}

/** Where a maintainer installs the app (GitHub's install page; the emulator's in development). */
export function appInstallUrl(ctx: Pick<AppContext, "env">, state?: string): string {
  const url = new URL(`${ctx.env.GITHUB_URL}/apps/${ctx.env.GITHUB_APP_SLUG}/installations/new`);
  if (state) url.searchParams.set("state", state);
  return url.toString();
}
