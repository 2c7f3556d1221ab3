import { expect, test } from "@playwright/test";
import { parseEther } from "viem";
import { bountiedIssue, devPost, mergeCoAuthoredFix, signIn } from "./support.ts";

/**
 * Never keep unclaimed money (issue 29): bob's pull request, co-authored by ivan, who never registers, is paid 50/50
 * after the release window; bob's half goes to his wallet and ivan's is held in the escrow for him. Thirty days on
 * (the chain's clock, moved by the dev stack's POST /dev/refund-boosts) alice, the pool manager, returns ivan's half to
 * the repository's pool from the repository page, and it reads returned. Runs last and alone (playwright.config.ts):
 * a month on the chain's clock would make other journeys' boosts due early.
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const MONTH_SECONDS = 30 * 86_400;

test("ivan never registers: thirty days on, alice returns his held share to the pool from the repository page", async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page, "alice", `/repos/${LITE.fullName}`);
  const issue = await bountiedIssue(page, LITE, "Shared with ivan", "2");
  await mergeCoAuthoredFix(page, LITE, issue, "Co-authored-by: Ivan Away <1009+ivan@users.noreply.github.com>");

  // After the window: bob paid, ivan's half held for him (the held share's event mirrored: it says from when it may go back).
  const shares = async () =>
    ((await (await page.request.get(`/api/splits/${LITE.id}/${issue}`)).json()).shares ?? []).map((s: { login: string; status: string; returnableAt: string | null; returnable: boolean }) => `${s.login}:${s.status}:${s.returnableAt ? "dated" : "-"}:${s.returnable}`);
  await expect.poll(shares, { timeout: 60_000 }).toEqual(["bob:paid:-:false", "ivan:held:dated:false"]);
  const poolXdc = async () => parseEther((await (await page.request.get(`/api/blockchain/pool-info/${LITE.id}`)).json()).xdcPoolRewards);
  const before = await poolXdc();

  await page.reload();
  const ivan = page.locator(`[data-split="${issue}"] [data-share="ivan"]`);
  await expect(ivan).toContainText("held until they register");
  await expect(ivan.locator("[data-share-returnable-at]")).toContainText("it may go back to the pool from");
  await expect(ivan.getByRole("button", { name: "Return to pool" })).toHaveCount(0);

  // Thirty days on, nobody claimed it.
  expect((await devPost(page, "/dev/refund-boosts", { seconds: MONTH_SECONDS + 60 })).ok()).toBe(true);
  await expect.poll(shares).toEqual(["bob:paid:-:false", "ivan:held:dated:true"]);
  await page.reload();
  await ivan.getByRole("button", { name: "Return to pool" }).click();
  const confirm = ivan.locator("[data-return-confirm]");
  await expect(confirm).toContainText("Return @ivan's 1 XDC to the pool? It can go nowhere else.");
  await confirm.getByRole("button", { name: "Return", exact: true }).click();
  await expect(page.getByText("@ivan's unclaimed share is back in the repository's pool", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(ivan).toContainText("unclaimed for 30 days, returned to the pool");
  await expect(ivan.getByRole("button", { name: "Return to pool" })).toHaveCount(0);
  await expect.poll(poolXdc, { timeout: 20_000 }).toBe(before + parseEther("1"));
  await expect.poll(shares).toEqual(["bob:paid:-:false", "ivan:returned:-:false"]);
});
