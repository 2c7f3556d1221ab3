import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { encodeHexLowerCase } from "@oslojs/encoding";
import { parseEther, type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bounties, chainTransactions, heldPayouts, repositories, wallets, webhookDeliveries } from "../../../db/schema/index.ts";
import { sharedTestSecrets } from "../../../testing/dev-tools.ts";
import { fillBountyMetadata } from "./bounty-metadata.ts";

let stack: TestStack;
let dave: TestSession; // pool manager, admin of dave/hello-xdc
let bob: TestSession; // contributor
let bobWallet: Address;
let n = 0;
const key = () => `gh-test-${n++}-${Date.now()}`;
const HELLO = { id: 5006, fullName: "dave/hello-xdc" };
/** The repository the tests outside the install journey work on: alice's, installed, registered and funded by beforeAll. */
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let alice: TestSession; // pool manager, admin of LITE

async function register(session: TestSession, role: "poolmanager" | "contributor") {
  const res = await call(stack.t, "/api/auth/register", { as: session, body: { role, email: `${session.user.username}@example.com` } });
  expect(res.status).toBe(200);
  session.user.role = role;
}
const walletOf = async (s: TestSession) => (await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, s.user.id)))[0]!.address as Address;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });

/** A repository's XDC pool in wei, from the API. */
const xdcPool = async (repoId: number) => parseEther((await (await call(stack.t, `/api/blockchain/pool-info/${repoId}`)).json()).xdcPoolRewards);

/** The bot's comments on an issue, read back from GitHub (the emulator). */
async function botComments(fullName: string, issue: number) {
  const res = await fetch(`${stack.github.apiUrl}/repos/${fullName}/issues/${issue}/comments`);
  const comments = (await res.json()) as { body: string; user: { login: string; type: string } }[];
  return comments.filter((c) => c.user.type === "Bot");
}

async function signedDelivery(event: string, payload: unknown, deliveryId: string) {
  const secret = (await sharedTestSecrets()).GITHUB_WEBHOOK_SECRET;
  const body = JSON.stringify(payload);
  const hmac = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const signature = encodeHexLowerCase(new Uint8Array(await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(body))));
  return fetch(`${stack.url}/api/webhooks/github`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-GitHub-Event": event, "X-GitHub-Delivery": deliveryId, "X-Hub-Signature-256": `sha256=${signature}` },
    body,
  });
}

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  dave = await stack.signIn("dave");
  bob = await stack.signIn("bob");
  await register(dave, "poolmanager");
  await register(bob, "contributor");
  await stack.chain.fund(await walletOf(dave), { xdc: "200" });
  bobWallet = await walletOf(bob);

  alice = await stack.signIn("alice");
  await register(alice, "poolmanager");
  await stack.chain.fund(await walletOf(alice), { xdc: "200" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  const registered = await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } });
  expect((await registered.json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "100", repositoryFullName: LITE.fullName })).status).toBe(200);
  await eventually(async () => (await xdcPool(LITE.id)) === parseEther("99.5"), 15_000, "LITE pool");
}, 120_000);
afterAll(() => stack?.stop());

/**
 * One journey, in the order a maintainer and a contributor live it: each step needs the one before
 * (the app installed before registering, a bounty before paying it), so they are one test.
 */
test("from installing the app to being paid for a merged fix, with the public figures after", async () => {
  let installationId: number;

  // the user's repositories show admin rights, and the app is not installed yet
  {
    const res = await call(stack.t, "/api/github/user/repos", { as: dave });
    // It changes with the user's own actions (install, register): the browser must not reuse an old copy.
    expect(res.headers.get("Cache-Control")).toBe("private, no-store");
    const { repositories: list } = await res.json();
    const hello = list.find((r: { full_name: string }) => r.full_name === HELLO.fullName);
    expect(hello).toMatchObject({ id: HELLO.id, permissions: { admin: true }, appInstalled: false, registered: false });
  }

  // registering without the app answers the install URL and registers nothing
  {
    const res = await call(stack.t, "/api/repositories/register", { as: dave, body: { githubRepoId: HELLO.id, githubRepoFullName: HELLO.fullName } });
    const body = await res.json();
    expect(body.success).toBe(false);
    expect(body.installUrl).toStartWith(`${stack.github.webUrl}/apps/`);
    expect(await stack.t.ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, HELLO.id))).toHaveLength(0);
  }

  // install, finalize (only the installer may), register
  {
    const installed = await stack.github.controls.install({ account: "dave", repositories: "all", sender: "dave" });
    installationId = (installed.installation as { id: number }).id;
    const stranger = await call(stack.t, "/api/github/app/finalize-installation", { as: bob, body: { installationId } });
    expect(stranger.status).toBe(404);
    const finalized = await call(stack.t, "/api/github/app/finalize-installation", { as: dave, body: { installationId } });
    expect(await finalized.json()).toMatchObject({ success: true, count: 0, installationId });

    const res = await call(stack.t, "/api/repositories/register", { as: dave, body: { githubRepoId: HELLO.id, githubRepoFullName: HELLO.fullName } });
    const body = await res.json();
    expect(body).toMatchObject({ success: true, message: "Repository registered successfully" });
    // The repository details, not the database row.
    expect(body.repository).toEqual({
      repoId: HELLO.id,
      githubRepoId: HELLO.id,
      githubRepoFullName: HELLO.fullName,
      installationId,
      isPrivate: false,
      registeredAt: expect.any(String),
    });
    const mine = await (await call(stack.t, "/api/github/user/repos", { as: dave })).json();
    expect(mine.repositories.find((r: { full_name: string }) => r.full_name === HELLO.fullName)).toMatchObject({ appInstalled: true, registered: true });
    const pub = await (await call(stack.t, "/api/repositories/public")).json();
    expect(pub.repositories.some((r: { githubRepoFullName: string }) => r.githubRepoFullName === HELLO.fullName)).toBe(true);
  }

  // fund, set a bounty: the bot comments once; a contributor registers and the comment says so
  {
    expect((await money(dave, `/api/blockchain/repository/${HELLO.id}/fund`, { amountXdc: "50", repositoryFullName: HELLO.fullName })).status).toBe(200);
    await eventually(async () => (await (await call(stack.t, `/api/blockchain/pool-info/${HELLO.id}`)).json()).xdcPoolRewards === "49.75", 15_000, "pool");
    const allocated = await money(dave, `/api/blockchain/allocate-bounty/${HELLO.id}/1`, { bountyAmount: "20", isRoxn: false, githubRepoFullName: HELLO.fullName });
    expect((await allocated.json()).status).toBe("confirmed");
    const [comment] = await eventually(async () => {
      const found = await botComments(HELLO.fullName, 1);
      return found.length ? found : undefined;
    }, 15_000, "bot comment");
    expect(comment!.body).toContain("Issuepool bounty: 20.0000 XDC");
    expect(comment!.body).toContain("Nobody yet.");
    // Each kind of visitor is told the route the page offers them (issue 16): registered contributors never see
    // Contribute, so they comment /attempt; everyone else chooses Contribute.
    expect(comment!.body).toContain("Already an Issuepool contributor? Comment `/attempt` here.");
    expect(comment!.body).toContain("New to Issuepool? Choose *Contribute* on this issue");
    expect(comment!.body).not.toMatch(/choose \*Contribute\* on this issue, or comment/);

    const res = await call(stack.t, "/api/blockchain/register", { as: bob, body: { issueId: 1, repoId: HELLO.id } });
    expect(res.status).toBe(200);
    await eventually(async () => ((await botComments(HELLO.fullName, 1))[0]?.body.includes("@bob") ? true : undefined), 15_000, "comment update");
    expect(await botComments(HELLO.fullName, 1)).toHaveLength(1);
  }

  // a merged pull request that fixes the issue pays the author once; the comment shows the payment
  {
    const before = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    const opened = await stack.github.controls.openPullRequest({ repo: HELLO.fullName, author: "bob", title: "Add a README", body: "Fixes #1\n\nWrites the README.", head: "bob:readme" });
    const prNumber = (opened.pull_request as { number: number }).number;
    const merged = await stack.github.controls.mergePullRequest({ repo: HELLO.fullName, number: prNumber, actor: "dave" });

    await eventually(async () => (await stack.t.ctx.chain.client.getBalance({ address: bobWallet })) > before, 20_000, "payout");
    const after = await stack.t.ctx.chain.client.getBalance({ address: bobWallet });
    expect(after - before).toBe(parseEther("20"));
    const [paid] = await eventually(async () => {
      const rows = await stack.t.ctx.database.db.select().from(bounties).where(and(eq(bounties.githubRepoId, HELLO.id), eq(bounties.issueNumber, 1)));
      return rows[0]?.status === "paid" ? rows : undefined;
    }, 15_000, "mirror");
    expect(paid!.recipient).toBe(bobWallet);
    await eventually(async () => ((await botComments(HELLO.fullName, 1))[0]?.body.includes("**Paid**") ? true : undefined), 15_000, "paid comment");
    expect((await botComments(HELLO.fullName, 1))[0]!.body).toContain(paid!.paidTx!);
    // The paid contributor's link to their wallet's cash-out, prefilled with the reward (issue 40).
    expect((await botComments(HELLO.fullName, 1))[0]!.body).toContain(`[cash out to UPI](${stack.url}/wallet?cashout=XDC&amount=`);

    // The same delivery again (GitHub's redeliver keeps its id and body), and the same event
    // under new ids, five at once: nothing more is paid.
    const prDelivery = stack.github.deliveries.find((d) => merged.deliveryIds.includes(d.id) && d.event === "pull_request")!;
    await stack.github.controls.redeliver(prDelivery.id);
    const again = await Promise.all(Array.from({ length: 5 }, (_, i) => signedDelivery("pull_request", prDelivery.payload, `replay-${i}-${Date.now()}`)));
    expect(again.every((r) => r.status === 202)).toBe(true);
    await eventually(async () => {
      const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"));
      return pending.length === 0 ? true : undefined;
    }, 20_000, "deliveries processed");
    expect(await stack.t.ctx.chain.client.getBalance({ address: bobWallet })).toBe(after);
    const payouts = await stack.t.ctx.database.db
      .select()
      .from(chainTransactions)
      .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, HELLO.id)));
    expect(payouts).toHaveLength(1);
  }

  // the unified repository holds real figures
  {
    const unified = await (await call(stack.t, `/api/public/unified-repo/${HELLO.fullName}`)).json();
    expect(unified).toMatchObject({ registered: true, managed: true, repoId: HELLO.id });
    expect(unified.blockchain.contractAddress).toMatch(/^xdc[0-9a-fA-F]{40}$/);
    expect(unified.stats.rewardsPaid).toBe(1);
    expect(unified.stats.paidTotals.XDC).toBe("20");
    expect(unified.stats.claims).toBe(1);
    expect(unified.stats.contributors).toBeGreaterThanOrEqual(2); // dave (admin) and bob (merged PR)
    expect(unified.price).toEqual({ xdcUsd: null, source: null });
    expect(unified.bounties).toEqual([]);
  }

  // badges: pool and issue
  {
    const svg = await call(stack.t, `/api/badges/${HELLO.fullName}.svg`);
    expect(svg.headers.get("content-type")).toContain("image/svg+xml");
    const text = await svg.text();
    expect(text).toStartWith("<svg");
    expect(text).toContain("XDC pool");
    const issue = await (await call(stack.t, `/api/badges/${HELLO.fullName}/issues/1.json`)).json();
    expect(issue).toMatchObject({ schemaVersion: 1, label: "bounty", message: "20.0000 XDC · paid" });
  }
}, 120_000);

describe("webhook intake", () => {
  test("a bad or missing signature is 401 and nothing is stored", async () => {
    const before = await stack.t.ctx.database.db.select().from(webhookDeliveries);
    const unsigned = await fetch(`${stack.url}/api/webhooks/github`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-GitHub-Event": "ping", "X-GitHub-Delivery": "x-1" },
      body: "{}",
    });
    expect(unsigned.status).toBe(401);
    const forged = await fetch(`${stack.url}/api/webhooks/github`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-GitHub-Event": "ping", "X-GitHub-Delivery": "x-2", "X-Hub-Signature-256": `sha256=${"0".repeat(64)}` },
      body: "{}",
    });
    expect(forged.status).toBe(401);
    expect(await stack.t.ctx.database.db.select().from(webhookDeliveries)).toHaveLength(before.length);
  });

  test("an unsigned body is refused before it is read: a request that never finishes sending still gets its 401 (issue 15, finding 7)", async () => {
    const before = (await stack.t.ctx.database.db.select().from(webhookDeliveries)).length;
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 64 KiB a pull, for ever: a server that waits for the end of this body never answers.
        pulls++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const aborter = new AbortController();
    try {
      const res = await fetch(`${stack.url}/api/webhooks/github`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-GitHub-Event": "issues", "X-GitHub-Delivery": "endless-1" },
        body: endless,
        signal: aborter.signal,
        // @ts-expect-error Bun and the fetch standard's streaming uploads
        duplex: "half",
      });
      expect(res.status).toBe(401);
      expect(pulls).toBeLessThan(1000); // far below GitHub's 25 MB limit
    } finally {
      aborter.abort();
    }
    expect(await stack.t.ctx.database.db.select().from(webhookDeliveries)).toHaveLength(before);
  });

  test("a signed body that is not a JSON object is 400 and not stored", async () => {
    for (const body of ["[1]", "1", '"text"', "null"]) {
      const secret = (await sharedTestSecrets()).GITHUB_WEBHOOK_SECRET;
      const hmac = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const signature = encodeHexLowerCase(new Uint8Array(await crypto.subtle.sign("HMAC", hmac, new TextEncoder().encode(body))));
      const deliveryId = `not-an-object-${body.length}-${Date.now()}`;
      const res = await fetch(`${stack.url}/api/webhooks/github`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-GitHub-Event": "issues", "X-GitHub-Delivery": deliveryId, "X-Hub-Signature-256": `sha256=${signature}` },
        body,
      });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.deliveryId, deliveryId))).toHaveLength(0);
    }
  });

  test("a malformed payload is 400; an unknown event is stored and ignored", async () => {
    const secret = (await sharedTestSecrets()).GITHUB_WEBHOOK_SECRET;
    const key2 = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const bad = "{not json";
    const sig = encodeHexLowerCase(new Uint8Array(await crypto.subtle.sign("HMAC", key2, new TextEncoder().encode(bad))));
    const malformed = await fetch(`${stack.url}/api/webhooks/github`, {
      method: "POST",
      headers: { "X-GitHub-Event": "issues", "X-GitHub-Delivery": "bad-1", "X-Hub-Signature-256": `sha256=${sig}` },
      body: bad,
    });
    expect(malformed.status).toBe(400);
    const unknown = await signedDelivery("sponsorship", { action: "created" }, "unknown-1");
    expect(unknown.status).toBe(202);
    await eventually(async () => {
      const [row] = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.deliveryId, "unknown-1"));
      return row?.status === "ignored" ? true : undefined;
    }, 10_000, "ignored");
  });
});

describe("rights and privacy", () => {
  test("registration without admin rights: 'Requires Admin'", async () => {
    const erin = await stack.signIn("erin");
    await register(erin, "poolmanager");
    const res = await call(stack.t, "/api/repositories/register", { as: erin, body: { githubRepoId: 5001, githubRepoFullName: "issuepool-demo/xdc-wallet-kit" } });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("Requires Admin");
  });

  test("a private repository never appears on public endpoints", async () => {
    const carol = await stack.signIn("carol");
    await register(carol, "poolmanager");
    await stack.github.controls.install({ account: "carol", repositories: "all", sender: "carol" });
    const res = await call(stack.t, "/api/repositories/register", { as: carol, body: { githubRepoId: 5004, githubRepoFullName: "carol/private-notes" } });
    expect((await res.json()).success).toBe(true);

    const pub = await (await call(stack.t, "/api/repositories/public")).json();
    expect(JSON.stringify(pub)).not.toContain("private-notes");
    const unified = await (await call(stack.t, "/api/public/unified-repo/carol/private-notes")).json();
    expect(unified).toMatchObject({ registered: false, github: null, issues: [], bounties: [] });
    expect(JSON.stringify(unified)).not.toContain("Private issue");
    expect((await call(stack.t, "/api/repos/details?owner=carol&repo=private-notes")).status).toBe(404);
    expect((await call(stack.t, "/api/public/github/repos/carol/private-notes")).status).toBe(404);
    expect((await call(stack.t, "/api/public/github/issues?owner=carol&repo=private-notes")).status).toBe(404);
    const badge = await (await call(stack.t, "/api/badges/carol/private-notes.json")).json();
    expect(badge.message).toBe("not registered");
    const anonymousRegistered = await (await call(stack.t, "/api/repositories/registered")).json();
    expect(JSON.stringify(anonymousRegistered)).not.toContain("private-notes");
  });

  test("a repository made public or private on GitHub follows at once", async () => {
    const listed = async () => (await (await call(stack.t, "/api/repositories/public")).json()).repositories.some((r: { id: number }) => r.id === LITE.id);
    expect(await listed()).toBe(true);
    try {
      await stack.github.controls.setRepositoryVisibility({ repo: LITE.fullName, visibility: "private", actor: "alice" });
      await eventually(async () => ((await listed()) ? undefined : true), 15_000, "made private");
    } finally {
      await stack.github.controls.setRepositoryVisibility({ repo: LITE.fullName, visibility: "public", actor: "alice" });
    }
    await eventually(async () => ((await listed()) ? true : undefined), 15_000, "made public");
  });
});

describe("what Explore filters by follows GitHub (issue 38)", () => {
  const explore = async (query: string) => {
    const res = await call(stack.t, `/api/explore?repo=${LITE.fullName}&${query}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as { bounties: { issueNumber: number; labels: string[]; language: string | null }[] }).bounties;
  };

  test("a bounty's labels and its repository's language: set with it, followed when the labels change, filled for rows that have none", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: `Labelled work ${Date.now()}`, author: "alice", labels: ["bug"] });
    const number = (opened.issue as { number: number }).number;
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: "2", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await explore("label=bug")).some((b) => b.issueNumber === number) ? true : undefined), 20_000, "bounty by its label");
    expect((await explore("language=go")).some((b) => b.issueNumber === number)).toBe(true);

    // A label added on GitHub: its delivery updates the bounty.
    await stack.github.controls.addLabel({ repo: LITE.fullName, number, label: "help wanted", actor: "alice" });
    await eventually(async () => ((await explore("label=help%20wanted")).find((b) => b.issueNumber === number)?.labels.includes("bug") ? true : undefined), 20_000, "a new label");

    // Rows from before (and the demo's) had none: the catch-up pass asks GitHub once and fills them.
    const db = stack.t.ctx.database.db;
    await db.update(bounties).set({ labels: null }).where(and(eq(bounties.githubRepoId, LITE.id), eq(bounties.issueNumber, number)));
    await db.update(repositories).set({ language: null }).where(eq(repositories.githubRepoId, LITE.id));
    stack.t.ctx.changes.publish(["repositories"]);
    expect((await explore("label=bug")).some((b) => b.issueNumber === number)).toBe(false);
    expect(await explore("language=go")).toEqual([]);
    const filled = await fillBountyMetadata({ db, log: stack.t.ctx.log, env: stack.t.ctx.env });
    expect(filled.repoIds).toContain(LITE.id);
    stack.t.ctx.changes.publish(["repositories"]);
    expect((await explore("label=bug&language=Go")).find((b) => b.issueNumber === number)?.labels.sort()).toEqual(["bug", "help wanted"]);
    // Asked once: nothing is left to fill.
    expect((await fillBountyMetadata({ db, log: stack.t.ctx.log, env: stack.t.ctx.env })).bounties).toBe(0);
  }, 60_000);
});

describe("commands in issue comments, and issues closed as not planned", () => {
  const latestBotReply = async (issue: number) => (await botComments(LITE.fullName, issue)).at(-1)?.body ?? "";

  test("/bounty by the pool manager sets a bounty; /attempt registers a contributor; bad commands get a reply", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Add a license", author: "alice" });
    const number = (opened.issue as { number: number }).number;

    await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "bob", body: "/bounty 5 XDC" });
    // Anyone but the pool manager boosts: a comment cannot carry consent, so the bot answers with a confirmation link (issue 29).
    const link = await eventually(async () => /confirm it here: (\S+\/confirm\/\S+)/.exec(await latestBotReply(number))?.[1], 15_000, "boost link");
    expect(link).toStartWith(`${stack.url}/confirm/`);

    await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "alice", body: "/bounty five XDC" });
    await eventually(async () => ((await latestBotReply(number)).includes("Usage: `/bounty <amount>") ? true : undefined), 15_000, "usage");

    await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "alice", body: "/bounty 0.5 XDC" });
    await eventually(async () => ((await latestBotReply(number)).includes("Minimum bounty must be at least 1 XDC") ? true : undefined), 15_000, "minimum");

    await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "alice", body: "/bounty 5 XDC\nfor whoever picks this up" });
    const bounty = await eventually(async () => {
      const res = await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${number}`);
      return res.status === 200 ? await res.json() : undefined;
    }, 20_000, "bounty");
    expect(bounty).toMatchObject({ xdcAmount: "5", status: "open" });

    await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "bob", body: "/attempt" });
    await eventually(async () => ((await botComments(LITE.fullName, number)).some((c) => c.body.includes("@bob") && c.body.includes("Issuepool bounty")) ? true : undefined), 15_000, "attempt");
    // The bot answers /attempt in its one comment (issue 38): who is on it since when, and what comes next; no reply of its own.
    await eventually(async () => ((await botComments(LITE.fullName, number)).find((c) => c.body.includes("Issuepool bounty"))?.body.includes(`> @bob: you are down for this issue. Open a pull request with \`Fixes #${number}\``) ? true : undefined), 15_000, "acknowledgement");
    const [one, ...more] = (await botComments(LITE.fullName, number)).filter((c) => c.body.includes("Issuepool bounty"));
    expect(more).toHaveLength(0);
    expect(one!.body).toMatch(/\*\*Working on it:\*\* @bob \(since \d{4}-\d{2}-\d{2}\)/);
  }, 60_000);

  test("an issue closed as not planned returns its bounty to the pool", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Port to Rust", author: "alice" });
    const number = (opened.issue as { number: number }).number;
    const pool = () => xdcPool(LITE.id);
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: "3", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    const before = await pool();
    await stack.github.controls.closeIssue({ repo: LITE.fullName, number, reason: "not_planned", actor: "alice" });
    await eventually(async () => ((await pool()) === before + parseEther("3") ? true : undefined), 20_000, "refund to pool");
    expect((await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${number}`)).status).toBe(404);
  }, 60_000);

  test("comments by bots are ignored; the App's own are acknowledged and not even stored", async () => {
    // The bot's own comment (it announces a new bounty) comes back as issue_comment webhooks (created, then edited on
    // every change): answered 202 and dropped at the door, so they never queue beside merges waiting for a lane.
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Bot comments are not commands", author: "alice" });
    const number = (opened.issue as { number: number }).number;
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: "2", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);
    await eventually(async () => ((await botComments(LITE.fullName, number)).length > 0 ? true : undefined), 15_000, "bot comment");
    // Another bot's comment that is not a command: stored and ignored.
    const other = await stack.github.controls.addComment({ repo: LITE.fullName, number, author: "autofix-agent[bot]", body: "I can fix this for you." });
    await stack.github.controls.settle();
    const ofIssue = async () =>
      (await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.event, "issue_comment"))).filter((d) => {
        const payload = JSON.parse(d.payload);
        return payload.issue.number === number && payload.repository.id === LITE.id;
      });
    const stored = await eventually(async () => {
      const rows = await ofIssue();
      return rows.length > 0 && rows.every((d) => d.status !== "pending" && d.status !== "processing") ? rows : undefined;
    }, 15_000, "the other bot's delivery processed");
    expect(stored.map((d) => d.deliveryId)).toEqual(other.deliveryIds);
    expect(stored.every((d) => d.status === "ignored")).toBe(true);
    expect(stored.some((d) => JSON.parse(d.payload).comment.user.login === `${stack.t.ctx.env.GITHUB_APP_SLUG}[bot]`)).toBe(false);
  });
});

describe("a bounty earned by an author without a wallet (issue 11)", () => {
  test("is held for them, then paid exactly once when they register; redeliveries and a second registration pay nothing", async () => {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: "Fixed by a newcomer", author: "alice" });
    const number = (opened.issue as { number: number }).number;
    expect((await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: "4", isRoxn: false, githubRepoFullName: LITE.fullName })).status).toBe(200);

    // frank has never signed in to Issuepool: his merged fix cannot be paid yet.
    const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "frank", title: "Fix it", body: `Fixes #${number}`, head: "frank:fix" });
    const merged = await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    const [held] = await eventually(async () => {
      const rows = await stack.t.ctx.database.db.select().from(heldPayouts).where(and(eq(heldPayouts.githubRepoId, LITE.id), eq(heldPayouts.issueNumber, number)));
      return rows.length ? rows : undefined;
    }, 15_000, "held");
    expect(held).toMatchObject({ githubLogin: "frank", releasedAt: null });
    expect(await (await call(stack.t, `/api/blockchain/issue-bounty/${LITE.id}/${number}`)).json()).toMatchObject({ status: "open" });
    await eventually(async () => ((await botComments(LITE.fullName, number))[0]?.body.includes("**Held for @frank**") ? true : undefined), 15_000, "held comment");

    // He signs in and registers: paid, once, to his new wallet.
    const frank = await stack.signIn("frank");
    await register(frank, "contributor");
    const frankWallet = await walletOf(frank);
    await eventually(async () => ((await stack.t.ctx.chain.client.getBalance({ address: frankWallet })) === parseEther("4") ? true : undefined), 20_000, "held payout");
    const payouts = () =>
      stack.t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, number)));
    expect(await payouts()).toHaveLength(1);
    await eventually(async () => ((await botComments(LITE.fullName, number))[0]?.body.includes("**Paid** 4.0000 XDC to @frank") ? true : undefined), 15_000, "paid comment");
    expect((await botComments(LITE.fullName, number))[0]!.body).not.toContain("Nobody yet");

    // The merge redelivered, the worker's sweep, a second registration: nothing more.
    for (const id of merged.deliveryIds) await stack.github.controls.redeliver(id);
    expect((await call(stack.t, "/api/auth/register", { as: frank, body: { role: "contributor", email: "frank@example.com" } })).status).toBe(409);
    await stack.t.ctx.webhooks.runOnce();
    await eventually(async () => {
      const pending = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"));
      return pending.length === 0 ? true : undefined;
    }, 20_000, "deliveries processed");
    expect(await payouts()).toHaveLength(1);
    expect(await stack.t.ctx.chain.client.getBalance({ address: frankWallet })).toBe(parseEther("4"));
  }, 90_000);
});
