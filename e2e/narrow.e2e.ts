import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./support.ts";
import { SIGNED_IN_PAGES, SIGNED_OUT_PAGES, visitingTime } from "./pages.ts";

/**
 * Every page fits a 375 px phone: the document is no wider than the
 * viewport, so nothing (a table's Reward column, a "View Issue" link) sits
 * off screen behind a sideways scroll (issue 27: the public repository page
 * was 577 px wide, /my-repos 734 px for a pool manager). Wide content
 * scrolls inside its own card or becomes cards. Pages are only read.
 */
const PERSONAS = ["alice", "erin", "bob"] as const;

async function documentWidths(page: Page): Promise<{ document: number; viewport: number; widest: string }> {
  return page.evaluate(() => {
    const viewport = document.documentElement.clientWidth;
    // Name the outermost element that sticks out, so a failure says where to look.
    let widest = "";
    for (const el of Array.from(document.body.querySelectorAll<HTMLElement>("*"))) {
      const box = el.getBoundingClientRect();
      if (box.right > viewport + 1 && box.width > 0 && !el.closest("[data-scrolls-inside]")) {
        const parent = el.parentElement;
        if (parent && parent.getBoundingClientRect().right > viewport + 1 && parent !== document.body) continue;
        widest = `${el.tagName.toLowerCase()}.${String(el.className).slice(0, 80)} (right ${Math.round(box.right)})`;
        break;
      }
    }
    return { document: document.documentElement.scrollWidth, viewport, widest };
  });
}

async function visitAll(page: Page, paths: readonly string[]): Promise<void> {
  test.setTimeout(visitingTime(paths));
  const wide: string[] = [];
  for (const path of paths) {
    await page.goto(path);
    await page.waitForLoadState("networkidle");
    // Islands hydrate on idle or when scrolled into view; their content counts too.
    await page.mouse.wheel(0, 20_000);
    await page.waitForLoadState("networkidle");
    const widths = await documentWidths(page);
    if (widths.document > widths.viewport) wide.push(`${path}: ${widths.document} px wide (${widths.widest})`);
  }
  expect(wide, "pages wider than a 375 px phone").toEqual([]);
}

test.describe("at 375 px", () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test("every page, signed out, is no wider than the phone", async ({ page }) => {
    await visitAll(page, SIGNED_OUT_PAGES);
  });

  for (const login of PERSONAS) {
    test(`every page, signed in as ${login}, is no wider than the phone`, async ({ page }) => {
      await signIn(page, login, "/repos");
      await visitAll(page, SIGNED_IN_PAGES);
    });
  }
});
