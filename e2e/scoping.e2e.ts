import AxeBuilder from "@axe-core/playwright";
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";

/**
 * The AI Project Scoping Agent (issue 12) on the demo stack: the built-in
 * planner, the real worker, the GitHub emulator and the chain. Plans made
 * here become issues and USDC bounties of issuepool-demo/tool-library,
 * which no other journey reads.
 */
const REQUIREMENTS = readFileSync(new URL("../api/services/scoping/fixtures/requirements.md", import.meta.url), "utf8");
/** Twelve requirements (FR-1 … FR-7, NFR-1 … NFR-5) in three milestones: a 12-task plan (issue 28). */
const CLINICPING = readFileSync(new URL("../testing/scoping-eval/clinicping.md", import.meta.url), "utf8");
const emulatorApi = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}/api/v3`;
const TOOL_LIBRARY = { id: 5007, fullName: "issuepool-demo/tool-library" };

async function expectNoSeriousViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** A real drag and drop of a file onto the drop zone. */
async function dropFile(page: Page, name: string, content: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ([fileName, text]) => {
      const data = new DataTransfer();
      data.items.add(new File([text], fileName, { type: "text/markdown" }));
      return data;
    },
    [name, content] as const,
  );
  await page.dispatchEvent("[data-dropzone]", "dragover", { dataTransfer: transfer });
  await page.dispatchEvent("[data-dropzone]", "drop", { dataTransfer: transfer });
}

test("signed out: the spec's sign-in text, no support chat widget, nothing to upload; axe clean", async ({ page }) => {
  await page.goto("/ai-scoping-agent");
  await expect(page.getByRole("heading", { name: "AI Project Scoping Agent", level: 1 })).toBeVisible();
  await expect(page.locator("[data-scoping-signin]")).toContainText("You must be logged in to use the AI Scoping Agent.");
  await expect(page.locator("#scoping-file")).toBeDisabled();
  // The support widget's loader is on every other page (spec section 2), not this one.
  await expect(page.locator("script[data-src]")).toHaveCount(0);
  await page.goto("/faq");
  await expect(page.locator("script[data-src]")).toHaveCount(1);
  await page.goto("/ai-scoping-agent");
  await expectNoSeriousViolations(page);
  // The Help menu links to it.
  await page.getByRole("button", { name: "Help & Guides" }).click();
  await expect(page.getByRole("menuitem", { name: "AI Project Scoping" })).toHaveAttribute("href", "/ai-scoping-agent");
});

test("drop a document: status while it works, the page asks every 3 s until completed, then the plan", async ({ page }) => {
  // A sign-in, an upload read by the niced extraction processes and polls every 3 s: over a minute on busy cores (CI run).
  test.slow();
  await signIn(page, "bob", "/ai-scoping-agent");
  // The page's own clock (faked) stamps when each scoping call is sent and answered.
  await page.addInitScript(() => {
    const log: { kind: "upload" | "poll"; sent: number; answered?: number }[] = [];
    (window as unknown as { __scoping: typeof log }).__scoping = log;
    const original = window.fetch.bind(window);
    window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input instanceof Request ? input.url : input);
      const kind = url.includes("/api/ai-scoping/upload") ? "upload" : /\/api\/ai-scoping\/results\/[a-z2-7]{24}$/.test(url) ? "poll" : undefined;
      if (!kind) return original(input, init);
      const entry: (typeof log)[number] = { kind, sent: Date.now() };
      log.push(entry);
      const response = await original(input, init);
      entry.answered = Date.now();
      return response;
    }) as typeof fetch;
  });
  await page.clock.install({ time: new Date("2026-11-24T10:00:00Z") });
  await page.reload();
  // Time stands still from here: only runFor moves it, so the 3 s are counted exactly.
  await page.clock.pauseAt(new Date("2026-11-24T10:00:05Z"));
  type Entry = { kind: string; sent: number; answered?: number };
  const calls = () => page.evaluate(() => (window as unknown as { __scoping: Entry[] }).__scoping);
  /** Moves the page's clock by `ms`, then lets every call it started be answered and handled. */
  const advance = async (ms: number) => {
    await page.clock.runFor(ms);
    await expect.poll(async () => (await calls()).every((c) => c.answered !== undefined)).toBe(true);
    await page.evaluate(() => new Promise((resolve) => { const channel = new MessageChannel(); channel.port1.onmessage = resolve; channel.port2.postMessage(0); }));
  };

  await dropFile(page, "tool-library.md", REQUIREMENTS);
  await expect(page.locator("[data-scoping-status]")).toContainText(/Queued|Reading the document/);
  await advance(0);
  for (let step = 0; step < 40 && (await page.locator("[data-plan]").count()) === 0; step++) await advance(500);
  await expect(page.locator("[data-plan-name]")).toHaveText("Requirements: Neighbourhood Tool Library");
  await expect(page.locator("[data-scoping-status]")).toContainText("Plan ready.");
  const log = await calls();
  expect(log[0]!.kind).toBe("upload");
  const polls = log.slice(1);
  expect(polls.length).toBeGreaterThan(0);
  // Each call is sent 3 s after the previous one was answered.
  for (let i = 0; i < polls.length; i++) expect(polls[i]!.sent - log[i]!.answered!).toBe(3000);
  // Completed: no more calls.
  for (let i = 0; i < 10; i++) await advance(1500);
  expect(await calls()).toHaveLength(log.length);

  // The plan as a person reads it: which planner made it, phases, one task per requirement with complexity, its reasons and dependency links.
  await expect(page.locator('[data-planner="builtin"]')).toContainText("Built-in planner: reads the document's structure. A configured language model gives richer plans.");
  await expect(page.locator('[data-planner="builtin"]').getByRole("link", { name: "How to set one up" })).toHaveAttribute("href", "/faq#technical");
  await expect(page.locator("[data-order-of-work]")).toContainText("Phase 1");
  await expect(page.locator("[data-task]")).toHaveCount(23);
  const reset = page.locator('[data-task="4"]');
  await expect(reset).toContainText("Let users reset a forgotten password by e-mail");
  await expect(reset.getByRole("link", { name: "#1 Let users sign up with an e-mail address and a password" })).toHaveAttribute("href", "#task-1");
  await expect(page.locator("[data-task]").filter({ has: page.getByRole("heading", { name: /Take the deposit through a third-party payment provider/ }) }).locator("[data-complexity-reasons]")).toHaveText("High: payments, external API");
  // Contributors see no issue creation.
  await expect(page.locator("[data-open-create-issues]")).toHaveCount(0);
  // The plan is listed among the earlier ones and its address can be kept.
  expect(page.url()).toMatch(/\?job=[a-z2-7]{24}$/);
  await expect(page.locator("[data-earlier-plans]")).toContainText("Requirements: Neighbourhood Tool Library");
  // Plans of one day are told apart: the time and the file name.
  await expect(page.locator("[data-earlier-meta]").first()).toContainText(/Ready · .*\d{1,2}:\d{2}.* · tool-library\.md/);
  await page.clock.resume();
  await expectNoSeriousViolations(page);
});

test("failures show the spec's texts", async ({ page }) => {
  await signIn(page, "carol", "/ai-scoping-agent");
  const error = page.locator("[data-scoping-error]");
  // A type the agent cannot read, whatever its name.
  await page.locator("#scoping-file").setInputFiles({ name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]) });
  await expect(error).toContainText("File upload failed.");
  await expect(error).toContainText("This file type is not supported.");

  // The network fails while polling; the job fails; the server answers nonsense.
  const cases: [string, (route: import("@playwright/test").Route) => Promise<void>][] = [
    ["Failed to fetch results.", (route) => route.fulfill({ status: 503, json: { error: "Service Unavailable", message: "The server is restarting." } })],
    ["Failed to process the document.", async (route) => route.fulfill({ json: { ...(await (await route.fetch()).json()), status: "failed", result: null, error: "The plan could not be made." } })],
    ["An unknown error occurred.", (route) => route.fulfill({ status: 200, contentType: "application/json", body: "" })],
  ];
  for (const [text, answer] of cases) {
    await page.route(/\/api\/ai-scoping\/results\/[a-z2-7]{24}$/, answer);
    await page.locator("#scoping-file").setInputFiles({ name: "req.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n## Search\n- Users must find tools.") });
    await expect(error).toContainText(text, { timeout: 15_000 });
    await page.unroute(/\/api\/ai-scoping\/results\/[a-z2-7]{24}$/);
  }

  // A configured model whose plan was not used: the page says so beside the built-in plan.
  await page.route(/\/api\/ai-scoping\/results\/[a-z2-7]{24}$/, async (route) => {
    const job = await (await route.fetch()).json();
    await route.fulfill({ json: { ...job, planner: "builtin", fallback: job.status === "completed" ? "The language model's plan left requirements out." : null } });
  });
  await page.locator("#scoping-file").setInputFiles({ name: "req.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\n## Search\n- Users must find tools.") });
  await expect(page.locator("[data-planner-fallback]")).toHaveText("The language model's plan left requirements out. The built-in plan is shown instead.", { timeout: 15_000 });
  await page.unroute(/\/api\/ai-scoping\/results\/[a-z2-7]{24}$/);
});

test("a pool manager turns a 12-task plan into 12 GitHub issues with their bodies and USDC bounties on chain", async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page, "alice", "/ai-scoping-agent");
  await page.locator("#scoping-file").setInputFiles({ name: "clinicping.md", mimeType: "text/markdown", buffer: Buffer.from(CLINICPING) });
  await expect(page.locator("[data-plan-name]")).toHaveText("ClinicPing - Requirements Specification v1.2", { timeout: 20_000 });
  await expect(page.locator("[data-task]")).toHaveCount(12);
  await expect(page.locator("[data-phase-name]")).toHaveText(["Phase 1: M1 Pilot (March)", "Phase 2: M2 Waiting list (May)", "Phase 3: M3 Reporting (July)"]);
  await page.locator("[data-open-create-issues]").click();
  const panel = page.locator("[data-create-issues]");
  await panel.locator("[data-scoping-repo]").selectOption({ label: TOOL_LIBRARY.fullName });
  // Every task is chosen.
  await panel.locator("[data-scoping-with-bounty]").check();
  await panel.getByLabel("Currency").selectOption("USDC");
  await panel.locator("[data-scoping-amount]").fill("1");
  await panel.locator("[data-scoping-create]").click();
  const dialog = page.getByRole("dialog", { name: "Create these issues?" });
  await expect(dialog).toContainText("12 issues will be opened in issuepool-demo/tool-library");
  await expect(dialog).toContainText("12.00 USDC in all");
  await dialog.locator("[data-scoping-confirm]").click();
  const issues = panel.locator("[data-scoped-issues]");
  await expect(issues.locator("[data-scoped-issue]")).toHaveCount(12, { timeout: 30_000 });
  // Each bounty shows as it confirms.
  await expect(issues.locator('[data-bounty-status="confirmed"]')).toHaveCount(12, { timeout: 120_000 });

  const numbers = await issues.getByRole("link", { name: /Issue #\d+/ }).evaluateAll((links) => links.map((a) => Number(a.textContent!.match(/#(\d+)/)![1])));
  expect(numbers).toHaveLength(12);
  // On GitHub (the emulator): the issues with their bodies (the requirement and its identifier, the complexity's reasons, the phase, the dependency links).
  const bodies = await Promise.all(numbers.map(async (n) => (await (await page.request.get(`${emulatorApi}/repos/${TOOL_LIBRARY.fullName}/issues/${n}`)).json()) as { title: string; body: string; labels: { name: string }[] }));
  const importTask = bodies.find((b) => b.title === "Import appointments from MedDesk every 15 minutes")!;
  expect(importTask.body).toContain("FR-1: The system shall import appointments from MedDesk every 15 minutes.");
  expect(importTask.body).toContain("**Estimated complexity:** Medium: external API (MedDesk), scheduled job");
  expect(importTask.body).toContain("**Phase:** M1 Pilot (March)");
  const report = bodies.find((b) => b.body.includes("FR-7:"))!;
  expect(report.body).toContain(`- Depends on #${numbers[bodies.indexOf(importTask)]}`);
  for (const b of bodies) expect(b.labels.map((l) => l.name)).toEqual(["issuepool"]);
  // On chain, as the platform's mirror of the contract reports it.
  const pool = (await (await page.request.get(`/api/blockchain/pool-info/${TOOL_LIBRARY.id}`)).json()) as { issues: { issueId: number; currency: string; usdcAmount: string; status: string }[] };
  for (const n of numbers) expect(pool.issues.find((b) => b.issueId === n)).toMatchObject({ currency: "USDC", usdcAmount: "1", status: "open" });

  // After a reload the plan still says which tasks were opened as issues (issue 38: it no longer did).
  await page.reload();
  await expect(page.locator("[data-task-issue]")).toHaveCount(12, { timeout: 20_000 });
  await expect(page.locator("[data-task-issue]").first()).toContainText("with a bounty of 1.00 USDC");
  expect((await page.locator("[data-task-issue]").evaluateAll((items) => items.map((i) => Number(i.getAttribute("data-task-issue"))))).sort((a, b) => a - b)).toEqual([...numbers].sort((a, b) => a - b));
});
