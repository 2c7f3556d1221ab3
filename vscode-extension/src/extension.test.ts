import { formatEther } from "viem";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../testing/stack.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { makeTempDir } from "../../testing/context.ts";
import { insertTestRepositories } from "../../testing/fixtures.ts";
import { bounties, bountyClaims, vscodeTokens, wallets } from "../../db/schema/index.ts";
import { hashToken } from "../../api/crypto/tokens.ts";
import { forgetBalances } from "../../api/services/money/balances.ts";
import { formatAmount } from "../../lib/money-format.ts";
import { createFakeEditor, FakeUri, type FakeEditor } from "../test/fake-vscode.ts";
import { signInInBrowser, type BrowserRun } from "../test/browser.ts";
import { activateIssuepool, type IssuepoolExtension } from "./activate.ts";
import { SESSION_SECRET_KEY } from "./auth.ts";
import type { BountyNode } from "./bounties.ts";

/**
 * The extension in a fake editor (test/fake-vscode.ts) against the real
 * platform: the API over HTTP, anvil with the contracts, and the GitHub
 * emulator, whose authorize page the browser (test/browser.ts) goes through.
 */
let stack: TestStack;
let bob: TestSession; // contributor
let alice: TestSession; // pool manager
const WALLET_KIT = { id: 5001, fullName: "issuepool-demo/xdc-wallet-kit" };

async function register(login: string, role: "contributor" | "poolmanager"): Promise<TestSession> {
  const session = await stack.signIn(login);
  const res = await call(stack.t, "/api/auth/register", { as: session, body: { role, email: `${login}@example.com` } });
  expect(res.status).toBe(200);
  return session;
}
const walletOf = async (s: TestSession) => (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, s.user.id)))[0]!.address as Address;
/** Sets the XDC balance on the chain; the server's few-second balance cache forgets it, as after a transfer. */
async function setXdc(s: TestSession, xdc: string): Promise<void> {
  const address = await walletOf(s);
  await stack.chain.fund(address, { xdc });
  forgetBalances(stack.t.ctx.chain, address);
}

beforeAll(async () => {
  stack = await startTestStack();
  bob = await register("bob", "contributor");
  alice = await register("alice", "poolmanager");
  await stack.chain.fund(await walletOf(bob), { xdc: "12.345678901234567891" });
  await stack.chain.fund(await walletOf(alice), { xdc: "7" });
  // A demo repository with three bounties in the mirror, one of them already claimed.
  await insertTestRepositories(stack.t.ctx.database.db, { githubUrl: stack.github.webUrl });
  const now = new Date();
  const XDC = 10n ** 18n;
  for (const [issueNumber, currency, amount] of [
    [1, "XDC", 25n * XDC],
    [2, "XDC", 50n * XDC + 123456789n * 10n ** 9n],
    [4, "ROXN", 150n * XDC],
  ] as const) {
    await stack.t.ctx.database.db
      .insert(bounties)
      .values({ githubRepoId: WALLET_KIT.id, issueNumber, currency, amount, status: "open", allocatedTx: `0x${issueNumber}`, allocatedAt: now, updatedBlock: 1 });
  }
  await stack.t.ctx.database.db.insert(bountyClaims).values({ githubRepoId: WALLET_KIT.id, issueNumber: 2, userId: bob.user.id });
}, 90_000);
afterAll(() => stack?.stop());

/** A workspace folder whose git remote is `remote`. */
async function workspaceWithRemote(remote: string | null, remoteName = "origin"): Promise<string> {
  const dir = await makeTempDir("issuepool-workspace-");
  mkdirSync(join(dir, ".git"));
  writeFileSync(
    join(dir, ".git", "config"),
    `[core]\n\trepositoryformatversion = 0\n${remote ? `[remote "${remoteName}"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/${remoteName}/*\n` : ""}[branch "main"]\n\tremote = ${remoteName}\n`,
  );
  return dir;
}

interface Harness {
  editor: FakeEditor;
  ext: IssuepoolExtension;
  /** Every request the extension made (URL and headers). */
  requests: { url: string; headers: Record<string, string> }[];
  tick(): Promise<void>;
  browser?: BrowserRun;
}

function startExtension(folders: string[] = []): Harness {
  const editor = createFakeEditor({ workspaceFolders: folders, configuration: { "issuepool.platformUrl": stack.url } });
  const requests: Harness["requests"] = [];
  let interval: (() => void) | undefined;
  const ext = activateIssuepool(editor.vscode, editor.context, {
    fetch: (url, init) => {
      requests.push({ url, headers: { ...(init?.headers as Record<string, string>) } });
      return fetch(url, init);
    },
    timers: { setInterval: (callback) => (interval = callback), clearInterval: () => (interval = undefined) },
  });
  return {
    editor,
    ext,
    requests,
    tick: async () => {
      interval?.();
      await ext.wallet.refresh();
    },
  };
}

/** Sign In in the editor, with the browser played through the GitHub emulator as `login`. */
async function signIn(h: Harness, login: string): Promise<void> {
  h.editor.onOpenExternal = async (url) => {
    if (!url.includes("/api/auth/vscode/authorize")) return;
    h.browser = await signInInBrowser(url, login);
    // The browser opens the editor URI: VS Code hands it to the extension's URI handler.
    await h.editor.uriHandler().handleUri(FakeUri.parse(h.browser.handoffUri) as never);
  };
  await h.editor.executeCommand("issuepool.signIn");
  await h.ext.wallet.refresh();
}

const storedSession = (h: Harness) => JSON.parse(h.editor.context.secretValues.get(SESSION_SECRET_KEY) ?? "null") as { accessToken: string; account: { label: string } } | null;
const apiBalance = async (token: string) => (await (await fetch(`${stack.url}/api/wallet/info`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { balance: string; address: string };

describe("sign-in from the editor", () => {
  test("hand-over: state + PKCE, the browser through GitHub to our page, the code to the URI handler, the token into SecretStorage only", async () => {
    const h = startExtension();
    try {
      await h.ext.ready;
      expect(h.editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");
      await signIn(h, "bob");

      // What the editor opened: the platform's VS Code sign-in, with a state, an S256 challenge and our URI.
      const authorize = new URL(h.editor.opened[0]!);
      expect(authorize.origin + authorize.pathname).toBe(`${stack.url}/api/auth/vscode/authorize`);
      expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorize.searchParams.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(authorize.searchParams.get("redirect_uri")).toBe("vscode://issuepool.issuepool/auth");
      const state = authorize.searchParams.get("state")!;
      expect(new URL(h.browser!.handoffUri).searchParams.get("state")).toBe(state);
      // The browser ends on our page, not on GitHub's authorize page.
      expect(h.browser!.landedOn).toBe(`${stack.url}/vscode/signed-in`);

      const stored = storedSession(h)!;
      expect(stored.accessToken).toStartWith("ipv_");
      expect(stored.account.label).toBe("bob");
      const [row] = await stack.t.ctx.database.db.select().from(vscodeTokens).where(eq(vscodeTokens.tokenHash, hashToken(stored.accessToken)));
      expect(row!.userId).toBe(bob.user.id);
      // VS Code's Accounts see it.
      const sessions = await h.editor.authProvider().getSessions(undefined, {});
      expect(sessions.map((s) => s.account.label)).toEqual(["bob"]);
      expect(h.ext.auth.pendingStates()).toEqual([]);

      // The token: only in SecretStorage and the Authorization header; never in a URL or a log line.
      const urls = [...h.editor.opened, ...h.browser!.visited, h.browser!.handoffUri, ...h.requests.map((r) => r.url)];
      for (const url of urls) expect(url).not.toContain(stored.accessToken);
      expect(h.editor.logLines.join("\n")).not.toContain(stored.accessToken);
      expect(stack.t.log.lines.join("\n")).not.toContain(stored.accessToken);
      expect(h.requests.filter((r) => r.headers.Authorization).every((r) => r.url.startsWith(stack.url))).toBe(true);
      // The one-time code is not in a log line either, and it was used once.
      const code = new URL(h.browser!.handoffUri).searchParams.get("code")!;
      expect(h.editor.logLines.join("\n") + stack.t.log.lines.join("\n")).not.toContain(code);
      expect(h.requests.filter((r) => r.url.endsWith("/api/auth/vscode/token"))).toHaveLength(1);
    } finally {
      h.editor.dispose();
    }
  });

  test("the URI handler takes only a state this editor started: a stranger's link is refused and its code never sent", async () => {
    const h = startExtension();
    try {
      await h.ext.ready;
      await h.editor.uriHandler().handleUri(FakeUri.parse("vscode://issuepool.issuepool/auth?code=abc&state=made-up-state-0123456789") as never);
      expect(h.requests.some((r) => r.url.endsWith("/api/auth/vscode/token"))).toBe(false);
      expect(h.editor.shown.at(-1)).toMatchObject({ level: "warning", message: expect.stringContaining("not started here") });
      expect(h.editor.context.secretValues.has(SESSION_SECRET_KEY)).toBe(false);

      // A real code, for a sign-in this editor did not start (it was started elsewhere): refused too.
      const other = startExtension();
      try {
        let handoff = "";
        other.editor.onOpenExternal = async (url) => {
          if (!url.includes("/api/auth/vscode/authorize")) return;
          handoff = (await signInInBrowser(url, "bob")).handoffUri;
          await other.editor.uriHandler().handleUri(FakeUri.parse(handoff) as never);
        };
        await other.editor.executeCommand("issuepool.signIn");
        await h.editor.uriHandler().handleUri(FakeUri.parse(handoff) as never);
        expect(h.requests.some((r) => r.url.endsWith("/api/auth/vscode/token"))).toBe(false);
        expect(h.editor.context.secretValues.has(SESSION_SECRET_KEY)).toBe(false);
      } finally {
        other.editor.dispose();
      }
    } finally {
      h.editor.dispose();
    }
  });

  test("sign-out revokes the token on the platform and forgets it", async () => {
    const h = startExtension();
    try {
      await signIn(h, "bob");
      const token = storedSession(h)!.accessToken;
      await h.editor.executeCommand("issuepool.signOut");
      expect(h.requests.some((r) => r.url.endsWith("/api/auth/vscode/logout") && r.headers.Authorization === `Bearer ${token}`)).toBe(true);
      expect((await fetch(`${stack.url}/api/auth/user`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
      expect(h.editor.context.secretValues.has(SESSION_SECRET_KEY)).toBe(false);
      expect(await h.editor.authProvider().getSessions(undefined, {})).toEqual([]);
      await h.ext.wallet.refresh();
      expect(h.editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");
      expect(h.editor.statusBar[0]!.command).toBe("issuepool.signIn");
    } finally {
      h.editor.dispose();
    }
  });

  test("a 401 (the token revoked from the browser) drops the session and asks to sign in again", async () => {
    const h = startExtension();
    try {
      await signIn(h, "bob");
      expect(h.editor.statusBar[0]!.text).toContain("XDC");
      const revoked = await call(stack.t, "/api/auth/vscode/revoke", { as: bob, body: {} });
      expect(revoked.status).toBe(200);
      h.editor.answerNext("Sign In");
      let signInAgain = 0;
      h.editor.onOpenExternal = () => void signInAgain++;
      h.editor.focusWindow();
      await h.ext.wallet.refresh();
      expect(h.editor.context.secretValues.has(SESSION_SECRET_KEY)).toBe(false);
      expect(h.editor.shown.find((s) => s.message.startsWith("Your Issuepool sign-in has ended"))).toMatchObject({ level: "warning", items: ["Sign In"] });
      expect(h.editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");
      // "Sign In" was chosen: a new sign-in opened the browser (left unfinished; disposing the editor ends it).
      await eventually(async () => signInAgain === 1, 10_000, "a new sign-in");
    } finally {
      h.editor.dispose();
    }
  });
});

describe("the wallet in the editor", () => {
  test("the status bar shows the API's XDC balance to 4 decimals, and follows it on focus and on the interval", async () => {
    const h = startExtension();
    try {
      await signIn(h, "bob");
      const token = storedSession(h)!.accessToken;
      const { balance } = await apiBalance(token);
      // The contract's wei, as formatEther reads it.
      expect(formatEther(BigInt(balance))).toBe("12.345678901234567891");
      const shown = `$(credit-card) ${formatAmount(BigInt(balance), "XDC")} XDC`;
      expect(shown).toBe("$(credit-card) 12.3456 XDC");
      expect(h.editor.statusBar[0]!.text).toBe(shown);
      expect(h.editor.statusBar[0]!.command).toBe("issuepool.openWallet");

      await setXdc(bob, "1234.5");
      h.editor.focusWindow();
      await h.ext.wallet.refresh();
      expect(h.editor.statusBar[0]!.text).toBe("$(credit-card) 1,234.5000 XDC");
      await setXdc(bob, "0.00009");
      await h.tick();
      expect(h.editor.statusBar[0]!.text).toBe("$(credit-card) 0.0000 XDC");
    } finally {
      await setXdc(bob, "12.345678901234567891");
      h.editor.dispose();
    }
  });

  test("Open Wallet opens /vscode/wallet; Copy Address copies the address the API has", async () => {
    const h = startExtension();
    try {
      await h.editor.executeCommand("issuepool.copyAddress");
      expect(h.editor.clipboard.text).toBe("");
      await signIn(h, "alice");
      await h.editor.executeCommand("issuepool.openWallet");
      expect(h.editor.opened.at(-1)).toBe(`${stack.url}/vscode/wallet`);
      await h.editor.executeCommand("issuepool.copyAddress");
      const { address } = await apiBalance(storedSession(h)!.accessToken);
      expect(address).toMatch(/^xdc[0-9a-fA-F]{40}$/);
      expect(h.editor.clipboard.text).toBe(address);
    } finally {
      h.editor.dispose();
    }
  });

  test("changing the platform signs the editor out of the previous one (its token revoked there)", async () => {
    const h = startExtension();
    try {
      await signIn(h, "alice");
      const token = storedSession(h)!.accessToken;
      h.editor.setConfiguration("issuepool", "platformUrl", "http://127.0.0.1:9");
      await eventually(async () => !h.editor.context.secretValues.has(SESSION_SECRET_KEY), 10_000, "the session forgotten");
      expect((await fetch(`${stack.url}/api/auth/user`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
      // The token was never sent to the new platform.
      expect(h.requests.filter((r) => r.url.startsWith("http://127.0.0.1:9/")).every((r) => !r.headers.Authorization)).toBe(true);
    } finally {
      h.editor.dispose();
    }
  });
});

describe("Issuepool Bounties", () => {
  test("a workspace whose remote is a demo repository: its open bounties with amount, currency and state, signed out", async () => {
    const folder = await workspaceWithRemote(`${stack.github.webUrl}/${WALLET_KIT.fullName}.git`);
    const h = startExtension([folder]);
    try {
      await h.ext.ready;
      const items = await h.editor.treeItems("issuepool.bounties");
      expect(items.map((i) => [i.label, i.description])).toEqual([
        ["#1 Support xdc-prefixed addresses in the address parser", "25.0000 XDC · open"],
        ["#2 Nonce manager skips a nonce after a dropped transaction", "50.1234 XDC · claimed"],
        ["#4 Gas estimation is off by one block on Apothem", "150.00 ROXN · open"],
      ]);
      expect(items.every((i) => i.contextValue === "issuepool.bounty")).toBe(true);
      expect(h.editor.treeView("issuepool.bounties").description).toBe(WALLET_KIT.fullName);
      // Read through the public API, with no token.
      expect(h.requests.filter((r) => r.url.includes("/api/public/unified-repo/")).every((r) => !r.headers.Authorization)).toBe(true);

      // Clicking one opens the issue.
      await h.editor.executeCommand("issuepool.openIssue", items[0]!.node);
      expect(h.editor.opened.at(-1)).toBe(`${stack.github.webUrl}/${WALLET_KIT.fullName}/issues/1`);
    } finally {
      h.editor.dispose();
    }
  });

  test("an upstream remote wins (a fork works on its upstream's bounties); unknown repositories and folders without a remote say so", async () => {
    const fork = await workspaceWithRemote(`git@github.com:${WALLET_KIT.fullName}.git`, "upstream");
    const unknown = await workspaceWithRemote("https://github.com/nobody/nothing-here.git");
    const bare = await workspaceWithRemote(null);
    for (const [folders, expected] of [
      [[fork], 3],
      [[unknown], "nobody/nothing-here is not on Issuepool yet."],
      [[bare], "No GitHub remote found in this workspace."],
      [[], "Open a folder with a GitHub repository to see its Issuepool bounties."],
    ] as const) {
      const h = startExtension([...folders]);
      try {
        await h.ext.ready;
        const items = await h.editor.treeItems("issuepool.bounties");
        if (typeof expected === "number") expect(items).toHaveLength(expected);
        else {
          expect(items).toHaveLength(0);
          expect(h.editor.treeView("issuepool.bounties").message).toContain(expected);
        }
      } finally {
        h.editor.dispose();
      }
    }
  });

  test("Claim Bounty follows the /attempt rule: a contributor goes on to Contribute in the browser, a pool manager is told why not", async () => {
    const folder = await workspaceWithRemote(`${stack.github.webUrl}/${WALLET_KIT.fullName}`);
    const contributor = startExtension([folder]);
    const manager = startExtension([folder]);
    try {
      await contributor.ext.ready;
      const [first] = contributor.ext.bounties.bounties();
      // Signed out: asked to sign in first; declining changes nothing.
      expect(await contributor.editor.executeCommand("issuepool.claimBounty", first)).toBe("cancelled");
      expect(contributor.editor.shown.at(-1)).toMatchObject({ message: "Sign in to Issuepool to claim a bounty.", items: ["Sign In"] });

      await signIn(contributor, "bob");
      expect(await contributor.editor.executeCommand("issuepool.claimBounty", first)).toBe("opened");
      expect(contributor.editor.opened.at(-1)).toBe(`${stack.url}/repos/issuepool-demo/xdc-wallet-kit?contribute=1`);

      await signIn(manager, "alice");
      const opened = manager.editor.opened.length;
      expect(await manager.editor.executeCommand("issuepool.claimBounty", manager.ext.bounties.bounties()[2] as BountyNode)).toBe("refused");
      expect(manager.editor.shown.at(-1)).toMatchObject({ level: "warning", message: "Only contributors can take on an issue; your Issuepool role is pool manager." });
      expect(manager.editor.opened).toHaveLength(opened);
    } finally {
      contributor.editor.dispose();
      manager.editor.dispose();
    }
  });
});
