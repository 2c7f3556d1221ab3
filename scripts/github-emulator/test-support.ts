/**
 * What the emulator's tests share: an app key pair made with Web Crypto, a
 * webhook receiver that keeps raw bodies, an emulator wired to both, and
 * small HTTP helpers that behave like a browser or an API client would.
 */
import { encodeBase64urlNoPadding } from "@oslojs/encoding";
import { sha256 } from "@oslojs/crypto/sha2";
import { startGitHubEmulator, type GitHubEmulator, type GitHubEmulatorOptions } from "./index.ts";

export const APP_ID = 424242;
export const APP_SLUG = "issuepool-test";
export const OAUTH = { clientId: "Iv1.test-oauth", clientSecret: "oauth-secret" };
export const APP_CLIENT = { clientId: "Iv23.test-app", clientSecret: "app-secret" };
export const WEBHOOK_SECRET = "webhook-secret";
export const PLATFORM = "http://127.0.0.1:1"; // never contacted: only its origin matters (callback and setup URLs)

function pem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der).toString("base64").replace(/(.{64})/g, "$1\n");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

export interface AppKeys {
  privateKey: CryptoKey;
  publicKeyPem: string;
}

export async function makeAppKeys(): Promise<AppKeys> {
  const pair = await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"]);
  return { privateKey: pair.privateKey, publicKeyPem: pem(await crypto.subtle.exportKey("spki", pair.publicKey), "PUBLIC KEY") };
}

const json64 = (value: unknown) => encodeBase64urlNoPadding(new TextEncoder().encode(JSON.stringify(value)));

/** An RS256 JWT as a GitHub App makes one (iat a little in the past, exp within ten minutes). */
export async function signJwt(privateKey: CryptoKey, claims: Record<string, unknown>): Promise<string> {
  const input = `${json64({ alg: "RS256", typ: "JWT" })}.${json64(claims)}`;
  const signature = await crypto.subtle.sign("RSASSA-PKCS1-v1_5", privateKey, new TextEncoder().encode(input));
  return `${input}.${encodeBase64urlNoPadding(new Uint8Array(signature))}`;
}

export function appClaims(nowMs: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(nowMs / 1000);
  return { iat: now - 30, exp: now + 540, iss: APP_ID, ...overrides };
}

export interface Received {
  headers: Headers;
  body: string;
}

/** A tiny webhook endpoint: records every request; answers with the next queued status (default 200). */
function startReceiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      received.push({ headers: req.headers, body: await req.text() });
      const status = statuses.shift() ?? 200;
      return new Response(status >= 500 ? "receiver failed" : "ok", { status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/webhooks`, received, statuses, stop: () => server.stop(true) };
}

export interface TestWorld {
  emulator: GitHubEmulator;
  receiver: ReturnType<typeof startReceiver>;
  keys: AppKeys;
  clock: { now: number };
  stop(): Promise<void>;
}

let sharedKeys: Promise<AppKeys> | undefined;

/** An emulator with a fresh world, a receiver for its webhooks and a settable clock. */
export async function startTestWorld(options: Partial<GitHubEmulatorOptions> = {}): Promise<TestWorld> {
  const keys = await (sharedKeys ??= makeAppKeys());
  const receiver = startReceiver();
  const clock = { now: Date.now() };
  const emulator = await startGitHubEmulator({
    oauth: OAUTH,
    app: { id: APP_ID, slug: APP_SLUG, ...APP_CLIENT, publicKeyPem: keys.publicKeyPem, setupUrl: `${PLATFORM}/github/setup` },
    webhook: { url: receiver.url, secret: WEBHOOK_SECRET },
    now: () => clock.now,
    ...options,
  });
  return {
    emulator,
    receiver,
    keys,
    clock,
    async stop() {
      await emulator.stop();
      await receiver.stop();
    },
  };
}

/** A REST call; `token` becomes `Authorization: Bearer <token>`. */
export async function api(emulator: GitHubEmulator, path: string, init: { token?: string; method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/vnd.github+json" };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${emulator.apiUrl}${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
}

export function pkcePair(verifier = "a-very-long-code-verifier-with-enough-entropy-0123456789") {
  return { verifier, challenge: encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier))) };
}

/** Posts a form the way a browser does, without following the redirect. */
export function postForm(url: string, fields: Record<string, string | string[]>, cookie?: string): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const item of [v].flat()) body.append(k, item);
  return fetch(url, { method: "POST", body, redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
}

/** Picks `login` on the authorize page and returns the redirect target (with code and state). */
export async function authorizeAs(emulator: GitHubEmulator, login: string, params: Record<string, string>): Promise<{ location: URL; cookie: string }> {
  const res = await postForm(`${emulator.webUrl}/login/oauth/authorize`, { ...params, login });
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}`);
  return { location: new URL(res.headers.get("location")!), cookie: (res.headers.get("set-cookie") ?? "").split(";")[0]! };
}

export async function exchangeCode(emulator: GitHubEmulator, fields: Record<string, string>): Promise<Record<string, string>> {
  const res = await fetch(`${emulator.webUrl}/login/oauth/access_token`, { method: "POST", headers: { Accept: "application/json" }, body: new URLSearchParams(fields) });
  return (await res.json()) as Record<string, string>;
}

/** The whole web flow: a user token for `login`, through the OAuth app (gho_, with `scope`) or the GitHub App's client (ghu_). */
export async function userToken(emulator: GitHubEmulator, login: string, client: "oauth" | "app" = "oauth", scope = "repo read:user user:email"): Promise<string> {
  const { clientId, clientSecret } = client === "oauth" ? OAUTH : APP_CLIENT;
  const redirect = `${PLATFORM}/auth/callback`;
  const { location } = await authorizeAs(emulator, login, { client_id: clientId, redirect_uri: redirect, state: "s", scope });
  const result = await exchangeCode(emulator, { client_id: clientId, client_secret: clientSecret, code: location.searchParams.get("code")!, redirect_uri: redirect });
  if (!result.access_token) throw new Error(`no token: ${JSON.stringify(result)}`);
  return result.access_token;
}

/** An installation access token for `installationId`, via an app JWT. */
export async function installationToken(world: TestWorld, installationId: number): Promise<string> {
  const jwt = await signJwt(world.keys.privateKey, appClaims(world.clock.now));
  const res = await api(world.emulator, `/app/installations/${installationId}/access_tokens`, { token: jwt, method: "POST" });
  return ((await res.json()) as { token: string }).token;
}
