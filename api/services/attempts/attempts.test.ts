import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { eventually, registerFundedRepository, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { startMailSink, type MailSink } from "../../../testing/dev-tools.ts";
import { bountyAttempts, bountyClaims, bounties, LIVE_ATTEMPT_STATUSES, repositories } from "../../../db/schema/index.ts";
import { installationClient } from "../../github/app-auth.ts";
import { DAY_MS } from "../../../lib/attempt-rules.ts";
import { expireLocks } from "./attempts.ts";

/**
 * Attempts that hold a place (issue 39), through the HTTP API and the emulator's webhooks: exclusive locks and the
 * queue, the lock pass with a fake clock, applications, who may attempt (humans only, flagged accounts, the limits
 * for everyone and for newcomers), the payout preview on pull requests and competing pull requests, each checked in
 * the bot's comments as GitHub (the emulator) shows them. Each test opens its own issues and drops what it started.
 */
let stack: TestStack;
let sink: MailSink;
let alice: TestSession & { wallet: `0x${string}` };
let bob: TestSession;
let carol: TestSession;
let dave: TestSession;
let grace: TestSession;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
let n = 0;
const key = () => `attempts-${n++}-${Date.now()}`;
let slug = "";

beforeAll(async () => {
  sink = await startMailSink();
  stack = await startTestStack({ workers: true, env: { SMTP_URL: sink.smtpUrl } });
  slug = stack.t.env.GITHUB_APP_SLUG;
  alice = await stack.signUp("alice", "poolmanager");
  await stack.chain.fund(alice.wallet, { xdc: "200" });
  await registerFundedRepository(stack, alice, LITE, "100");
  bob = await stack.signUp("bob", "contributor");
  carol = await stack.signUp("carol", "contributor");
  dave = await stack.signUp("dave", "contributor");
  grace = await stack.signUp("grace", "contributor");
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.stop();
});

/** A new issue on LITE with a bounty of `xdc` XDC, mirrored. */
async function bountiedIssue(title: string, xdc = "2"): Promise<number> {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: `${title} ${key()}`, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await call(stack.t, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { as: alice, body: { bountyAmount: xdc, currency: "XDC", githubRepoFullName: LITE.fullName }, headers: { "Idempotency-Key": key() } });
  expect(res.status, await res.clone().text()).toBe(200);
  await eventually(async () => (await stack.t.ctx.database.db.select().from(bounties).where(and(eq(bounties.githubRepoId, LITE.id), eq(bounties.issueNumber, number))))[0]?.status === "open", 20_000, "bounty mirrored");
  return number;
}
const settings = (issue: number, body: Record<string, unknown>) => call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}/settings`, { method: "PUT", as: alice, body });
const attempt = (s: TestSession, issue: number, note?: string) => call(stack.t, "/api/blockchain/register", { as: s, body: { issueId: issue, repoId: LITE.id, ...(note ? { note } : {}) } });
const drop = (s: TestSession, issue: number) => call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}`, { method: "DELETE", as: s });
const view = async (as?: TestSession) => (await (await call(stack.t, `/api/attempts/${LITE.id}`, as ? { as } : {})).json()) as {
  issues: { issueNumber: number; mode: string; holder: { login: string; lockedUntil: string } | null; queue: string[]; applications: { login: string; note: string | null }[]; pulls: { number: number; author: string; attempt: string }[]; overtaken: { holder: string; pullNumber: number } | null }[];
  mine: { issueNumber: number; status: string; place?: number }[];
};
const issueView = async (issue: number, as?: TestSession) => (await view(as)).issues.find((i) => i.issueNumber === issue)!;

/** Comments on an issue or pull request as GitHub shows them; `bot`: the app's only. */
async function comments(number: number, bot = true) {
  await stack.github.controls.settle();
  // As the app (an anonymous caller has 60 requests an hour, as on GitHub).
  const [repository] = await stack.t.ctx.database.db.select().from(repositories).where(eq(repositories.githubRepoId, LITE.id));
  const client = await installationClient(stack.t.ctx, repository!.installationId!);
  const all = await client.get<{ id: number; body: string; user: { login: string; type: string } }[]>(`/repos/${LITE.fullName}/issues/${number}/comments?per_page=100`);
  return bot ? all.filter((c) => c.user.login === `${slug}[bot]`) : all;
}
const botSays = (number: number, text: string, what = text) =>
  eventually(async () => (await comments(number)).find((c) => c.body.includes(text)), 20_000, what);
/** The bot's one status comment on a bountied issue (the marker). */
const statusComment = async (number: number) => (await comments(number)).filter((c) => c.body.includes("<!-- issuepool:bounty -->"));

/** Every live attempt of these people is dropped (tests leave nobody at their limit). */
async function dropAllOf(...people: TestSession[]) {
  const rows = await stack.t.ctx.database.db
    .select()
    .from(bountyAttempts)
    .where(and(inArray(bountyAttempts.userId, people.map((p) => p.user.id)), inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES])));
  for (const row of rows) await drop(people.find((p) => p.user.id === row.userId)!, row.issueNumber);
}

describe("exclusive bounties", () => {
  test("the first attempt holds it for the lock time; the next queues and is told its place; /unattempt passes the lock on, and the bot's one comment shows holder, until when and the queue", async () => {
    const issue = await bountiedIssue("Exclusive");
    try {
      expect((await settings(issue, { mode: "exclusive", audience: null, lockDays: 3 })).status).toBe(200);
      const before = Date.now();
      const held = await attempt(bob, issue);
      expect(held.status).toBe(200);
      const heldBody = await held.json();
      expect(heldBody.success).toBe(true);
      expect(heldBody.attempt.status).toBe("holding");
      const until = Date.parse(heldBody.attempt.lockedUntil);
      expect(until).toBeGreaterThanOrEqual(before + 3 * DAY_MS);
      expect(until).toBeLessThanOrEqual(Date.now() + 3 * DAY_MS);
      expect(heldBody.message).toContain("You hold this bounty until");

      // carol on the site, dave by the bot: both queue, each told their place.
      const queued = await (await attempt(carol, issue)).json();
      expect(queued.attempt).toEqual({ status: "queued", place: 1, holder: "bob" });
      expect(queued.message).toBe("@bob holds this bounty for now. You are 1st in the queue: you will be told when it is yours.");
      await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "dave", body: "/attempt" });
      await botSays(issue, "@dave @bob holds this bounty for now. You are 2nd in the queue");
      // Asking again answers where one stands, nothing more.
      expect((await (await attempt(carol, issue)).json()).attempt.place).toBe(1);

      const comment = await eventually(async () => (await statusComment(issue)).find((c) => c.body.includes("**Queue:** 1. @carol 2. @dave")), 20_000, "queue in the bot's comment");
      expect(comment.body).toContain(`**Held by** @bob until **${new Date(until).toISOString().slice(0, 16).replace("T", " ")} UTC**.`);
      expect(comment.body).toContain("exclusive: the first `/attempt` holds it for 3 days, later ones queue");
      expect(await statusComment(issue)).toHaveLength(1);

      // bob lets it go: carol holds it now (a fresh lock), is told on the issue, and dave moves up.
      await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "bob", body: "/unattempt" });
      await botSays(issue, "@carol this bounty is yours now (@bob let it go)");
      const after = await issueView(issue);
      expect(after.holder?.login).toBe("carol");
      expect(after.queue).toEqual(["dave"]);
      const claims = await stack.t.ctx.database.db.select().from(bountyClaims).where(and(eq(bountyClaims.githubRepoId, LITE.id), eq(bountyClaims.issueNumber, issue)));
      expect(claims.map((c) => c.userId).sort()).toEqual([carol.user.id]);
      await sink.waitFor((m) => m.to.includes("carol@example.com") && m.subject === `You now hold the bounty on ${LITE.fullName}#${issue}`);
      // Dropping what one does not have says so.
      const none = await drop(bob, issue);
      expect(none.status).toBe(404);
      expect((await none.json()).code).toBe("no_attempt");
    } finally {
      await dropAllOf(bob, carol, dave);
    }
  }, 90_000);

  test("the lock pass releases a lock past its time without a linked pull request and the next holds it (told once); a linked pull request keeps it", async () => {
    const issue = await bountiedIssue("Expiry");
    try {
      await settings(issue, { mode: "exclusive", audience: null, lockDays: 7 });
      expect((await attempt(bob, issue)).status).toBe(200);
      expect((await (await attempt(carol, issue)).json()).attempt.place).toBe(1);
      // Before its time nothing moves.
      expect(await expireLocks(stack.t.ctx, Date.now() + 6 * DAY_MS)).toEqual({ expired: 0, kept: 0 });
      // bob opens a pull request that closes the issue: past the time, the lock is kept.
      const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "bob", title: "Fix", body: `Fixes #${issue}`, head: `bob:fix-${key()}` });
      const prNumber = (pr.pull_request as { number: number }).number;
      await eventually(async () => (await issueView(issue)).pulls.some((p) => p.number === prNumber), 20_000, "pull request recorded");
      const later = Date.now() + 8 * DAY_MS;
      expect((await expireLocks(stack.t.ctx, later)).kept).toBeGreaterThanOrEqual(1);
      expect((await issueView(issue)).holder?.login).toBe("bob");
      // Closed without a merge: the next pass releases it and carol holds it, told once.
      await stack.github.controls.closePullRequest({ repo: LITE.fullName, number: prNumber, actor: "bob" });
      await eventually(async () => !(await issueView(issue)).pulls.some((p) => p.number === prNumber), 20_000, "pull request closed");
      expect((await expireLocks(stack.t.ctx, later)).expired).toBeGreaterThanOrEqual(1);
      const now = await issueView(issue);
      expect(now.holder?.login).toBe("carol");
      expect(Date.parse(now.holder!.lockedUntil)).toBe(later + 7 * DAY_MS);
      await botSays(issue, "@carol this bounty is yours now (@bob's lock expired without a linked pull request)");
      await expireLocks(stack.t.ctx, later);
      expect((await comments(issue)).filter((c) => c.body.includes("this bounty is yours now")).length).toBe(1);
    } finally {
      await dropAllOf(bob, carol);
    }
  }, 90_000);
});

describe("applications", () => {
  test("contributors apply with a note (none: refused), the pool manager sees the notes and picks one, who holds it and is told; a second pick while held is refused", async () => {
    const issue = await bountiedIssue("Application");
    try {
      await settings(issue, { mode: "application", audience: null, lockDays: 5 });
      const bare = await attempt(bob, issue);
      expect(bare.status).toBe(400);
      expect((await bare.json()).code).toBe("application_note_required");
      const applied = await (await attempt(bob, issue, "I wrote the parser this builds on.")).json();
      expect(applied.attempt).toEqual({ status: "applied" });
      await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "carol", body: "/attempt I can do it this week, with tests." });
      await botSays(issue, "@carol Your application is in");
      // Notes: the pool manager sees them; another contributor does not.
      const managerView = await issueView(issue, alice);
      expect(managerView.applications).toEqual([
        expect.objectContaining({ login: "bob", note: "I wrote the parser this builds on." }),
        expect.objectContaining({ login: "carol", note: "I can do it this week, with tests." }),
      ]);
      expect((await issueView(issue, dave)).applications.map((a) => a.note)).toEqual([null, null]);
      const picked = await call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}/pick`, { as: alice, body: { login: "carol" } });
      expect(picked.status, await picked.clone().text()).toBe(200);
      await botSays(issue, "@carol this bounty is yours now (the pool manager picked your application)");
      expect((await issueView(issue)).holder?.login).toBe("carol");
      const again = await call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}/pick`, { as: alice, body: { login: "bob" } });
      expect(again.status).toBe(409);
      expect((await again.json()).code).toBe("bounty_locked");
      // Only the pool manager picks.
      expect((await call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}/pick`, { as: bob, body: { login: "bob" } })).status).toBe(403);
      // The pool manager releases carol; bob's application still stands.
      expect((await call(stack.t, `/api/attempts/${LITE.id}/issues/${issue}/release`, { as: alice, body: { login: "carol" } })).status).toBe(200);
      expect((await issueView(issue)).holder).toBeNull();
    } finally {
      await dropAllOf(bob, carol);
    }
  }, 90_000);
});

describe("who may attempt", () => {
  test("humans only: a bot account's /attempt is refused with the reason, a flagged account too (humans_only); agents allowed lets the flagged one in", async () => {
    const issue = await bountiedIssue("Humans only");
    try {
      await settings(issue, { mode: "exclusive", audience: "humans", lockDays: null });
      await stack.github.controls.addComment({ repo: LITE.fullName, number: issue, author: "autofix-agent[bot]", body: "/attempt" });
      await botSays(issue, "This bounty is for people only, and GitHub marks @autofix-agent[bot] as a bot account. The pool manager can allow automated agents on it.");
      expect((await issueView(issue)).holder).toBeNull();
      // grace is flagged as automated by the pool manager.
      const flagged = await call(stack.t, `/api/attempts/${LITE.id}/flags`, { as: alice, body: { login: "grace", flagged: true } });
      expect(await flagged.json()).toEqual({ flagged: ["grace"] });
      const refused = await attempt(grace, issue);
      expect(refused.status).toBe(403);
      const body = await refused.json();
      expect(body.code).toBe("humans_only");
      expect(body.message).toContain("the pool manager marked @grace as an automated account on this repository");
      await settings(issue, { mode: "exclusive", audience: "agents", lockDays: null });
      expect((await (await attempt(grace, issue)).json()).attempt.status).toBe("holding");
      await call(stack.t, `/api/attempts/${LITE.id}/flags`, { as: alice, body: { login: "grace", flagged: false } });
    } finally {
      await dropAllOf(grace);
    }
  }, 90_000);

  test("a newcomer (no merged pull request on a registered repository) holds one place at a time; after a merge, three; each refusal names them and what lifts it; open bounties are not counted", async () => {
    const issues = [await bountiedIssue("Limit A"), await bountiedIssue("Limit B"), await bountiedIssue("Limit C"), await bountiedIssue("Limit D")];
    const open = await bountiedIssue("Limit open");
    try {
      for (const issue of issues) await settings(issue, { mode: "exclusive", audience: null, lockDays: null });
      expect((await attempt(dave, issues[0]!)).status).toBe(200);
      const second = await attempt(dave, issues[1]!);
      expect(second.status).toBe(409);
      const refusal = await second.json();
      expect(refusal.code).toBe("newcomer_attempt_limit");
      expect(refusal.message).toContain(`you are on ${LITE.fullName}#${issues[0]}`);
      expect(refusal.message).toContain("get a pull request merged, to take on up to 3");
      // dave's first pull request on a registered repository is merged (an issue without a bounty).
      const plain = await stack.github.controls.openIssue({ repo: LITE.fullName, title: `Typo ${key()}`, author: "alice" });
      const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "dave", title: "Typo", body: `Fixes #${(plain.issue as { number: number }).number}`, head: `dave:typo-${key()}` });
      await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
      await eventually(async () => ((await attempt(dave, issues[1]!)).status === 200 ? true : undefined), 20_000, "limit lifted");
      expect((await attempt(dave, issues[2]!)).status).toBe(200);
      const fourth = await attempt(dave, issues[3]!);
      expect(fourth.status).toBe(409);
      const over = await fourth.json();
      expect(over.code).toBe("attempt_limit");
      expect(over.message).toContain("You already have 3 attempts under way");
      expect(over.message).toContain("drop it with /unattempt");
      // Registering on an open bounty holds no place: not counted, as before issue 39.
      expect((await attempt(dave, open)).status).toBe(200);
    } finally {
      await dropAllOf(dave);
    }
  }, 120_000);

  test("an open bounty registers as before: the spec's answer, no attempt field", async () => {
    const issue = await bountiedIssue("Open");
    try {
      const res = await attempt(carol, issue);
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({ success: true, message: "You're now registered to contribute to this issue.", walletAddress: expect.stringMatching(/^xdc/) });
    } finally {
      await dropAllOf(carol);
    }
  }, 60_000);
});

describe("pull requests", () => {
  test("the payout preview: author and co-author with their shares (held without a wallet), warnings, edited on each push; competing pull requests listed; the others told on a merge; a merge over someone's lock pays as usual and the bot says so", async () => {
    const issue = await bountiedIssue("Preview", "3");
    try {
      await settings(issue, { mode: "exclusive", audience: null, lockDays: null });
      expect((await (await attempt(bob, issue)).json()).attempt.status).toBe("holding");
      // carol's pull request, co-authored by ivan (no Issuepool account): shares of 1.5 XDC, ivan's held.
      const pr = await stack.github.controls.openPullRequest({
        repo: LITE.fullName,
        author: "carol",
        title: "Fix it",
        body: `Fixes #${issue}`,
        head: `carol:fix-${key()}`,
        commits: [{ message: "Fix it\n\nCo-authored-by: Ivan Away <1009+ivan@users.noreply.github.com>" }],
      });
      const carolPr = (pr.pull_request as { number: number }).number;
      const preview = await botSays(carolPr, "<!-- issuepool:preview -->", "preview comment");
      expect(preview.body).toContain(`**Issue #${issue}: 3 XDC**`);
      expect(preview.body).toContain("- @carol (author): 1.5 XDC, to their Issuepool wallet");
      expect(preview.body).toContain("- @ivan (co-author): 1.5 XDC, held until they register on Issuepool");
      expect(preview.body).toContain("@bob holds this bounty until");
      expect(preview.body).toContain("A merge of this pull request still pays its authors (the merge is the maintainer's decision)");
      // A push adds a co-author: the same comment, edited.
      await stack.github.controls.pushToPullRequest({ repo: LITE.fullName, number: carolPr, commits: [{ message: "Tests\n\nCo-authored-by: Dave <1004+dave@users.noreply.github.com>" }] });
      const edited = await eventually(async () => (await comments(carolPr)).find((c) => c.body.includes("- @dave (co-author): 1 XDC, to their Issuepool wallet")), 20_000, "edited preview");
      expect(edited.id).toBe(preview.id);
      expect((await comments(carolPr)).filter((c) => c.body.includes("<!-- issuepool:preview -->"))).toHaveLength(1);
      expect(edited.body).toContain("- @carol (author): 1 XDC");

      // dave's pull request mentions the issue without closing it, against another branch: the preview says what stops it.
      const other = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "dave", title: "Related", body: `Refs #${issue}`, head: `dave:rel-${key()}`, base: "develop" });
      const davePr = (other.pull_request as { number: number }).number;
      const warned = await botSays(davePr, "<!-- issuepool:preview -->", "dave's preview");
      expect(warned.body).toContain(`This pull request mentions #${issue} but does not close it: write \`Fixes #${issue}\``);
      expect(warned.body).toContain("It targets `develop`, not the default branch `main`");
      expect(warned.body).toContain("- Nobody, as things stand.");

      // grace's competing pull request closes it too: both are listed, with their authors' attempt status.
      const third = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "grace", title: "Another fix", body: `Closes #${issue}`, head: `grace:alt-${key()}` });
      const gracePr = (third.pull_request as { number: number }).number;
      await eventually(async () => ((await issueView(issue)).pulls.length === 2 ? true : undefined), 20_000, "two competing");
      expect((await issueView(issue)).pulls).toEqual([
        expect.objectContaining({ number: carolPr, author: "carol", attempt: "no attempt" }),
        expect.objectContaining({ number: gracePr, author: "grace", attempt: "no attempt" }),
      ]);
      await eventually(async () => (await statusComment(issue)).find((c) => c.body.includes(`**Pull requests closing this issue:** #${carolPr} by @carol (no attempt), #${gracePr} by @grace (no attempt).`)), 20_000, "listed on the issue");

      // carol's is merged while bob holds the lock: paid as usual (a split of carol, ivan and dave), the bot says so, grace is told.
      await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: carolPr, actor: "alice" });
      await botSays(gracePr, `@grace pull request #${carolPr} by @carol was merged and closed issue #${issue}`);
      await eventually(async () => (await statusComment(issue)).find((c) => c.body.includes(`**Merged while held:** pull request #${carolPr} by @carol was merged while @bob held this bounty.`)), 20_000, "merged while held");
      await eventually(async () => (await statusComment(issue)).find((c) => c.body.includes("**Shared reward**") && c.body.includes("@carol (author)")), 20_000, "paid to carol's pull request");
      expect((await issueView(issue)).overtaken).toEqual({ holder: "bob", pullNumber: carolPr });
      expect((await view(bob)).mine.some((m) => m.issueNumber === issue)).toBe(false);
      await eventually(async () => (await comments(carolPr)).find((c) => c.body.includes("This pull request was merged")), 20_000, "preview says merged");
    } finally {
      await dropAllOf(bob, carol, dave, grace);
    }
  }, 150_000);
});

describe("settings", () => {
  test("the repository's default applies to its bounties; a bounty's own choice wins; null follows the repository again; only its pool manager sets them", async () => {
    const issue = await bountiedIssue("Defaults");
    const repo = await call(stack.t, `/api/attempts/${LITE.id}/settings`, { method: "PUT", as: alice, body: { mode: "exclusive", audience: "humans", lockDays: 10 } });
    try {
      expect(await repo.json()).toEqual({ mode: "exclusive", audience: "humans", lockDays: 10 });
      expect(await issueView(issue)).toMatchObject({ mode: "exclusive", audience: "humans", lockDays: 10 });
      expect(await (await settings(issue, { mode: "application", audience: null, lockDays: null })).json()).toEqual({ mode: "application", audience: "humans", lockDays: 10 });
      expect(await (await settings(issue, { mode: null, audience: null, lockDays: null })).json()).toEqual({ mode: "exclusive", audience: "humans", lockDays: 10 });
      const refused = await call(stack.t, `/api/attempts/${LITE.id}/settings`, { method: "PUT", as: bob, body: { mode: "open", audience: "agents", lockDays: 7 } });
      expect(refused.status).toBe(403);
      expect((await call(stack.t, `/api/attempts/${LITE.id}/settings`, { method: "PUT", as: alice, body: { mode: "open", audience: "agents", lockDays: 0 } })).status).toBe(400);
    } finally {
      await call(stack.t, `/api/attempts/${LITE.id}/settings`, { method: "PUT", as: alice, body: { mode: "open", audience: "agents", lockDays: 7 } });
    }
  }, 60_000);
});
