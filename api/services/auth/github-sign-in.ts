import { CodeChallengeMethod, generateCodeVerifier, OAuth2Client } from "arctic";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { AppContext, GitHubDeps } from "../../context.ts";
import { authAttempts, users, type User } from "../../../db/schema/index.ts";
import { constantTimeEqualStrings, hashToken, randomToken } from "../../crypto/tokens.ts";
import { sealText, unsealText } from "../../crypto/envelope.ts";
import { createGitHubClient, type GitHubEmail, type GitHubUser } from "../../github/client.ts";
import { createSession, invalidateSessionToken } from "./sessions.ts";
import { safeReturnTo } from "./return-to.ts";
import { audit } from "../audit.ts";

export const SIGN_IN_ATTEMPT_TTL_MS = 10 * 60 * 1000;
export const GITHUB_SCOPES = ["read:user", "user:email"];
/** The upgrade sign-in (GET /api/auth/github/upgrade-private): also private repositories, and org memberships. */
export const PRIVATE_ACCESS_SCOPES = [...GITHUB_SCOPES, "repo", "read:org"];

/**
 * Whether a token reaches private repositories: an OAuth token granted `repo`, or a GitHub App's user token
 * (`ghu_`: scopes do not apply, the app's installations decide what it reaches).
 */
export function reachesPrivateRepositories(accessToken: string, grantedScope: string | undefined): boolean {
  return accessToken.startsWith("ghu_") || (grantedScope ?? "").split(/[\s,]+/).includes("repo");
}

export type SignInSource = "web" | "vscode";

export class SignInError extends Error {
  constructor(readonly reason: "state_mismatch" | "state_invalid" | "github_denied" | "github_failed") {
    super(reason);
    this.name = "SignInError";
  }
}

function oauthClient(ctx: Pick<AppContext, "env">): OAuth2Client {
  return new OAuth2Client(ctx.env.GITHUB_CLIENT_ID, ctx.env.GITHUB_CLIENT_SECRET, `${ctx.env.PUBLIC_URL}/api/auth/github/callback`);
}

const attemptContext = (id: string) => `oauth-verifier:${id}`;
export const githubTokenContext = (userId: number) => `github-token:${userId}`;

/**
 * Starts a GitHub sign-in: a random state for the browser's cookie, the PKCE
 * verifier kept server-side (sealed), and the authorization URL.
 */
export async function startGitHubSignIn(
  ctx: Pick<AppContext, "env" | "database" | "keyring">,
  input: { returnTo?: string; source: SignInSource; promptNone: boolean; scopes?: string[] },
  now = Date.now(),
): Promise<{ url: URL; state: string }> {
  const state = randomToken(24);
  const verifier = generateCodeVerifier();
  const id = hashToken(state);
  await ctx.database.db.insert(authAttempts).values({
    id,
    codeVerifierSealed: await sealText(ctx.keyring, verifier, attemptContext(id)),
    returnTo: safeReturnTo(input.returnTo, ctx.env.PUBLIC_URL),
    source: input.source,
    createdAt: new Date(now),
    expiresAt: new Date(now + SIGN_IN_ATTEMPT_TTL_MS),
  });
  const url = oauthClient(ctx).createAuthorizationURLWithPKCE(
    `${ctx.env.GITHUB_URL}/login/oauth/authorize`,
    state,
    CodeChallengeMethod.S256,
    verifier,
    input.scopes ?? GITHUB_SCOPES,
  );
  if (input.promptNone) url.searchParams.set("prompt", "none");
  return { url, state };
}

export interface FinishedSignIn {
  user: User;
  sessionToken: string;
  sessionExpiresAt: Date;
  returnTo: string;
  source: SignInSource;
}

/**
 * Completes a sign-in: the state must match the browser's cookie and an
 * unconsumed, unexpired attempt (consumed here, atomically, so it works
 * once); the code is exchanged with the PKCE verifier; the user is created or
 * updated from GitHub; the GitHub token is sealed; any session the browser
 * had is ended and a new one issued.
 */
export async function finishGitHubSignIn(
  ctx: GitHubDeps,
  input: { code?: string; state?: string; cookieState?: string; currentSessionToken?: string; ip?: string; userAgent?: string },
  now = Date.now(),
): Promise<FinishedSignIn> {
  const { code, state, cookieState } = input;
  if (!code || !state || !cookieState || !constantTimeEqualStrings(state, cookieState)) throw new SignInError("state_mismatch");
  const db = ctx.database.db;
  const id = hashToken(state);
  const [attempt] = await db
    .update(authAttempts)
    .set({ consumedAt: new Date(now) })
    .where(and(eq(authAttempts.id, id), isNull(authAttempts.consumedAt), gt(authAttempts.expiresAt, new Date(now))))
    .returning();
  if (!attempt) throw new SignInError("state_invalid");
  const verifier = await unsealText(ctx.keyring, attempt.codeVerifierSealed, attemptContext(id));

  let accessToken: string;
  let grantedScope: string | undefined;
  try {
    const tokens = await oauthClient(ctx).validateAuthorizationCode(`${ctx.env.GITHUB_URL}/login/oauth/access_token`, code, verifier);
    // GitHub answers a refused code with HTTP 200 and an `error` field.
    if ("error" in tokens.data) throw new SignInError("github_denied");
    accessToken = tokens.accessToken();
    const scope = (tokens.data as { scope?: unknown }).scope;
    grantedScope = typeof scope === "string" ? scope : undefined;
  } catch (err) {
    if (err instanceof SignInError) throw err;
    ctx.log.warn("github token exchange failed", { err: (err as Error).message });
    throw new SignInError("github_denied");
  }

  let profile: GitHubUser;
  let primaryEmail: string | null = null;
  try {
    const github = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: accessToken });
    profile = await github.get<GitHubUser>("/user");
    const emails = await github.get<GitHubEmail[]>("/user/emails").catch(() => [] as GitHubEmail[]);
    primaryEmail = emails.find((e) => e.primary && e.verified)?.email ?? profile.email;
  } catch (err) {
    ctx.log.warn("github profile fetch failed", { err: (err as Error).message });
    throw new SignInError("github_failed");
  }

  const fields = {
    username: profile.login,
    name: profile.name,
    avatarUrl: profile.avatar_url,
    bio: profile.bio,
    location: profile.location,
    website: profile.blog || null,
    updatedAt: new Date(now),
    lastSignInAt: new Date(now),
  };
  const [user] = await db
    .insert(users)
    .values({ githubId: profile.id, email: primaryEmail, ...fields })
    .onConflictDoUpdate({ target: users.githubId, set: fields })
    .returning();
  const sealedToken = await sealText(ctx.keyring, accessToken, githubTokenContext(user!.id));
  const hasPrivateRepoAccess = reachesPrivateRepositories(accessToken, grantedScope);
  await db.update(users).set({ githubTokenSealed: sealedToken, hasPrivateRepoAccess }).where(eq(users.id, user!.id));
  user!.hasPrivateRepoAccess = hasPrivateRepoAccess;

  if (input.currentSessionToken) await invalidateSessionToken(db, input.currentSessionToken);
  const { token, session } = await createSession(db, user!.id, { ip: input.ip, userAgent: input.userAgent }, now);
  await audit(db, { userId: user!.id, action: "sign_in", ip: input.ip, detail: { source: attempt.source } });

  return {
    user: { ...user!, githubTokenSealed: sealedToken },
    sessionToken: token,
    sessionExpiresAt: session.absoluteExpiresAt,
    returnTo: attempt.returnTo,
    source: attempt.source,
  };
}

/** The user's GitHub token, decrypted for one call; undefined when none is stored. */
export async function userGitHubToken(ctx: Pick<AppContext, "keyring">, user: Pick<User, "id" | "githubTokenSealed">): Promise<string | undefined> {
  if (!user.githubTokenSealed) return undefined;
  return unsealText(ctx.keyring, user.githubTokenSealed, githubTokenContext(user.id));
}
