import type { Server } from "bun";
import { startGitHubEmulator, type GitHubEmulator } from "../scripts/github-emulator/index.ts";
import { sharedTestSecrets } from "../scripts/lib/dev-secrets.ts";
import { createTestContext, type TestContext } from "./context.ts";
import { startTestChain, type TestChain } from "./chain.ts";
import type { OutflowCaps } from "../scripts/deploy-contracts.ts";
import { call, type TestSession } from "./auth.ts";
import type { Address } from "viem";
import { csrfTokenFor } from "../api/services/auth/csrf.ts";
import { hashToken } from "../api/crypto/tokens.ts";
import { sessionCookieName } from "../api/middleware/cookies.ts";
import { chainTransactions, sessions, users, wallets, webhookDeliveries } from "../db/schema/index.ts";
import { eq, inArray } from "drizzle-orm";
import { startSchedule } from "../api/schedule.ts";

/**
 * The whole platform for integration tests, each part real: anvil with the
 * contracts, the GitHub emulator (delivering signed webhooks to a real HTTP
 * listener in front of the app), and the app with its database.
 */
export interface TestStack {
  t: TestContext;
  chain: TestChain;
  github: GitHubEmulator;
  /** The app over HTTP (webhooks arrive here). */
  url: string;
  /** Signs in as a fixture user through the real OAuth flow against the emulator. */
  signIn(login: string): Promise<TestSession>;
  /** Signs in and registers with `role` (creating the custodial wallet). */
  signUp(login: string, role: "poolmanager" | "contributor"): Promise<TestSession & { wallet: Address }>;
  stop(): Promise<void>;
}

/** The GitHub emulator, with the test GitHub App, sending its webhooks to the platform at `origin`. */
export function startEmulatorFor(origin: string, secrets: Awaited<ReturnType<typeof sharedTestSecrets>>): Promise<GitHubEmulator> {
  return startGitHubEmulator({
    oauth: { clientId: "Iv1.unused-oauth-app", clientSecret: "unused" },
    app: {
      id: Number(secrets.GITHUB_APP_ID),
      slug: secrets.GITHUB_APP_SLUG,
      clientId: secrets.GITHUB_CLIENT_ID,
      clientSecret: secrets.GITHUB_CLIENT_SECRET,
      publicKeyPem: secrets.GITHUB_APP_PUBLIC_KEY,
      setupUrl: `${origin}/repos/register`,
    },
    webhook: { url: `${origin}/api/webhooks/github`, secret: secrets.GITHUB_WEBHOOK_SECRET },
  });
}

export async function startTestStack(
  options: {
    /** Extra settings; a function is given the app's URL and the chain first (for services that call the app back, such as the on-ramp simulator). */
    env?: Record<string, string> | ((url: string, chain: TestChain) => Promise<Record<string, string>>);
    workers?: boolean;
    caps?: OutflowCaps;
  } = {},
): Promise<TestStack> {
  const chain = await startTestChain({ caps: options.caps });
  let handler: (request: Request, server: Server<unknown>) => Response | Promise<Response> = () => new Response("starting", { status: 503 });
  const listener = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, server) => handler(request, server) });
  const url = `http://127.0.0.1:${listener.port}`;
  const secrets = await sharedTestSecrets();
  const github = await startEmulatorFor(url, secrets);
  const t = await createTestContext({
    fileDatabase: true,
    env: { ...chain.env, PUBLIC_URL: url, GITHUB_URL: github.webUrl, GITHUB_API_URL: github.apiUrl, ...(typeof options.env === "function" ? await options.env(url, chain) : options.env) },
  });
  handler = (request, server) => t.app.fetch(request, server);
  // As in production (api/schedule.ts), the passes a flow test needs: the outbox, the indexer, the webhook worker
  // (every 100 ms) and the bot; the others are run by hand where a test wants them.
  const schedule = options.workers ? startSchedule(t.ctx, { only: ["outbox", "indexer", "webhooks", "bot-comments"], intervals: { webhooks: 100 } }) : undefined;

  return {
    t,
    chain,
    github,
    url,
    signIn: (login) => signInThroughGitHub(t, login),
    signUp: (login, role) => signUpThroughGitHub(t, login, role),
    async stop() {
      // The bot's comment syncs reach GitHub: finished before the emulator goes (a PATCH after it was an unhandled error).
      await schedule?.stop();
      listener.stop(true);
      await github.stop();
      t.close();
      await chain.stop();
    },
  };
}

function cookieValue(setCookies: string[], name: string): string | undefined {
  for (const header of setCookies) {
    const match = new RegExp(`(?:^|\\s)${name}=([^;]*)`).exec(header);
    if (match && match[1]) return match[1];
  }
  return undefined;
}

/** The browser's part of a GitHub sign-in, done by hand: start, authorize at the emulator, come back. */
export async function signInThroughGitHub(t: TestContext, login: string): Promise<TestSession> {
  const start = await t.app.request("/api/auth/github?returnTo=/repos");
  if (start.status !== 302) throw new Error(`sign-in did not start: ${start.status}`);
  const state = cookieValue(start.headers.getSetCookie(), "ip_oauth_state")!;
  const authorize = new URL(start.headers.get("location")!);
  const form = new URLSearchParams(authorize.searchParams);
  form.set("login", login);
  const granted = await fetch(`${authorize.origin}${authorize.pathname}`, { method: "POST", body: form, redirect: "manual" });
  const callback = new URL(granted.headers.get("location")!);
  const done = await t.app.request(callback.pathname + callback.search, { headers: { Cookie: `ip_oauth_state=${state}` } });
  if (done.status !== 302) throw new Error(`sign-in callback failed: ${done.status}`);
  const token = cookieValue(done.headers.getSetCookie(), sessionCookieName(t.env));
  if (!token) throw new Error(`sign-in refused: ${done.headers.get("location")}`);
  const sessionId = hashToken(token);
  const [session] = await t.ctx.database.db.select().from(sessions).where(eq(sessions.id, sessionId));
  const [user] = await t.ctx.database.db.select().from(users).where(eq(users.id, session!.userId));
  return {
    user: user!,
    cookie: `${sessionCookieName(t.env)}=${token}`,
    csrfToken: await csrfTokenFor(t.ctx.appSecret, sessionId),
    sessionId,
    ip: `10.9.${user!.id % 250}.${Math.floor(Math.random() * 250)}`,
  };
}

/** Signs in through the emulator's OAuth and registers with `role` (creating the custodial wallet). */
export async function signUpThroughGitHub(t: TestContext, login: string, role: "poolmanager" | "contributor"): Promise<TestSession & { wallet: Address }> {
  const session = await signInThroughGitHub(t, login);
  const res = await call(t, "/api/auth/register", { as: session, body: { role, email: `${login}@example.com` } });
  if (res.status !== 200) throw new Error(`registering ${login}: ${res.status} ${await res.text()}`);
  session.user.role = role;
  const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, session.user.id));
  return { ...session, wallet: wallet!.address as Address };
}

/** Waits until `check` returns a value (not undefined/false), polling; fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * The usual start of an issue-29 flow test: `manager` installs the GitHub App on all their repositories (finished in
 * the app, as the setup page does), registers `repo` and funds its pool with `xdc` XDC from their wallet; the
 * indexer has read it. Throws if any step is refused.
 */
export async function registerFundedRepository(stack: TestStack, manager: TestSession, repo: { id: number; fullName: string }, xdc: string): Promise<void> {
  const account = repo.fullName.split("/")[0]!;
  const installed = await stack.github.controls.install({ account, repositories: "all", sender: account });
  const installationId = (installed.installation as { id: number }).id;
  const steps: [string, Record<string, unknown>, Record<string, string>?][] = [
    ["/api/github/app/finalize-installation", { installationId }],
    ["/api/repositories/register", { githubRepoId: repo.id, githubRepoFullName: repo.fullName }],
    [`/api/blockchain/repository/${repo.id}/fund`, { amountXdc: xdc, repositoryFullName: repo.fullName }, { "Idempotency-Key": `fund-${repo.id}-${crypto.randomUUID()}` }],
  ];
  for (const [path, body, headers] of steps) {
    const res = await call(stack.t, path, { as: manager, body, ...(headers ? { headers } : {}) });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  }
  await stack.t.ctx.indexer.catchUp();
}

/**
 * The stack at rest: GitHub's deliveries sent, every stored delivery processed (a webhook pass run each time) and the
 * outbox empty (nothing queued, signed or sent). The state a property test checks its invariants in.
 */
export async function untilQuiet(stack: Pick<TestStack, "t" | "github">, timeoutMs = 30_000): Promise<void> {
  await stack.github.controls.settle();
  const db = stack.t.ctx.database.db;
  await eventually(
    async () => {
      await stack.t.ctx.webhooks.runOnce();
      const pendingDeliveries = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
      const pendingTxs = await db.select({ id: chainTransactions.id }).from(chainTransactions).where(inArray(chainTransactions.status, ["queued", "signed", "sent"]));
      return pendingDeliveries.length === 0 && pendingTxs.length === 0 ? true : undefined;
    },
    timeoutMs,
    "settled",
  );
}
