import { describe, expect, test } from "bun:test";
import { createFakeEditor, FakeUri } from "../test/fake-vscode.ts";
import { IssuepoolAuth, SESSION_SECRET_KEY, SIGN_IN_TIMEOUT_MS } from "./auth.ts";
import { createPlatformClient, SessionEnded, type PlatformClient } from "./platform.ts";

/**
 * The provider's own rules, with the platform stubbed where the real one
 * cannot be made to do it (time passing): the journey against the real
 * platform is extension.test.ts.
 */
function stubClient(calls: string[]): PlatformClient {
  return {
    baseUrl: "https://issuepool.example",
    page: (path) => `https://issuepool.example${path}`,
    exchangeCode: async () => {
      calls.push("exchange");
      return { accessToken: "ipv_stub", expiresAt: new Date(Date.now() + 3600_000).toISOString() };
    },
    logout: async () => void calls.push("logout"),
    user: async () => ({ id: 7, username: "bob", githubUsername: "bob", role: "contributor", isProfileComplete: true, xdcWalletAddress: "xdc00" }),
    walletInfo: async () => {
      throw new SessionEnded();
    },
    publicRepo: async () => ({ registered: false, repoId: null, githubRepoFullName: "", bounties: [] }),
  };
}

describe("the Issuepool authentication provider", () => {
  test("a state past its 10 minutes is refused: the code is never exchanged", async () => {
    const editor = createFakeEditor();
    const calls: string[] = [];
    let now = 1_000_000;
    const auth = new IssuepoolAuth(editor.vscode, editor.context.secrets, { client: () => stubClient(calls), clientFor: () => stubClient(calls), log: () => {}, now: () => now });
    try {
      const opened = new Promise<string>((resolve) => (editor.onOpenExternal = resolve));
      const signingIn = auth.createSession();
      signingIn.catch(() => {});
      const authorize = await opened;
      const state = new URL(authorize).searchParams.get("state")!;
      expect(auth.pendingStates()).toEqual([state]);
      now += SIGN_IN_TIMEOUT_MS;
      await auth.handleUri(FakeUri.parse(`vscode://issuepool.issuepool/auth?code=c0de&state=${state}`) as never);
      expect(calls).toEqual([]);
      expect(editor.shown.at(-1)?.level).toBe("warning");
      expect(auth.pendingStates()).toEqual([]);
      await expect(signingIn).rejects.toThrow("The sign-in expired");
    } finally {
      auth.dispose();
    }
  });

  test("a state works once: the second link with it is refused", async () => {
    const editor = createFakeEditor();
    const calls: string[] = [];
    const auth = new IssuepoolAuth(editor.vscode, editor.context.secrets, { client: () => stubClient(calls), clientFor: () => stubClient(calls), log: () => {} });
    try {
      let link = "";
      editor.onOpenExternal = async (url) => {
        link = `vscode://issuepool.issuepool/auth?code=c0de&state=${new URL(url).searchParams.get("state")}`;
        await auth.handleUri(FakeUri.parse(link) as never);
      };
      const session = await auth.createSession();
      expect(session.accessToken).toBe("ipv_stub");
      expect(JSON.parse(editor.context.secretValues.get(SESSION_SECRET_KEY)!)).toMatchObject({ accessToken: "ipv_stub", platformUrl: "https://issuepool.example" });
      await auth.handleUri(FakeUri.parse(link) as never);
      expect(calls).toEqual(["exchange"]);
    } finally {
      auth.dispose();
    }
  });

  test("a session kept for another platform is not offered (its token is never sent elsewhere)", async () => {
    const editor = createFakeEditor();
    editor.context.secretValues.set(SESSION_SECRET_KEY, JSON.stringify({ id: "s", accessToken: "ipv_other", expiresAt: "", platformUrl: "https://elsewhere.example", account: { id: "1", label: "x" } }));
    const auth = new IssuepoolAuth(editor.vscode, editor.context.secrets, { client: () => stubClient([]), clientFor: () => stubClient([]), log: () => {} });
    try {
      expect(await auth.getSessions()).toEqual([]);
      expect(await auth.withToken(async (token) => token)).toBeUndefined();
    } finally {
      auth.dispose();
    }
  });

  test("the client: a 401 with the token is SessionEnded; the token goes in the header only", async () => {
    const seen: { url: string; init?: RequestInit }[] = [];
    const client = createPlatformClient("https://issuepool.example/", async (url, init) => {
      seen.push({ url, init });
      return new Response(JSON.stringify({ error: "Unauthorized", message: "expired" }), { status: 401 });
    });
    await expect(client.walletInfo("ipv_secret")).rejects.toBeInstanceOf(SessionEnded);
    expect(seen[0]!.url).toBe("https://issuepool.example/api/wallet/info");
    expect((seen[0]!.init!.headers as Record<string, string>).Authorization).toBe("Bearer ipv_secret");
    // Without a token (a public read, the exchange), a 401 is an ordinary error.
    await expect(client.publicRepo("a", "b")).rejects.toThrow("expired");
  });
});
