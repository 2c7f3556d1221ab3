import type { Currency } from "../../lib/money.ts";

/**
 * The extension's one client of the Issuepool API. The editor token goes
 * only to the platform that issued it, only in the Authorization header,
 * never in a URL; public reads (the bounties of a repository) go without it,
 * so they work signed out. A 401 on a call made with the token means the
 * session is over: it comes back as `SessionEnded` and the caller drops it.
 */
export class SessionEnded extends Error {
  constructor() {
    super("The Issuepool sign-in has ended.");
    this.name = "SessionEnded";
  }
}

export class PlatformError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "PlatformError";
  }
}

/** GET /api/auth/user (the parts the editor reads). */
export interface PlatformUser {
  id: number;
  username: string;
  githubUsername?: string | null;
  role: "contributor" | "poolmanager" | null;
  isProfileComplete: boolean;
  xdcWalletAddress: string | null;
}

/** GET /api/wallet/info: `balance` and `tokenBalance` in wei (the spec's contract), decimals beside them. */
export interface WalletInfo {
  address: string;
  balance: string;
  tokenBalance: string;
  xdcBalance?: string;
  usdcBalance?: string;
}

/** GET /api/public/unified-repo/{owner}/{repo} (the parts the editor reads). */
export interface PublicRepo {
  registered: boolean;
  repoId: number | null;
  githubRepoFullName: string;
  bounties: { issueNumber: number; title: string; html_url: string | null; currency: Currency; amount: string; claimants: number }[];
}

export interface TokenGrant {
  accessToken: string;
  expiresAt: string;
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export interface PlatformClient {
  readonly baseUrl: string;
  exchangeCode(input: { code: string; codeVerifier: string; state: string; redirectUri: string }): Promise<TokenGrant>;
  logout(token: string): Promise<void>;
  user(token: string): Promise<PlatformUser>;
  walletInfo(token: string): Promise<WalletInfo>;
  publicRepo(owner: string, name: string): Promise<PublicRepo>;
  /** Where a person sees things in the browser. */
  page(path: string): string;
}

export function createPlatformClient(baseUrl: string, fetchImpl: Fetch = (input, init) => fetch(input, init)): PlatformClient {
  const base = baseUrl.replace(/\/+$/, "");
  const call = async <T>(path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<T> => {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetchImpl(`${base}${path}`, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      redirect: "error",
    });
    if (res.status === 401 && init.token) throw new SessionEnded();
    const text = await res.text();
    const body = text ? (JSON.parse(text) as unknown) : null;
    if (!res.ok) {
      const message = (body as { message?: string } | null)?.message ?? `Issuepool answered ${res.status}`;
      throw new PlatformError(res.status, message);
    }
    return body as T;
  };
  return {
    baseUrl: base,
    async exchangeCode(input) {
      const grant = await call<{ access_token: string; expires_at: string }>("/api/auth/vscode/token", {
        method: "POST",
        body: { grant_type: "authorization_code", code: input.code, code_verifier: input.codeVerifier, state: input.state, redirect_uri: input.redirectUri },
      });
      return { accessToken: grant.access_token, expiresAt: grant.expires_at };
    },
    async logout(token) {
      await call("/api/auth/vscode/logout", { method: "POST", token });
    },
    async user(token) {
      const user = await call<PlatformUser | null>("/api/auth/user", { token });
      if (!user) throw new SessionEnded();
      return user;
    },
    walletInfo: (token) => call<WalletInfo>("/api/wallet/info", { token }),
    publicRepo: (owner, name) => call<PublicRepo>(`/api/public/unified-repo/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`),
    page: (path) => `${base}${path}`,
  };
}
