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
