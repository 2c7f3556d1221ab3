import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { createFakeEditor, FakeUri } from "../vscode-extension/test/fake-vscode.ts";
import { activateIssuepool } from "../vscode-extension/src/activate.ts";
import { SESSION_SECRET_KEY } from "../vscode-extension/src/auth.ts";
import { formatAmount } from "../lib/money-format.ts";

/**
 * The editor sign-in end to end on the dev stack: the extension (in a fake
 * editor: VS Code cannot be downloaded here) starts the sign-in, Chromium
 * plays the person's browser through the GitHub emulator, our page hands the
 * code to the extension's URI handler, and the status bar reads the wallet.
 * carol's wallet is touched by no other journey, so its balance holds still.
 */
test("VS Code: sign in from the editor through GitHub, hand-over to the URI handler, the status bar reads the wallet; no token in any URL or log line", async ({ page, baseURL }) => {
  const editor = createFakeEditor({ configuration: { "issuepool.platformUrl": baseURL } });
  const extensionUrls: string[] = [];
  const ext = activateIssuepool(editor.vscode, editor.context, {
    fetch: (url, init) => {
      extensionUrls.push(url);
      return fetch(url, init);
    },
  });
  const browserUrls: string[] = [];
  page.on("request", (request) => browserUrls.push(request.url()));
  page.on("framenavigated", (frame) => browserUrls.push(frame.url()));
  try {
    await ext.ready;
    expect(editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");

    // Issuepool: Sign In. The extension opens the browser on the platform's VS Code sign-in.
    const signingIn = editor.executeCommand("issuepool.signIn");
    await expect.poll(() => editor.opened.length).toBe(1);
    const authorize = new URL(editor.opened[0]!);
    expect(authorize.pathname).toBe("/api/auth/vscode/authorize");
    await page.goto(authorize.toString());

    // Signed out: the VS Code card, then GitHub (the emulator's authorize page), as carol.
    await expect(page.getByRole("heading", { name: "Sign in for VS Code" })).toBeVisible();
    await page.getByRole("link", { name: "Continue with GitHub" }).click();
    await page.locator('button[name="login"][value="carol"]').click();

    // The browser lands on our page, not on the emulator's: it says so and offers to open VS Code again.
    await expect(page.getByRole("heading", { name: "Signed in: you can return to VS Code" })).toBeVisible();
    expect(new URL(page.url()).pathname).toBe("/vscode/signed-in");
    const handoff = (await page.getByRole("link", { name: "Open VS Code" }).getAttribute("href"))!;
    const handoffUri = new URL(handoff);
    expect(`${handoffUri.protocol}//${handoffUri.host}${handoffUri.pathname}`).toBe("vscode://issuepool.issuepool/auth");
    expect(handoffUri.searchParams.get("state")).toBe(authorize.searchParams.get("state"));

    // The operating system hands the editor URI to VS Code, which gives it to the extension's URI handler.
    await editor.uriHandler().handleUri(FakeUri.parse(handoff) as never);
    await signingIn;
    const token = (JSON.parse(editor.context.secretValues.get(SESSION_SECRET_KEY)!) as { accessToken: string }).accessToken;
    expect(token).toMatch(/^ipv_/);

    // The status bar reads the wallet: the API's XDC balance, to 4 decimals.
    await ext.wallet.refresh();
    const info = (await (await page.request.get("/api/wallet/info")).json()) as { balance: string };
    // The contract's balance is wei (spec section 3).
    expect(editor.statusBar[0]!.text).toBe(`$(credit-card) ${formatAmount(BigInt(info.balance), "XDC")} XDC`);
    expect(editor.statusBar[0]!.text).toMatch(/^\$\(credit-card\) \d[\d,]*\.\d{4} XDC$/);

    // No token in any URL: the browser's, the editor's, the extension's calls.
    const code = handoffUri.searchParams.get("code")!;
    for (const url of [...browserUrls, ...editor.opened, ...extensionUrls, handoff]) expect(url).not.toContain(token);
    // The code travelled only in the editor URI, never in one of the site's http URLs.
    for (const url of browserUrls.filter((u) => u.startsWith("http"))) expect(url).not.toContain(code);
    // Nor in a log line: the extension's output, and the server's log (the exchange is in it, so it was written).
    expect(editor.logLines.join("\n")).not.toContain(token);
    const serverLog = join(process.env.E2E_DATA_DIR!, "server.log");
    await expect.poll(() => readFileSync(serverLog, "utf8").includes("/api/auth/vscode/token")).toBe(true);
    const logged = readFileSync(serverLog, "utf8");
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(code);

    // Sign Out from the editor: revoked on the platform.
    await editor.executeCommand("issuepool.signOut");
    // (Asked without the browser's cookies: a session cookie would answer for the browser instead.)
    expect((await fetch(`${baseURL}/api/auth/user`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    await ext.wallet.refresh();
    expect(editor.statusBar[0]!.text).toBe("$(account) Issuepool: Sign In");
  } finally {
    editor.dispose();
  }
});
