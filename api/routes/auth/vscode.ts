import { ANONYMOUS, declareRoute, json, noJson, OPTIONAL_USER, SESSION_WRITE, VSCODE } from "../../openapi/declare.ts";
import { Success } from "../../openapi/shapes.ts";
import { Hono, type Context } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import type { User } from "../../../db/schema/index.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { requireSession } from "../../middleware/session.ts";
import { clientAddress } from "../../middleware/client-address.ts";
import {
  clearVscodeRequestCookie,
  readVscodeRequestCookie,
  setVscodeHandoffCookie,
  setVscodeRequestCookie,
  VSCODE_SIGNED_IN_PATH,
} from "../../middleware/cookies.ts";
import { DomainError, ErrorCode, refused, unauthorized } from "../../errors.ts";
import { revokeVscodeToken, revokeVscodeTokens } from "../../services/auth/vscode.ts";
import {
  CHALLENGE_PATTERN,
  editorRedirectUri,
  exchangeVscodeCode,
  issueVscodeCode,
  openVscodeRequest,
  sealVscodeRequest,
  STATE_PATTERN,
  VERIFIER_PATTERN,
  VSCODE_CODE_TTL_MS,
  VSCODE_REQUEST_TTL_MS,
  VscodeGrantError,
  type VscodeSignInRequest,
} from "../../services/auth/vscode-sign-in.ts";
import { audit } from "../../services/audit.ts";

const AuthorizeQuery = z.object({
  state: z.string().regex(STATE_PATTERN, "state must be 22 to 128 URL-safe characters"),
  code_challenge: z.string().regex(CHALLENGE_PATTERN, "code_challenge must be an S256 challenge (43 base64url characters)"),
  code_challenge_method: z.literal("S256", "code_challenge_method must be S256"),
  redirect_uri: z.string().max(512),
});
const TokenBody = z.object({
  grant_type: z.literal("authorization_code").optional(),
  code: z.string().min(1).max(128),
  code_verifier: z.string().regex(VERIFIER_PATTERN, "code_verifier must be 43 to 128 unreserved characters"),
  state: z.string().regex(STATE_PATTERN, "state must be 22 to 128 URL-safe characters"),
  redirect_uri: z.string().max(512),
});

export const VSCODE_TOKEN_RATE_LIMIT = { name: "vscode-token", perIp: 30, windowMs: 10 * 60 * 1000 };
export const VSCODE_AUTHORIZE_RATE_LIMIT = { name: "vscode-authorize", perIp: 30, windowMs: 10 * 60 * 1000 };

/**
 * The editor sign-in (docs/vscode.md; services/auth/vscode-sign-in.ts):
 * GET  /api/auth/vscode/authorize             the extension opens the browser here (state, S256 challenge, redirect_uri)
 * GET  /api/auth/vscode/finalize-onboarding   after sign-in or registration: the code for the editor, via our page
 * POST /api/auth/vscode/token                 the extension trades code + verifier for its token (JSON, no cookie)
 * POST /api/auth/vscode/logout                the editor signs itself out (bearer only)
 * POST /api/auth/vscode/revoke                the browser ends every editor token of the user (session)
 */
export function vscodeRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(async (c, next) => {
      await next();
      c.header("Cache-Control", "no-store");
    })
    .get(
      "/authorize",
      rateLimit(ctx, VSCODE_AUTHORIZE_RATE_LIMIT),
      validate("query", AuthorizeQuery),
      async (c) => {
        const query = c.req.valid("query");
        const redirectUri = editorRedirectUri(query.redirect_uri, ctx.env.VSCODE_REDIRECT_URI);
        if (!redirectUri) throw refused(ErrorCode.INVALID_REDIRECT_URI, "redirect_uri must be the Issuepool extension's URI in VS Code, VS Code Insiders, VSCodium or Cursor.", { error: "invalid_request" });
        const request = { state: query.state, codeChallenge: query.code_challenge, redirectUri, expiresAt: Date.now() + VSCODE_REQUEST_TTL_MS };
        const user = c.get("session") ? c.get("user") : undefined;
        // Signed in and registered, and the editor opened this page (Sec-Fetch-Site none): hand over at once.
        if (user?.isProfileComplete && navigationFromEditorOrUs(c)) return handOver(ctx, c, user, request);
        // Otherwise the browser keeps the request while the person signs in or registers; a link from another site
        // goes through the VS Code card, where the person clicks to continue.
        setVscodeRequestCookie(c, ctx.env, await sealVscodeRequest(ctx.appSecret, request), VSCODE_REQUEST_TTL_MS / 1000);
        return c.redirect(user && !user.isProfileComplete ? "/auth?registration=true&source=vscode" : "/auth?source=vscode", 302);
      },
    )
    .get("/finalize-onboarding", async (c) => {
      const user = c.get("session") ? c.get("user") : undefined;
      if (!user) return c.redirect("/auth?source=vscode&from_vscode=true", 302);
      if (!user.isProfileComplete) return c.redirect("/auth?registration=true&source=vscode", 302);
      // A GET that issues a code answers only navigations from this site's own pages (Sec-Fetch-Site, which pages
      // cannot forge, as for the on-ramp URLs): a link or redirect from another site lands on the editor's wallet
      // page. (After GitHub's sign-in the callback hands over itself: github.ts.)
      if (!navigationFromEditorOrUs(c)) return c.redirect("/vscode/wallet", 303);
      const request = await openVscodeRequest(ctx.appSecret, ctx.env.VSCODE_REDIRECT_URI, readVscodeRequestCookie(c));
      // No sign-in started by the editor (or it expired): nothing to hand over; the wallet page starts one.
      if (!request) return c.redirect("/vscode/wallet", 303);
      return handOver(ctx, c, user, request);
    })
    .post(
      "/token",
      rateLimit(ctx, VSCODE_TOKEN_RATE_LIMIT),
      validate("json", TokenBody),
      async (c) => {
        const body = c.req.valid("json");
        try {
          const { token, expiresAt, userId } = await exchangeVscodeCode(ctx.database.db, {
            code: body.code,
            codeVerifier: body.code_verifier,
            state: body.state,
            redirectUri: body.redirect_uri,
          });
          await audit(ctx.database.db, { userId, action: "vscode_token_issued", ip: clientAddress(c, ctx.env.TRUST_PROXY), detail: { expiresAt: expiresAt.toISOString() } });
          return c.json({ access_token: token, token_type: "Bearer", expires_in: Math.floor((expiresAt.getTime() - Date.now()) / 1000), expires_at: expiresAt.toISOString() });
        } catch (err) {
          if (!(err instanceof VscodeGrantError)) throw err;
          c.get("log").warn("editor code refused", { reason: err.reason });
          // One answer for every refusal: which check failed is for our log, not for whoever holds the code.
          throw new DomainError({ code: ErrorCode.INVALID_GRANT, error: "invalid_grant", message: "This sign-in code is not valid any more. Sign in again from VS Code." });
        }
      },
    )
    .post("/logout", async (c) => {
      // Bearer only: the editor's own token, which loadSession has checked. A browser signs out with /api/auth/logout.
      const token = bearerToken(c);
      if (!token || c.get("session")) throw unauthorized("Sign out of the editor with its own token.");
      const revoked = await revokeVscodeToken(ctx.database.db, token);
      if (!revoked) throw unauthorized();
      await audit(ctx.database.db, { userId: revoked.userId, action: "vscode_token_revoked", detail: { by: "editor" } });
      return c.json({ success: true });
    })
    .post("/revoke", async (c) => {
      const { user } = requireSession(c);
      const revoked = await revokeVscodeTokens(ctx.database.db, user.id);
      await audit(ctx.database.db, { userId: user.id, action: "vscode_tokens_revoked", detail: { revoked } });
      return c.json({ success: true, revoked });
    });
}

/** `Authorization: Bearer …`, if any. */
export function bearerToken(c: Context<AppBindings>): string | undefined {
  return /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
}

/** A navigation the editor opened (none), or one from this site's own pages; not a link or redirect from another site. */
function navigationFromEditorOrUs(c: Context<AppBindings>): boolean {
  const site = c.req.header("sec-fetch-site");
  return site === undefined || site === "none" || site === "same-origin";
}

/**
 * Issues the code for the signed-in user and sends the browser to our page
 * that opens the editor with it (the browser is not left on GitHub's page).
 */
export async function handOver(
  ctx: Pick<AppContext, "env" | "database">,
  c: Context<AppBindings>,
  user: Pick<User, "id">,
  request: VscodeSignInRequest,
): Promise<Response> {
  const { handoffUri, expiresAt } = await issueVscodeCode(ctx.database.db, user.id, request);
  await audit(ctx.database.db, { userId: user.id, action: "vscode_code_issued", detail: { expiresAt: expiresAt.toISOString() } });
  clearVscodeRequestCookie(c, ctx.env);
  setVscodeHandoffCookie(c, ctx.env, handoffUri, VSCODE_CODE_TTL_MS / 1000);
  c.header("Cache-Control", "no-store");
  return c.redirect(VSCODE_SIGNED_IN_PATH, 303);
}

export const vscodeApi = [
  declareRoute({
    method: "get", path: "/api/auth/vscode/authorize", operationId: "authorizeVscode", tags: ["vscode"], security: OPTIONAL_USER,
    errors: ["invalid_redirect_uri", "rate_limited", "validation_failed"],
    summary: "The extension opens the browser here to sign in",
    request: { query: AuthorizeQuery },
    responses: { 302: noJson("To the sign-in or registration page, the request kept in a cookie"), 303: noJson("Signed in: to the hand-over page") },
  }),
  declareRoute({
    method: "get", path: "/api/auth/vscode/finalize-onboarding", operationId: "finalizeVscodeOnboarding", tags: ["vscode"], security: OPTIONAL_USER,
    summary: "After sign-in or registration: the one-time code for the editor, via our page",
    responses: { 302: noJson("Not signed in or not registered yet"), 303: noJson("The hand-over page, or the editor's wallet page") },
  }),
  declareRoute({
    method: "post", path: "/api/auth/vscode/token", operationId: "exchangeVscodeCode", tags: ["vscode"], security: ANONYMOUS,
    errors: ["invalid_grant", "rate_limited", "validation_failed"],
    summary: "The extension trades its one-time code and PKCE verifier for a token",
    request: { body: { content: { "application/json": { schema: TokenBody } }, required: true } },
    responses: {
      200: json("The editor's token (24 h, read-only)", z.object({
        access_token: z.string(), token_type: z.literal("Bearer"), expires_in: z.number().int(), expires_at: z.string(),
      })),
    },
  }),
  declareRoute({
    method: "post", path: "/api/auth/vscode/logout", operationId: "logoutVscode", tags: ["vscode"], security: VSCODE,
    summary: "The editor signs itself out (its bearer token only)",
    responses: { 200: json("Revoked", Success) },
  }),
  declareRoute({
    method: "post", path: "/api/auth/vscode/revoke", operationId: "revokeVscodeTokens", tags: ["vscode"], security: SESSION_WRITE,
    summary: "The browser ends every editor token of the user",
    responses: { 200: json("Revoked", Success.extend({ revoked: z.number().int() })) },
  }),
];
