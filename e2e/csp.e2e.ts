import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * Every page loads under its Content-Security-Policy with nothing refused
 * (issue 15, finding 4): the policy is strict (scripts only from this site or
 * by hash, no plugins, no <base>, forms and connections to this site), and a
 * page whose island or inline script it refused would be broken, so any
 * `securitypolicyviolation` event, or a console line about one, fails the test.
 */
const SIGNED_OUT = ["/", "/repos", "/faq", "/auth", "/auth?source=vscode&from_vscode=true", "/issuepool-demo/xdc-wallet-kit", "/repos/issuepool-demo/xdc-wallet-kit", "/register/contributor", "/embed/issuepool-demo/xdc-wallet-kit", "/embed/issuepool-demo/xdc-wallet-kit?theme=dark", "/vscode/wallet", "/vscode/signed-in", "/no/such/page/here"];
const SIGNED_IN = ["/repos", "/profile", "/wallet", "/my-repos", "/repos/issuepool-demo/xdc-wallet-kit", "/issuepool-demo/xdc-wallet-kit", "/vscode/wallet", "/repos/register", "/faq"];

async function watchViolations(page: Page): Promise<string[]> {
  const seen: string[] = [];
  await page.exposeFunction("__cspViolation", (text: string) => seen.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __cspViolation(text: string): void }).__cspViolation(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  page.on("console", (message) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(message.text())) seen.push(`console: ${message.text()}`);
  });
  return seen;
}

async function visit(page: Page, path: string, violations: string[]): Promise<void> {
  const before = violations.length;
  await page.goto(path);
  // Back from VS Code without a session, the page leaves by itself once hydrated (the loop guard's silent sign-in):
  // wait for that, or the scroll below may run in a page that is going away (a busy machine hydrates late).
  if (path.includes("from_vscode=true")) await page.waitForURL((url) => url.pathname !== "/auth");
  await page.waitForLoadState("networkidle");
  // Islands hydrate on idle or when visible: scroll to the bottom so every one gets its chance. (The wheel, not a
  // script: a page that moves on by itself, like the editor's sign-in loop guard, would destroy the script's context.)
  await page.mouse.wheel(0, 20_000);
  await page.waitForLoadState("networkidle");
  expect(violations.slice(before), `${path}: Content-Security-Policy violations`).toEqual([]);
}

test("every page, signed out, loads with no Content-Security-Policy violation", async ({ page }) => {
  const violations = await watchViolations(page);
  for (const path of SIGNED_OUT) await visit(page, path, violations);
  // The policy really is there: a page carries it, and the board's own is stricter.
  const board = await page.request.get("/embed/issuepool-demo/xdc-wallet-kit");
  expect(board.headers()["content-security-policy"]).toContain("default-src 'none'");
  const policy = (await page.request.get("/repos")).headers()["content-security-policy"] ?? "";
  for (const part of ["object-src 'none'", "base-uri 'none'", "form-action 'self'", "connect-src 'self'", "script-src 'self' 'sha256-", "frame-ancestors 'none'"]) expect(policy).toContain(part);
  expect(policy).not.toContain("'unsafe-eval'");
  expect(policy).not.toMatch(/script-src[^;]*'unsafe-inline'/);
});

test("every page, signed in as a pool manager, loads with no Content-Security-Policy violation", async ({ page }) => {
  const violations = await watchViolations(page);
  await signIn(page, "alice", "/repos");
  for (const path of SIGNED_IN) await visit(page, path, violations);
});

test("an inline script that is not ours is refused", async ({ page }) => {
  const violations = await watchViolations(page);
  await page.goto("/faq");
  // As if a page had let markup through: the browser refuses to run it, and says so.
  const ran = await page.evaluate(async () => {
    const s = document.createElement("script");
    s.textContent = "window.__injected = true";
    document.body.appendChild(s);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return (window as unknown as { __injected?: boolean }).__injected === true;
  });
  expect(ran).toBe(false);
  await expect.poll(() => violations.length).toBeGreaterThan(0);
});
