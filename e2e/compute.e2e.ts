import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { signIn } from "./support.ts";

/**
 * The compute network in Chromium, against the dev stack (which runs one
 * paired demo node of alice's): the chat and the Provider Hub answer from
 * the header's links; signed out, the chat asks to sign in; carol runs the
 * command her hub shows (a real agent process), approves its code on the
 * hub, chats (Enter sends, an empty prompt sends nothing) until her node
 * has answered and her units grow, and revokes it. Only carol's nodes and
 * units change; no other journey reads them.
 */
const ROOT = resolve(import.meta.dirname, "..");

async function expectAxeClean(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n  ${v.nodes.map((n) => n.target.join(" ")).slice(0, 5).join("\n  ")}`);
  expect(summary, `${what}: accessibility violations`).toEqual([]);
}

/** Nothing wider than a 375 px phone: no sideways scrolling. */
async function expectFitsPhone(page: Page, what: string): Promise<void> {
  await page.setViewportSize({ width: 375, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${what} scrolls sideways at 375 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });
}

const networkCard = (page: Page) => page.locator("[data-network-status]");
const onlineCount = async (page: Page) => Number(/^(\d+) \/ (\d+) online$/.exec((await networkCard(page).textContent()) ?? "")?.[1] ?? -1);

test("signed out: the header's Chat opens the chat, which asks to sign in and shows the network; the Provider Hub asks to sign in", async ({ page }) => {
  await page.goto("/repos");
  await page.getByRole("banner").getByRole("link", { name: "Chat" }).first().click();
  await expect(page).toHaveURL(/\/decentralized-chat$/);
  await expect(page.getByRole("heading", { name: "Decentralized AI Chat" })).toBeVisible();
  await expect(page.getByText("Please sign in to use the decentralized chat.")).toBeVisible();
  // the demo node of the embedded default
  await expect(networkCard(page)).toHaveText(/^\d+ \/ \d+ online$/);
  expect(await onlineCount(page)).toBeGreaterThanOrEqual(1);
  await expect(page.getByRole("textbox", { name: "Your message" })).toHaveCount(0);
  await expectAxeClean(page, "chat, signed out");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  await expectAxeClean(page, "chat, signed out, dark theme");
  await expectFitsPhone(page, "chat, signed out");

  for (const path of ["/decentralized-chat", "/provider-hub"]) {
    const res = await page.request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).not.toBe(404);
  }
  await page.goto("/provider-hub");
  await expect(page).toHaveURL(/\/auth\?returnTo=%2Fprovider-hub$/);
});

test("carol pairs a node from her hub, chats with it (Enter sends, an empty prompt sends nothing), earns units, and revokes it", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, "carol", "/repos");
  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: "Provider Hub" }).click();
  await expect(page).toHaveURL(/\/provider-hub$/);
  await expect(page.getByRole("heading", { name: "Provider Hub", level: 1 })).toBeVisible();
  const command = (await page.getByTestId("start-command").textContent())!.trim();
  expect(command).toMatch(/^npm run node-agent -- --server http:\/\/localhost:\d+ --wallet xdc[0-9a-fA-F]{40}$/);
  await expect(page.locator("[data-compute-units]")).toHaveText(/^\d[\d,]*$/);
  const unitsBefore = Number((await page.locator("[data-compute-units]").textContent())!.replace(/,/g, ""));
  await expectAxeClean(page, "provider hub");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAxeClean(page, "provider hub, dark theme");
  await page.emulateMedia({ colorScheme: "light" });
  await expectFitsPhone(page, "provider hub");

  // Run exactly the command the hub shows, pasted into a shell of a fresh clone after `npm install`: no `bun` on
  // the PATH (issue 27: "bun: command not found"), only Node and npm. A state directory of its own, JSON logs.
  const stateDir = mkdtempSync(join(tmpdir(), "issuepool-e2e-node-"));
  const logFile = join(stateDir, "agent.log");
  const pathWithoutBun = [dirname(process.execPath), "/usr/bin", "/bin"].join(":");
  expect(spawnSync("sh", ["-c", "command -v bun"], { env: { PATH: pathWithoutBun } }).status, "no bun on the PATH").not.toBe(0);
  let agent: ChildProcess | undefined;
  try {
    const { openSync } = await import("node:fs");
    const out = openSync(logFile, "a");
    // A process group of its own (shell, npm, npm's shell, the agent): the cleanup signals all of them.
    agent = spawn("sh", ["-c", `exec ${command} --state-dir ${stateDir} --log json --name carol-laptop`], {
      cwd: ROOT,
      detached: true,
      env: { PATH: pathWithoutBun, HOME: process.env.HOME ?? tmpdir() },
      stdio: ["ignore", out, out],
    });
    const logLines = () =>
      readFileSync(logFile, "utf8")
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { msg: string; code?: string; nodeId?: string });
    let code = "";
    await expect.poll(() => (code = logLines().find((l) => l.msg === "pairing code")?.code ?? "")).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);

    // Approve it on the hub.
    await page.getByLabel("Pairing code").fill(code);
    await page.getByRole("button", { name: "Find node" }).click();
    await expect(page.locator(`[data-pairing="${code}"]`)).toContainText("carol-laptop");
    await page.getByRole("button", { name: `Approve node ${code}` }).click();
    await expect(page.getByText("Node approved", { exact: true })).toBeVisible();
    await expect.poll(() => logLines().find((l) => l.msg === "node ready")?.nodeId ?? "").toMatch(/^node_/);
    const nodeId = logLines().find((l) => l.msg === "node ready")!.nodeId!;
    const row = page.locator(`[data-node-id="${nodeId}"]`);
    await expect(row).toContainText("carol-laptop");
    await expect(row).toContainText("Online");
    await expect(page.locator("[data-node-status]")).toHaveText("Online");

    // The chat: the network now counts carol's node too.
    await page.getByRole("banner").getByRole("link", { name: "Chat" }).first().click();
    await expect(page).toHaveURL(/\/decentralized-chat$/);
    await expect.poll(() => onlineCount(page), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    const dispatched: string[] = [];
    page.on("request", (r) => r.url().endsWith("/api/node/dispatch-task") && dispatched.push(r.postData() ?? ""));
    const box = page.getByRole("textbox", { name: "Your message" });
    await box.focus();
    await page.keyboard.press("Enter");
    await box.fill("   ");
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Send" }).click();
    await expect(page.locator("[data-message]")).toHaveCount(0);
    expect(dispatched).toEqual([]);
    await expectAxeClean(page, "chat, signed in");
    await expectFitsPhone(page, "chat, signed in");

    // Ask until carol's own node has answered one (nodes take turns; alice's demo node may answer first).
    const unitsOf = async () => ((await (await page.request.get("/api/node/compute-units")).json()) as { computeUnits: number }).computeUnits;
    for (let i = 1; i <= 4 && (await unitsOf()) === unitsBefore; i++) {
      await box.fill(`Question ${i}: what is a compute node?`);
      await box.press("Enter");
      await expect(page.locator('[data-message="node"]')).toHaveCount(i, { timeout: 30_000 });
      await expect(page.locator('[data-message="node"]').nth(i - 1)).toContainText(`Demo node answer: you asked "Question ${i}: what is a compute node?"`);
      expect(dispatched).toHaveLength(i);
    }
    await expect(box).toHaveValue("");

    // The hub shows the units carol's node earned, then she revokes it.
    await page.goto("/provider-hub");
    await expect.poll(async () => Number(((await page.locator("[data-compute-units]").textContent()) ?? "").replace(/,/g, "")) || 0).toBeGreaterThan(unitsBefore);
    await expect(row.locator("[data-node-units]")).not.toContainText(/^0 units$/);
    // One unit is "1 unit" (issue 27: "1 units").
    await expect(row.locator("[data-node-units]")).toHaveText(/^(1 unit|(0|[2-9]|\d[\d,]+) units)$/);
    await row.getByRole("button", { name: /^Revoke/ }).click();
    await page.getByRole("dialog", { name: "Revoke this node?" }).getByRole("button", { name: "Revoke node" }).click();
    await expect(row).toHaveCount(0);
    // the agent learns at its next call and stops (exit code 3: revoked)
    await expect.poll(() => agent!.exitCode, { timeout: 30_000 }).toBe(3);
  } finally {
    if (agent && agent.exitCode === null) process.kill(-agent.pid!, "SIGTERM");
    rmSync(stateDir, { recursive: true, force: true });
  }
});
