import { createServer, type Server } from "node:http";
import { expect, test, type Page } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { devPost, signIn } from "./support.ts";

/**
 * Alerts (issue 30): a contributor saves a search on /explore and receives the daily digest in the mail sink, then
 * unsubscribes with one click; a pool manager adds a webhook endpoint from the repository page (a local receiver
 * here), sends a test event, and sees a signed `bounty.paid` after a merge, verified with `standardwebhooks`.
 *
 * Demo data: alice/xdc-explorer-lite's XDC pool (seeded with 300 XDC), which no other journey reads.
 */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const emulator = `http://127.0.0.1:${process.env.E2E_GITHUB_PORT}`;
test.describe.configure({ mode: "serial" });

interface Received {
  headers: Record<string, string>;
  body: string;
}

async function receiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers[name] = value;
      received.push({ headers, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${port}/issuepool`, received };
}

async function allocate(page: Page, title: string): Promise<number> {
  const opened = await page.request.post(`${emulator}/_emulator/issues`, { data: { repo: LITE.fullName, title, author: "alice" } });
  expect(opened.ok()).toBe(true);
  const issue = ((await opened.json()).issue as { number: number }).number;
  const { csrfToken } = await (await page.request.get("/api/auth/csrf-token")).json();
  const allocated = await page.request.post(`/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, {
    data: { bountyAmount: "2", isRoxn: false, githubRepoFullName: LITE.fullName },
    headers: { "X-CSRF-Token": csrfToken, "Idempotency-Key": `alerts-e2e-${issue}-${Date.now()}` },
  });
  expect(allocated.ok(), await allocated.text()).toBe(true);
  await expect.poll(async () => (await (await page.request.get(`/api/blockchain/issue-bounty/${LITE.id}/${issue}`)).json()).status, { timeout: 30_000 }).toBe("open");
  return issue;
}

test("a contributor saves a search, receives the digest of a new matching bounty, and unsubscribes with one click", async ({ browser }) => {
  test.setTimeout(120_000);
  const word = `zebra${Date.now()}`;
  const bob = await browser.newPage();
  // Signed out, Save this search leads to sign-in and back to the same search.
  await bob.goto(`/explore?currency=XDC&q=${word}`);
  await bob.getByRole("button", { name: "Save this search" }).click();
  await bob.getByRole("link", { name: "Sign in with GitHub" }).click();
  await bob.locator('button[name="login"][value="bob"]').click();
  await bob.waitForURL((url) => url.pathname === "/explore" && url.searchParams.get("q") === word);
  await bob.getByRole("button", { name: "Save this search" }).click();
  await expect(bob.locator("[data-save-search-status]")).toContainText("New matches come in a daily e-mail.");
  await expect(bob.getByRole("button", { name: "Saved" })).toBeDisabled();
  await bob.getByRole("link", { name: "Manage alerts" }).click();
  await expect(bob.getByRole("heading", { name: "Saved searches" })).toBeVisible();
  const saved = bob.locator("[data-saved-searches] li").filter({ hasText: word });
  await expect(saved).toBeVisible();
  await expect(saved.getByRole("checkbox", { name: "Daily e-mail" })).toBeChecked();

  const alice = await browser.newPage();
  await signIn(alice, "alice", `/repos/${LITE.fullName}`);
  const issue = await allocate(alice, `Index the ${word} blocks`);
  await allocate(alice, `Something else ${Date.now()}`);

  // The digest as the server sends it each day (run now, as of tomorrow: the dev stack's /dev/digest).
  expect((await devPost(alice, "/dev/digest")).ok()).toBe(true);
  type Mail = { subject: string; text: string; headers: Record<string, string> };
  let digest: Mail | undefined;
  await expect
    .poll(async () => {
      const { messages } = (await (await alice.request.get("/dev/mail/messages.json?to=bob@example.com")).json()) as { messages: Mail[] };
      digest = messages.find((m) => m.text.includes(word));
      return Boolean(digest);
    }, { timeout: 20_000 })
    .toBe(true);
  if (!digest) throw new Error("no digest");
  expect(digest.subject).toBe("1 new bounty matches your saved searches");
  expect(digest.text).toContain(`${LITE.fullName}#${issue} Index the ${word} blocks`);
  expect(digest.text).not.toContain("Something else");
  expect(digest.headers["list-unsubscribe-post"]).toBe("List-Unsubscribe=One-Click");
  const unsubscribe = /^<(.+)>$/.exec(digest.headers["list-unsubscribe"]!)![1]!;

  // The link opens a confirm page (a GET changes nothing); the button unsubscribes.
  await bob.goto(unsubscribe);
  await expect(bob.getByRole("heading", { name: "Stop the daily digest?" })).toBeVisible();
  await bob.goto("/settings/alerts");
  await expect(bob.locator("[data-saved-searches] li").filter({ hasText: word }).getByRole("checkbox", { name: "Daily e-mail" })).toBeChecked();
  await bob.goto(unsubscribe);
  await bob.getByRole("button", { name: "Unsubscribe" }).click();
  await expect(bob.getByRole("heading", { name: "Unsubscribed" })).toBeVisible();
  await bob.goto("/settings/alerts");
  await expect(bob.locator("[data-saved-searches] li").filter({ hasText: word }).getByRole("checkbox", { name: "Daily e-mail" })).not.toBeChecked();
});

test("a pool manager adds a webhook endpoint on the repository page and receives a signed bounty.paid after a merge", async ({ page }) => {
  test.setTimeout(150_000);
  const hook = await receiver();
  try {
    await signIn(page, "alice", `/repos/${LITE.fullName}#rewards`);
    await page.locator("[data-funding-panel] [data-repo-webhooks]").click();
    await expect(page.getByRole("heading", { name: `Webhooks of ${LITE.fullName}` })).toBeVisible();
    await page.getByLabel(/Endpoint URL/).fill(hook.url);
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const secret = (await page.locator("[data-webhook-secret] code").first().textContent())!;
    expect(secret).toMatch(/^whsec_/);
    const row = page.locator("[data-endpoint]").filter({ hasText: hook.url });
    await expect(row).toBeVisible();

    // The test event, sent by the worker and listed in the delivery log.
    await row.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => hook.received.find((r) => r.body.includes('"webhook.test"')), { timeout: 20_000 }).toBeTruthy();
    const test = hook.received.find((r) => r.body.includes('"webhook.test"'))!;
    expect((new Webhook(secret).verify(test.body, test.headers) as { type: string }).type).toBe("webhook.test");
    // The button says how it went, beside the endpoint, without opening the log (issue 38).
    await expect(row.locator('[data-test-result="delivered"]')).toContainText("Test event delivered: the endpoint answered 2", { timeout: 20_000 });
    await row.getByRole("button", { name: "Delivery log" }).click();
    await expect(row.locator("[data-delivery-log]")).toContainText("webhook.test");

    // A bounty, bob's fix merged on GitHub: the endpoint hears bounty.paid, signed.
    const issue = await allocate(page, `Signed payout ${Date.now()}`);
    const pr = await page.request.post(`${emulator}/_emulator/pulls`, { data: { repo: LITE.fullName, author: "bob", title: "Fix", body: `Fixes #${issue}`, head: `bob:alerts-${issue}` } });
    const number = ((await pr.json()).pull_request as { number: number }).number;
    expect((await page.request.post(`${emulator}/_emulator/pulls/merge`, { data: { repo: LITE.fullName, number, actor: "alice" } })).ok()).toBe(true);
    const isPaid = (r: Received) => r.body.includes('"bounty.paid"') && r.body.includes(`"number":${issue}`);
    await expect.poll(() => hook.received.some(isPaid), { timeout: 60_000 }).toBe(true);
    const paid = hook.received.find(isPaid)!;
    const event = new Webhook(secret).verify(paid.body, paid.headers) as { type: string; data: { amountFormatted: string; contributor: { login: string } | null; repository: { fullName: string } } };
    expect(event.type).toBe("bounty.paid");
    expect(event.data).toMatchObject({ amountFormatted: "2 XDC", contributor: { login: "bob" }, repository: { fullName: LITE.fullName } });
    expect(() => new Webhook(secret).verify(paid.body.replace("2 XDC", "9 XDC"), paid.headers)).toThrow();
  } finally {
    hook.server.close();
  }
});
