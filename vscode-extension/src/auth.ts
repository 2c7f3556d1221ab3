import type * as vscode from "vscode";
import type { VSCode } from "./vscode-api.ts";
import { randomBase64url, s256 } from "./pkce.ts";
import { SessionEnded, type PlatformClient } from "./platform.ts";

/**
 * "Issuepool" in VS Code's Accounts: an AuthenticationProvider and the URI
 * handler that finishes its sign-in (docs/vscode.md).
 *
 *   createSession: a state and a PKCE verifier, kept here only, for 10 min
 *     → the browser on the platform's /api/auth/vscode/authorize (state, S256 challenge,
 *       our vscode:// URI through env.asExternalUri)
 *     → the person signs in; the platform's page opens <our URI>?code&state
 *   handleUri: only a state this window started and that has not expired; the code
 *     → POST /api/auth/vscode/token with the verifier → the token, kept in SecretStorage
 *   removeSession: the token is revoked on the platform (bearer-only logout), then forgotten
 *   a 401 on any call: the session is dropped and the person is asked to sign in again
 *
 * The token is never in a URL, a log line or settings; it is stored with the
 * platform it belongs to and never sent to another one.
 */
export const AUTH_PROVIDER_ID = "issuepool";
export const AUTH_PROVIDER_LABEL = "Issuepool";
export const EXTENSION_ID = "issuepool.issuepool";
export const SESSION_SECRET_KEY = "issuepool.session";
export const SIGN_IN_TIMEOUT_MS = 10 * 60 * 1000;

interface StoredSession {
  id: string;
  accessToken: string;
  expiresAt: string;
  platformUrl: string;
  account: { id: string; label: string };
}

interface PendingSignIn {
  verifier: string;
  redirectUri: string;
  expiresAt: number;
  resolve(code: string): void;
  reject(error: Error): void;
}

export interface AuthOptions {
  /** The client of the configured platform. */
  client: () => PlatformClient;
  /** A client of another platform (a session kept from before the setting changed). */
  clientFor: (baseUrl: string) => PlatformClient;
  log: (line: string) => void;
  now?: () => number;
}

export class IssuepoolAuth implements vscode.AuthenticationProvider, vscode.UriHandler {
  private readonly changed: vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>;
  readonly onDidChangeSessions: vscode.Event<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>;
  private readonly pending = new Map<string, PendingSignIn>();
  private current: StoredSession | undefined;
  private loaded: Promise<void> | undefined;
  private readonly now: () => number;

  constructor(
    private readonly vscode: VSCode,
    private readonly secrets: vscode.SecretStorage,
    private readonly options: AuthOptions,
  ) {
    this.changed = new vscode.EventEmitter();
    this.onDidChangeSessions = this.changed.event;
    this.now = options.now ?? Date.now;
    // Another window signed in or out: follow it.
    secrets.onDidChange((e) => {
      if (e.key === SESSION_SECRET_KEY) void this.reload();
    });
  }

  dispose(): void {
    for (const sign of this.pending.values()) sign.reject(new Error("The extension was stopped."));
    this.pending.clear();
    this.changed.dispose();
  }

  // ---- AuthenticationProvider ----

  async getSessions(): Promise<vscode.AuthenticationSession[]> {
    const session = await this.session();
    return session ? [toSession(session)] : [];
  }

  /** The session for the configured platform, if any (one stored for another platform does not count). */
  async session(): Promise<StoredSession | undefined> {
    this.loaded ??= this.reload();
    await this.loaded;
    return this.current && this.current.platformUrl === this.options.client().baseUrl ? this.current : undefined;
  }

  async createSession(): Promise<vscode.AuthenticationSession> {
    const client = this.options.client();
    const state = randomBase64url(32);
    const verifier = randomBase64url(48);
    const callback = await this.vscode.env.asExternalUri(this.vscode.Uri.parse(`${this.vscode.env.uriScheme}://${EXTENSION_ID}/auth`));
    // As the editor made it: the platform adds code and state to it and nothing else.
    const redirectUri = callback.toString(true);
    const code = new Promise<string>((resolve, reject) => {
      this.pending.set(state, { verifier, redirectUri, expiresAt: this.now() + SIGN_IN_TIMEOUT_MS, resolve, reject });
    });
    // Handled below once the browser is open; a sign-in stopped before that must not be an unhandled rejection.
    code.catch(() => {});
    const authorize = new URL(client.page("/api/auth/vscode/authorize"));
    authorize.searchParams.set("state", state);
    authorize.searchParams.set("code_challenge", await s256(verifier));
    authorize.searchParams.set("code_challenge_method", "S256");
    authorize.searchParams.set("redirect_uri", redirectUri);
    this.options.log(`sign-in started at ${client.baseUrl}`);

    const received = await this.vscode.window.withProgress(
      { location: this.vscode.ProgressLocation.Notification, title: "Signing in to Issuepool in your browser…", cancellable: true },
      async (_progress, cancel) => {
        const stop = new Promise<never>((_, reject) => {
          const timer = setTimeout(() => reject(new Error("The sign-in took too long. Please try again.")), SIGN_IN_TIMEOUT_MS);
          cancel.onCancellationRequested(() => {
            clearTimeout(timer);
            reject(new Error("Sign-in cancelled."));
          });
          void code.finally(() => clearTimeout(timer)).catch(() => {});
        });
        try {
          const opened = await this.vscode.env.openExternal(this.vscode.Uri.parse(authorize.toString()));
          if (!opened) throw new Error("The browser could not be opened for the sign-in.");
          return await Promise.race([code, stop]);
        } finally {
          this.pending.delete(state);
        }
      },
    );

    const grant = await client.exchangeCode({ code: received, codeVerifier: verifier, state, redirectUri });
    const user = await client.user(grant.accessToken);
    const stored: StoredSession = {
      id: randomBase64url(16),
      accessToken: grant.accessToken,
      expiresAt: grant.expiresAt,
      platformUrl: client.baseUrl,
      account: { id: String(user.id), label: user.githubUsername ?? user.username },
    };
    const previous = this.current;
    await this.store(stored);
    this.options.log(`signed in as ${stored.account.label}`);
    this.changed.fire({ added: [toSession(stored)], removed: previous ? [toSession(previous)] : [], changed: [] });
    return toSession(stored);
  }

  /** Sign Out: the platform revokes the token (bearer-only logout), then the editor forgets it. */
  async removeSession(sessionId: string): Promise<void> {
    const session = await this.session();
    if (!session || session.id !== sessionId) return;
    try {
      await this.options.client().logout(session.accessToken);
    } catch (err) {
      // Already dead on the platform (401), or unreachable: the editor forgets it all the same.
      if (!(err instanceof SessionEnded)) this.options.log(`sign-out: the platform could not be told (${(err as Error).message})`);
    }
    await this.forget(session);
    this.options.log("signed out");
  }

  /**
   * The platform setting changed: a session of the previous platform is
   * revoked there and forgotten, so the editor is signed out of it.
   */
  platformChanged(): Promise<void> {
    this.switching = (this.switching ?? Promise.resolve()).then(() => this.signOutOfPreviousPlatform());
    return this.switching;
  }

  private switching: Promise<void> | undefined;

  private async signOutOfPreviousPlatform(): Promise<void> {
    this.loaded ??= this.reload();
    await this.loaded;
    const stale = this.current;
    if (!stale || stale.platformUrl === this.options.client().baseUrl) return;
    await this.options
      .clientFor(stale.platformUrl)
      .logout(stale.accessToken)
      .catch((err: Error) => this.options.log(`sign-out of ${stale.platformUrl}: ${err.message}`));
    await this.forget(stale);
  }

  /**
   * A call answered 401: the token is expired or was revoked. The session is
   * dropped and the person is asked to sign in again (once per session).
   */
  async sessionEnded(): Promise<void> {
    const session = await this.session();
    if (!session) return;
    await this.forget(session);
    this.options.log("the platform ended the session (401)");
    // Not awaited: the call that met the 401 must not wait for the person to answer.
    void Promise.resolve(this.vscode.window.showWarningMessage("Your Issuepool sign-in has ended. Sign in again to see your wallet.", "Sign In")).then((choice) =>
      choice === "Sign In" ? this.vscode.commands.executeCommand("issuepool.signIn") : undefined,
    );
  }

  /** Runs `call` with the token; a 401 ends the session. Undefined when signed out. */
  async withToken<T>(call: (token: string) => Promise<T>): Promise<T | undefined> {
    const session = await this.session();
    if (!session) return undefined;
    try {
      return await call(session.accessToken);
    } catch (err) {
      if (err instanceof SessionEnded) {
        await this.sessionEnded();
        return undefined;
      }
      throw err;
    }
  }

  // ---- UriHandler ----

  /**
   * vscode://issuepool.issuepool/auth?code&state: finishes a sign-in this
   * window started, and only that: an unknown or expired state is refused and
   * its code is never sent anywhere. /signin starts one (the platform's
   * "Connect VS Code" button).
   */
  async handleUri(uri: vscode.Uri): Promise<void> {
    if (uri.path === "/signin") {
      await this.vscode.commands.executeCommand("issuepool.signIn");
      return;
    }
    if (uri.path !== "/auth") return;
    const query = new URLSearchParams(uri.query);
    const state = query.get("state") ?? "";
    const code = query.get("code") ?? "";
    const pending = this.pending.get(state);
    if (!pending || !code || pending.expiresAt <= this.now()) {
      if (pending) {
        this.pending.delete(state);
        pending.reject(new Error("The sign-in expired. Please try again."));
      }
      this.options.log("a sign-in link was refused: not started in this window, already used or expired");
      void this.vscode.window.showWarningMessage("This Issuepool sign-in link was not started here, or has expired. Run Issuepool: Sign In to try again.");
      return;
    }
    this.pending.delete(state);
    pending.resolve(code);
  }

  /** States of sign-ins in flight (for tests). */
  pendingStates(): string[] {
    return [...this.pending.keys()];
  }

  // ---- storage ----

  private async reload(): Promise<void> {
    const before = this.current;
    const raw = await this.secrets.get(SESSION_SECRET_KEY);
    let next: StoredSession | undefined;
    try {
      next = raw ? (JSON.parse(raw) as StoredSession) : undefined;
    } catch {
      next = undefined;
    }
    this.current = next;
    if (before?.id !== next?.id) {
      this.changed.fire({ added: next ? [toSession(next)] : [], removed: before ? [toSession(before)] : [], changed: [] });
    }
  }

  private async store(session: StoredSession): Promise<void> {
    this.current = session;
    this.loaded = Promise.resolve();
    await this.secrets.store(SESSION_SECRET_KEY, JSON.stringify(session));
  }

  private async forget(session: StoredSession): Promise<void> {
    this.current = undefined;
    this.loaded = Promise.resolve();
    await this.secrets.delete(SESSION_SECRET_KEY);
    this.changed.fire({ added: [], removed: [toSession(session)], changed: [] });
  }
}

function toSession(stored: StoredSession): vscode.AuthenticationSession {
  return { id: stored.id, accessToken: stored.accessToken, account: stored.account, scopes: [] };
}
