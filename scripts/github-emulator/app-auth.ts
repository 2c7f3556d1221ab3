/**
 * Who is calling the REST API: nobody, a user (OAuth or GitHub App user
 * token), an installation (installation access token) or the app itself
 * (an RS256 JWT signed with the app's private key, checked the way GitHub
 * checks it, with GitHub's error messages).
 */
import { createPublicKey } from "node:crypto";
import { decodeBase64urlIgnorePadding } from "@oslojs/encoding";
import type { MiddlewareHandler } from "hono";
import type { Caller } from "./access.ts";
import { apiError, type ApiEnv } from "./http.ts";
import type { TokenRecord } from "./state.ts";
import type { World } from "./world.ts";

export const JWT_ERRORS = {
  decode: "A JSON web token could not be decoded",
  expired: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
  tooFar: "'Expiration time' claim ('exp') is too far in the future",
  issuedAt: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued",
  issuer: "'Issuer' claim ('iss') must be an Integer",
} as const;

/** GitHub allows a JWT to live at most ten minutes, and tolerates a minute of clock drift. */
const MAX_JWT_LIFETIME_S = 600;
const CLOCK_SKEW_S = 60;
const INSTALLATION_TOKEN_LIFETIME_MS = 3600 * 1000;

/** node:crypto reads every PEM flavour (SPKI, PKCS#1, certificate); Web Crypto then does the verifying. */
export async function importAppKey(publicKeyPem: string): Promise<CryptoKey> {
  const spki = createPublicKey(publicKeyPem).export({ type: "spki", format: "der" });
  return crypto.subtle.importKey("spki", spki, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["verify"]);
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(decodeBase64urlIgnorePadding(part)));
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Undefined when the JWT authenticates the app; otherwise GitHub's message for what is wrong with it. */
async function verifyAppJwt(jwt: string, key: CryptoKey, appId: number, nowS: number): Promise<string | undefined> {
  const [head, body, signature] = jwt.split(".");
  if (head === undefined || body === undefined || signature === undefined) return JWT_ERRORS.decode;
  const header = decodeJson(head);
  const claims = decodeJson(body);
  if (!header || !claims || header.alg !== "RS256") return JWT_ERRORS.decode;
  let valid = false;
  try {
    const bytes = decodeBase64urlIgnorePadding(signature) as Uint8Array<ArrayBuffer>;
    valid = await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, bytes, new TextEncoder().encode(`${head}.${body}`));
  } catch {
    return JWT_ERRORS.decode;
  }
  if (!valid) return JWT_ERRORS.decode;
  const iss = typeof claims.iss === "string" ? Number(claims.iss) : claims.iss;
  if (typeof iss !== "number" || !Number.isInteger(iss)) return JWT_ERRORS.issuer;
  if (iss !== appId) return JWT_ERRORS.decode;
  const { iat, exp } = claims;
  if (typeof iat !== "number" || !Number.isInteger(iat) || iat > nowS + CLOCK_SKEW_S) return JWT_ERRORS.issuedAt;
  if (typeof exp !== "number" || exp <= nowS - CLOCK_SKEW_S) return JWT_ERRORS.expired;
  if (exp - iat > MAX_JWT_LIFETIME_S || exp > nowS + MAX_JWT_LIFETIME_S + CLOCK_SKEW_S) return JWT_ERRORS.tooFar;
  return undefined;
}

const TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** GitHub's token format: a type prefix (gho_, ghu_, ghs_) and 36 base62 characters. */
export function randomToken(prefix: string): string {
  return prefix + Array.from(crypto.getRandomValues(new Uint8Array(36)), (b) => TOKEN_ALPHABET[b % TOKEN_ALPHABET.length]).join("");
}

export function mintInstallationToken(world: World, installationId: number): TokenRecord {
  const record: TokenRecord = {
    token: randomToken("ghs_"),
    kind: "installation",
    installationId,
    scope: "",
    expiresAt: world.iso(world.now() + INSTALLATION_TOKEN_LIFETIME_MS),
  };
  world.state.tokens.push(record);
  world.save();
  return record;
}

/** Resolves a stored token to its caller; undefined when unknown, expired, or its user or installation is gone. */
function callerForToken(world: World, value: string): Caller | undefined {
  const token = world.state.tokens.find((t) => t.token === value);
  if (!token || (token.expiresAt && Date.parse(token.expiresAt) <= world.now())) return undefined;
  if (token.kind === "installation") {
    const installation = world.state.installations.find((i) => i.id === token.installationId);
    return installation ? { kind: "installation", installation, token } : undefined;
  }
  const user = token.login ? world.user(token.login) : undefined;
  if (!user) return undefined;
  return { kind: "user", login: user.login, token, viaApp: token.kind === "user-app", scopes: token.scope.split(",").filter(Boolean) };
}

/** Sets `caller`; a bad token or JWT is a 401, as on GitHub (a missing one is simply anonymous). */
export function authenticate(world: World, appKey: Promise<CryptoKey>): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization")?.trim();
    if (!header) {
      c.set("caller", { kind: "anonymous", ip: "127.0.0.1" });
      return next();
    }
    const [scheme = "", value = ""] = header.split(/\s+/, 2);
    if (/^bearer$/i.test(scheme) && value.split(".").length === 3) {
      const problem = await verifyAppJwt(value, await appKey, world.config.app.id, Math.floor(world.now() / 1000));
      if (problem) return apiError(c, 401, problem);
      c.set("caller", { kind: "app" });
      return next();
    }
    const caller = /^(bearer|token)$/i.test(scheme) ? callerForToken(world, value) : undefined;
    if (!caller) return apiError(c, 401, "Bad credentials");
    c.set("caller", caller);
    return next();
  };
}
