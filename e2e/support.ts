import { expect, type Locator, type Page } from "@playwright/test";

/**
 * Signs in through the real flow: the platform's /auth page, the GitHub
 * emulator's authorize page (choosing a demo user), and back.
 */
export async function signIn(page: Page, login: string, returnTo = "/repos"): Promise<void> {
  await page.goto(`/auth?returnTo=${encodeURIComponent(returnTo)}`);
  await page.getByRole("link", { name: "Sign in with GitHub" }).click();
  await page.locator(`button[name="login"][value="${login}"]`).click();
  await page.waitForURL((url) => url.port === new URL(page.url()).port && !url.pathname.startsWith("/api/"));
}

/** The header shows the signed-in account once the session has loaded. */
export async function expectSignedIn(page: Page): Promise<void> {
  await expect(page.getByRole("button", { name: "Account menu" })).toBeVisible();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
}

/**
 * A figure as the page shows it ("1,234.5000 XDC", "₹150") in units of 10^-decimals: money is compared
 * exactly, as integers, never as floats.
 */
export function shownUnits(text: string, decimals: number): bigint {
  const [whole = "0", fraction = ""] = text.replace(/[^\d.]/g, "").split(".");
  if (fraction.length > decimals) throw new Error(`${text} has more than ${decimals} decimals`);
  return BigInt(whole + fraction.padEnd(decimals, "0"));
}

/** `units` (in 10^-decimals) as the pages show an amount: en-US grouping, exactly `decimals` decimals. */
export function showUnits(units: bigint, decimals: number): string {
  const digits = units.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return decimals ? `${whole}.${digits.slice(-decimals)}` : whole;
}

/**
 * The WCAG contrast ratio of an element's text against what is behind it, as
 * painted: colours resolved by the browser (any CSS colour space, through a
 * canvas), backgrounds composed up the tree, the element's opacity applied.
 * axe leaves disabled controls out; this measures them too.
 */
export async function contrastRatio(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const g = canvas.getContext("2d", { willReadFrequently: true })!;
    const rgba = (color: string): [number, number, number, number] => {
      g.clearRect(0, 0, 1, 1);
      g.fillStyle = color;
      g.fillRect(0, 0, 1, 1);
      const [r, gr, b, a] = g.getImageData(0, 0, 1, 1).data;
      return [r!, gr!, b!, a! / 255];
    };
    const over = (top: [number, number, number, number], under: number[]) => under.map((v, i) => top[i]! * top[3] + v * (1 - top[3]));
    const layers: [number, number, number, number][] = [];
    for (let n = el.parentElement; n; n = n.parentElement) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] === 1) break;
    }
    let under = [255, 255, 255];
    for (const layer of layers.reverse()) under = over(layer, under);
    const style = getComputedStyle(el);
    const own = over(rgba(style.backgroundColor), under);
    const text = over(rgba(style.color), own);
    let opacity = 1;
    for (let n: Element | null = el; n; n = n.parentElement) opacity *= Number(getComputedStyle(n).opacity);
    const faded = (c: number[]) => c.map((v, i) => v * opacity + under[i]! * (1 - opacity));
    const luminance = (c: number[]) => {
      const [r, gr, b] = c.map((v) => {
        const s = v / 255;
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * gr! + 0.0722 * b!;
    };
    const [a, b] = [luminance(faded(text)), luminance(faded(own))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
}

const emulatorUrl = () => `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;

/**
 * A fresh issue of `repo` (opened on the GitHub emulator by alice) with an XDC bounty of `amount` set through the API
 * by the pool manager signed in on `page`, once the mirror shows it. Returns the issue's number.
 */
export async function bountiedIssue(page: Page, repo: { id: number; fullName: string }, title: string, amount: string): Promise<number> {
  const opened = await page.request.post(`${emulatorUrl()}/_emulator/issues`, { data: { repo: repo.fullName, title: `${title} ${Date.now()}`, author: "alice" } });
  expect(opened.ok()).toBe(true);
  const issue = ((await opened.json()).issue as { number: number }).number;
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const allocated = await page.request.post(`/api/blockchain/allocate-bounty/${repo.id}/${issue}`, {
    data: { bountyAmount: amount, currency: "XDC", githubRepoFullName: repo.fullName },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `e2e-bounty-${repo.id}-${issue}-${Date.now()}` },
  });
  expect(allocated.ok(), await allocated.text()).toBe(true);
  await expect.poll(async () => (await page.request.get(`/api/blockchain/issue-bounty/${repo.id}/${issue}`)).status(), { timeout: 20_000 }).toBe(200);
  return issue;
}

/** bob's pull request fixing `issue`, its one commit carrying `trailers` (e.g. Co-authored-by), merged by alice on the emulator. */
export async function mergeCoAuthoredFix(page: Page, repo: { fullName: string }, issue: number, trailers: string): Promise<number> {
  const pr = await page.request.post(`${emulatorUrl()}/_emulator/pulls`, {
    data: { repo: repo.fullName, author: "bob", title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `bob:fix-${issue}-${Date.now()}`, commits: [{ message: `Fix #${issue}\n\n${trailers}` }] },
  });
  expect(pr.ok()).toBe(true);
  const pull = ((await pr.json()).pull_request as { number: number }).number;
  expect((await page.request.post(`${emulatorUrl()}/_emulator/pulls/merge`, { data: { repo: repo.fullName, number: pull, actor: "alice" } })).ok()).toBe(true);
  return pull;
}

/**
 * A write to the dev stack's own routes (/dev/digest, /dev/refund-boosts): signed in, with the session's
 * anti-forgery token and a JSON body, like every write (issue 36: they refuse anything else).
 */
export async function devPost(page: Page, path: string, data: Record<string, unknown> = {}) {
  const { csrfToken } = (await (await page.request.get("/api/auth/csrf-token")).json()) as { csrfToken: string };
  return page.request.post(path, { data, headers: { "X-CSRF-Token": csrfToken } });
}
