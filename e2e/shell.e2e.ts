import { expect, test } from "@playwright/test";
import { signIn } from "./support.ts";

test("/ goes to /repos", async ({ page }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/repos$/);
  await expect(page.getByRole("heading", { name: "Explore Bounties" })).toBeVisible();
});

test("the 404 page answers HTTP 404 and reads '404 Page Not Found'", async ({ page }) => {
  const response = await page.goto("/no/such/page/here");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "404 Page Not Found" })).toBeVisible();
  // Said once: the spec's text, not a big "404" above it as well.
  expect((await page.getByRole("main").innerText()).match(/404/g)).toHaveLength(1);
  await page.getByRole("link", { name: "Explore bounties" }).click();
  await expect(page).toHaveURL(/\/repos$/);
});

test("the FAQ scrolls to #pool-manager and highlights it for 2 s", async ({ page }) => {
  // The page's own clock times the highlight (a MutationObserver installed before any script): the test's polling
  // on a busy machine saw the attribute late and measured 844 ms of a 2 s highlight (CI run).
  await page.addInitScript(() => {
    const times: { on?: number; off?: number } = {};
    (window as unknown as { __highlight: typeof times }).__highlight = times;
    new MutationObserver((records) => {
      for (const r of records) {
        const el = r.target as HTMLElement;
        if (el.id !== "pool-manager" || r.attributeName !== "data-highlighted") continue;
        if (el.hasAttribute("data-highlighted")) times.on ??= performance.now();
        else if (times.on !== undefined) times.off ??= performance.now();
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-highlighted"] });
  });
  await page.goto("/faq#pool-manager", { waitUntil: "commit" });
  const section = page.locator("#pool-manager");
  await expect(section).toHaveAttribute("data-highlighted", "");
  await expect(section).toBeInViewport();
  await expect(section).not.toHaveAttribute("data-highlighted", "", { timeout: 15_000 });
  const times = await page.evaluate(() => (window as unknown as { __highlight: { on?: number; off?: number } }).__highlight);
  // Not cut short: on for the whole 2 s (a timer never fires early).
  expect(times.off! - times.on!).toBeGreaterThanOrEqual(2000 - 1);
  // choosing the anchor again from the page's contents highlights it again
  await page.getByRole("main").getByRole("link", { name: "Pool Manager Guide", exact: true }).click();
  await expect(section).toHaveAttribute("data-highlighted", "");
});

test("the theme choice survives a reload with no flash of the other theme", async ({ page }) => {
  // Record the <html> class at the moment <body> is first inserted, i.e. before anything paints.
  await page.addInitScript(() => {
    const observer = new MutationObserver(() => {
      if (document.body) {
        (window as unknown as { __classAtBody: string }).__classAtBody = document.documentElement.className;
        observer.disconnect();
      }
    });
    observer.observe(document, { childList: true, subtree: true });
  });
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/faq");
  await expect(page.locator("html")).toHaveClass(/\blight\b/);

  await page.getByRole("button", { name: "Toggle theme" }).click();
  await page.getByRole("menuitemradio", { name: "Dark" }).click();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  expect(await page.evaluate(() => localStorage.getItem("ui-theme"))).toBe("dark");

  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { __classAtBody: string }).__classAtBody)).toContain("dark");
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);

  // System follows the operating system's preference
  await page.getByRole("button", { name: "Toggle theme" }).click();
  await page.getByRole("menuitemradio", { name: "System" }).click();
  await expect(page.locator("html")).toHaveClass(/\blight\b/);
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
});

test("menus work from the keyboard", async ({ page }) => {
  await page.goto("/repos");
  const trigger = page.getByRole("button", { name: "Help & Guides" });
  await trigger.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menuitem", { name: "FAQ" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "AI Project Scoping" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Welcome Tour" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "Contribution Demo" })).toBeFocused();
  // The pool manager's items are not shown to a visitor: the arrow keys skip them and wrap around.
  await page.keyboard.press("ArrowDown");
  await expect(page.getByRole("menuitem", { name: "FAQ" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("menu", { name: "Help & Guides" })).toBeHidden();
  await expect(trigger).toBeFocused();
});

test.describe("at 375 px", () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test("the navigation lives in a side sheet", async ({ page }) => {
    await page.goto("/repos");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await page.getByRole("button", { name: "Open menu" }).click();
    const sheet = page.getByRole("dialog", { name: "Menu" });
    await expect(sheet).toBeVisible();
    for (const name of ["FAQ", "Chat", "Explore", "Sign In"]) {
      await expect(sheet.getByRole("link", { name, exact: true })).toBeVisible();
    }
    await expect(sheet.getByRole("button", { name: "Welcome Tour" })).toBeVisible();
    await expect(sheet.getByRole("button", { name: "Pool Manager Guide" })).toBeHidden();
    const box = await sheet.boundingBox();
    expect(box!.x + box!.width).toBeCloseTo(375, 0);
    await page.keyboard.press("Escape");
    await expect(sheet).toBeHidden();
    await page.getByRole("button", { name: "Open menu" }).click();
    await sheet.getByRole("button", { name: "Close" }).click();
    await expect(sheet).toBeHidden();
    await page.getByRole("button", { name: "Open menu" }).click();
    await sheet.getByRole("link", { name: "FAQ" }).click();
    await expect(page).toHaveURL(/\/faq$/);
  });
});

test.describe("at 375 px, signed in", () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test("the side sheet holds the wallet box: XDC balance to 4 decimals and the short address", async ({ page }) => {
    await signIn(page, "bob", "/repos");
    const user = await (await page.request.get("/api/auth/user")).json();
    await page.getByRole("button", { name: "Open menu" }).click();
    const sheet = page.getByRole("dialog", { name: "Menu" });
    const box = sheet.locator("[data-sheet-wallet-box]");
    await expect(box).toBeVisible();
    await expect(box.locator("[data-wallet-balance]")).toHaveText(/^\d[\d,]*\.\d{4} XDC$/);
    const address = user.xdcWalletAddress as string;
    await expect(box.locator("[data-wallet-address]")).toHaveText(`${address.slice(0, 6)}…${address.slice(-4)}`);
    const fits = (await box.boundingBox())!;
    expect(fits.x + fits.width).toBeLessThanOrEqual(375);
    await box.click();
    await expect(page).toHaveURL(/\/wallet$/);
  });
});

test.describe("toasts", () => {
  // The page's clock stands still once the toast shows (timers run only when the test says), so a slow
  // machine cannot let a toast expire between two steps, and "5 s" is measured on that clock.
  const showToast = async (page: import("@playwright/test").Page) => {
    await page.clock.install();
    await page.goto("/faq");
    const chat = page.getByRole("button", { name: "Chat with Support" });
    await expect(chat).toBeVisible();
    // Jump ahead (whatever the page had scheduled runs now) and stop the clock before the toast exists.
    await page.clock.pauseAt(await page.evaluate(() => Date.now() + 60_000));
    await chat.click();
    const toast = page.locator("li[data-toast-type]").filter({ hasText: "Support chat unavailable" });
    await expect(toast).toBeVisible();
    return toast;
  };

  test("appear bottom right, one at a time", async ({ page }) => {
    const toast = await showToast(page);
    const box = (await toast.boundingBox())!;
    const viewport = page.viewportSize()!;
    expect(box.x + box.width).toBeGreaterThan(viewport.width - 40);
    expect(box.y + box.height).toBeGreaterThan(viewport.height - 40);
    expect(box.width).toBeLessThanOrEqual(420);
    // From the keyboard: the first toast may sit over the button (issue 16), and the clock keeps it there.
    await page.getByRole("button", { name: "Chat with Support" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.locator("li[data-toast-type]")).toHaveCount(1);
  });

  test("a swipe right past 50 px dismisses; a short one does not", async ({ page }) => {
    const toast = await showToast(page);
    // The toast slides in (150 ms); measured mid-slide on a busy machine its box lies to the right of where the
    // pointer must press (CI failed so: every swipe started beside the toast). Measure once it stands still.
    const standing = async () => {
      await expect.poll(() => toast.evaluate((el) => el.getAnimations().filter((a) => a.playState === "running").length)).toBe(0);
      const box = (await toast.boundingBox())!;
      return { x: box.x + 40, y: box.y + box.height / 2 };
    };
    const short = await standing();
    await page.mouse.move(short.x, short.y);
    await page.mouse.down();
    await page.mouse.move(short.x + 20, short.y, { steps: 5 });
    await page.mouse.up();
    await expect(toast).toBeVisible();

    // The short swipe's snap-back may still be running when the long one starts: each try waits for the toast
    // to stand still, measures it again, and swipes.
    await expect(async () => {
      const { x, y } = await standing();
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x + 160, y, { steps: 10 });
      await page.mouse.up();
      await expect(toast).toBeHidden({ timeout: 2000 });
    }).toPass({ timeout: 20_000 });
  });

  test("F8 moves focus to the notifications", async ({ page }) => {
    await showToast(page);
    await page.keyboard.press("F8");
    // Radix moves focus to the list of toasts inside the "Notifications (F8)" region.
    await expect(page.getByRole("region", { name: "Notifications (F8)" }).locator("ol")).toBeFocused();
  });

  test("disappear by themselves after 5 s", async ({ page }) => {
    const toast = await showToast(page);
    await page.clock.runFor(4_000);
    await expect(toast).toBeVisible();
    await page.clock.runFor(1_500);
    await expect(toast).toBeHidden();
  });
});

test("anonymous pages ship no React", async ({ page }) => {
  const scripts: string[] = [];
  page.on("response", (r) => r.request().resourceType() === "script" && scripts.push(r.url()));
  await page.goto("/repos");
  await page.waitForLoadState("networkidle");
  expect(scripts.some((s) => /client\.|react|Toaster/.test(s))).toBe(false);
});

test("pages run without script errors or failed requests", async ({ page }) => {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`${page.url()}: ${error.message}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  for (const path of ["/repos", "/faq", "/issuepool-demo/xdc-wallet-kit", "/repos/issuepool-demo/xdc-wallet-kit", "/auth"]) {
    await page.goto(path, { waitUntil: "networkidle" });
  }
  await page.goto("/auth?registration=true", { waitUntil: "networkidle" });
  expect(problems).toEqual([]);
});
