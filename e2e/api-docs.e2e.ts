import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";

/**
 * The API reference (issue 17): linked from the footer, rendered by the
 * viewer served from this origin, with no request leaving the machine and
 * nothing refused by its Content-Security-Policy, and accessible.
 */
test("the footer leads to the API reference, which renders the document offline and passes axe", async ({ page, baseURL }) => {
  // The viewer is 4.3 MB of JavaScript: on this machine, idle, it renders the document 9-11 s after the click
  // (parsing, then /api/openapi.json); beside the suite's other worker and a busy CPU it took over 20 s (CI run).
  test.setTimeout(180_000);
  const origin = new URL(baseURL!).origin;
  const elsewhere: string[] = [];
  const violations: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== origin && url.protocol !== "data:" && url.protocol !== "blob:") elsewhere.push(request.url());
  });
  // Anything that would leave the machine is refused here too, and counted above.
  await page.route((url) => url.origin !== origin && url.protocol.startsWith("http"), (route) => route.abort());
  await page.exposeFunction("__cspViolation", (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      (window as unknown as { __cspViolation(text: string): void }).__cspViolation(`${location.pathname}: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber}:${e.columnNumber})`);
    });
  });

  await page.goto("/faq");
  await page.getByRole("contentinfo").getByRole("link", { name: "API" }).click();
  await expect(page).toHaveURL(/\/api\/docs$/);
  await expect(page.getByRole("heading", { name: "Issuepool API", level: 1 })).toBeVisible({ timeout: 120_000 });
  // Operations of the document are there, by their summaries, grouped by tag.
  await expect(page.getByRole("link", { name: /Starts a GitHub sign-in/ })).toBeVisible();
  await page.getByRole("button", { name: "Open Group - blockchain" }).click();
  await expect(page.getByRole("link", { name: /Funds the repository's pool with XDC/ })).toBeVisible();
  await page.waitForLoadState("networkidle");

  expect(elsewhere, "requests that left the machine").toEqual([]);
  expect(violations, "Content-Security-Policy violations").toEqual([]);
  const policy = (await page.request.get("/api/docs")).headers()["content-security-policy"] ?? "";
  for (const part of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) expect(policy).toContain(part);
  expect(policy).not.toContain("unsafe-eval");

  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  const reported = results.violations.filter((v) => ["moderate", "serious", "critical"].includes(v.impact ?? ""));
  expect(reported.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n  ")}`)).toEqual([]);
});

test("the document is served as OpenAPI 3.1, readable from any origin", async ({ request }) => {
  const res = await request.get("/api/openapi.json");
  expect(res.status()).toBe(200);
  expect(res.headers()["access-control-allow-origin"]).toBe("*");
  const document = await res.json();
  expect(document.openapi).toBe("3.1.0");
  expect(Object.keys(document.paths)).toContain("/api/public/unified-repo/{owner}/{repo}");
});
