import { expect, type Page } from "@playwright/test";

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
