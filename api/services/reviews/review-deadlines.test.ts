import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { type Address } from "viem";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { startMailSink, type MailSink } from "../../../testing/dev-tools.ts";
import { pullRequestWaits, webhookDeliveries } from "../../../db/schema/index.ts";
import { startSchedule } from "../../schedule.ts";
import { reliabilityOf } from "../reliability/read.ts";
import { DigestWorker } from "../../workers/digest.ts";
import { PAID_AFTER_BUCKETS_MS } from "../reliability/record.ts";

/**
 * Review deadlines (issue 39, item 5), against the GitHub emulator (pull requests, reviews and comments through
 * its webhooks), the SMTP sink and the local chain: a bountied pull request waits for a maintainer; the
 * review-deadlines pass, on a fake clock, reminds the pool manager once per deadline (72 h by default, or the
 * repository's own), whatever the number of passes or processes; the sponsor's record counts reviews past deadline
 * and times the first response; the author may ask for release past twice the deadline (the pool manager is told,
 * nothing is paid); the pool manager's digest lists what waits.
 */
let sink: MailSink;
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let carol: TestSession & { wallet: Address };
let n = 0;
const key = () => `reviews-${n++}-${Date.now()}`;
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
const HOUR = 3_600_000;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });

async function settled() {
  await stack.github.controls.settle();
  await eventually(async () => {
    await stack.t.ctx.webhooks.runOnce();
    const busy = await stack.t.ctx.database.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    return busy.length === 0 ? true : undefined;
  }, 20_000, "deliveries processed");
}
async function bountiedIssue(title: string) {
  const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title, author: "alice" });
  const number = (opened.issue as { number: number }).number;
  const res = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${number}`, { bountyAmount: "2", currency: "XDC", githubRepoFullName: LITE.fullName });
  expect(res.status, await res.clone().text()).toBe(200);
  await stack.t.ctx.indexer.catchUp();
  return number;
}
async function pullRequest(author: string, body: string) {
  const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author, title: body, body, head: `${author}:${key()}` });
  await settled();
  return (pr.pull_request as { number: number }).number;
}
const waitOf = async (pr: number) =>
  (await stack.t.ctx.database.db.select().from(pullRequestWaits).where(and(eq(pullRequestWaits.githubRepoId, LITE.id), eq(pullRequestWaits.pullNumber, pr))))[0];
const reminders = (pr: number) => sink.messages({ to: "alice@example.com" }).filter((m) => m.subject.endsWith(`for your review: ${LITE.fullName}#${pr}`));
/** The review-deadlines pass as the schedule declares it, once, at `now` (its loop is stopped at once: the clock is the test's). */
async function pass(now: number) {
  const schedule = startSchedule(stack.t.ctx, { only: ["review-deadlines"] });
  try {
    return await schedule.runOnce("review-deadlines", { now });
  } finally {
    await schedule.stop();
  }
}
/** The wait's start moved `hours` back (the route's clock is the real one). */
const waitedFor = (pr: number, hours: number) =>
  stack.t.ctx.database.db.update(pullRequestWaits).set({ waitingSince: new Date(Date.now() - hours * HOUR) }).where(and(eq(pullRequestWaits.githubRepoId, LITE.id), eq(pullRequestWaits.pullNumber, pr)));

beforeAll(async () => {
  sink = await startMailSink();
  stack = await startTestStack({ workers: true, env: { SMTP_URL: sink.smtpUrl } });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  carol = await stack.signUp("carol", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } })).json()).success).toBe(true);
  expect((await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: "40", repositoryFullName: LITE.fullName })).status).toBe(200);
  await stack.t.ctx.indexer.catchUp();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.stop();
});

// One repository's review story, step by step: each step counts the reminders the pass sends for every waiting pull
// request and the last one changes the repository's deadline, so they run in order, as one test (the suite runs tests
// in random order).
describe("a bountied pull request waiting for a maintainer", () => {
  let pr = 0;
  let since = 0;

  const waitsFromOpening = async () => { // waits from its opening; a pull request closing no bountied issue does not
    const issue = await bountiedIssue("Waits for review");
    pr = await pullRequest("bob", `Fixes #${issue}`);
    const wait = await waitOf(pr);
    expect(wait).toMatchObject({ authorLogin: "bob", issueNumbers: JSON.stringify([issue]), remindedLevel: 0, firstReviewAt: null });
    since = wait!.waitingSince.getTime();
    expect(await waitOf(await pullRequest("bob", "Just a refactor"))).toBeUndefined();
    const view = (await (await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}`)).json()) as { state: string; deadlineHours: number; deadlineAt: string };
    expect(view).toMatchObject({ state: "waiting", deadlineHours: 72, deadlineAt: new Date(since + 72 * HOUR).toISOString() });
  };

  const remindedOnceAtDeadline = async () => { // the pass reminds the pool manager once at the deadline, whatever the number of passes and processes
    expect(await pass(since + 72 * HOUR - 1000)).toBe(0);
    expect(reminders(pr)).toHaveLength(0);
    expect(await pass(since + 72 * HOUR)).toBe(1);
    const [mail] = reminders(pr);
    expect(mail!.subject).toBe(`Waiting for your review: ${LITE.fullName}#${pr}`);
    expect(mail!.text).toContain("past the repository's review deadline of 72 hours");
    // Again, and two at once (two processes): nothing more.
    expect(await pass(since + 73 * HOUR)).toBe(0);
    expect(await Promise.all([pass(since + 74 * HOUR), pass(since + 74 * HOUR)])).toEqual([0, 0]);
    expect(reminders(pr)).toHaveLength(1);
    expect((await reliabilityOf(stack.t.ctx, [LITE.id])).get(LITE.id)!.reviewsPastDeadline).toBe(1);
  };

  const noReleaseBeforeTwiceDeadline = async () => { // before twice the deadline its author may not ask for release; nobody else ever may
    await waitedFor(pr, 100);
    const early = await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}/release-request`, { as: bob, method: "POST", body: {} });
    expect(early.status).toBe(409);
    expect(((await early.json()) as { code: string }).code).toBe("not_due");
    expect((await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}/release-request`, { as: carol, method: "POST", body: {} })).status).toBe(403);
  };

  const releaseAskedAtTwiceDeadline = async () => { // at twice the deadline: a second reminder, once; then the author asks for release, the pool manager is told once, nothing is paid
    const at = (await waitOf(pr))!.waitingSince.getTime();
    await Promise.all([pass(at + 144 * HOUR), pass(at + 144 * HOUR)]);
    expect(await pass(at + 200 * HOUR)).toBe(0);
    expect(reminders(pr).map((m) => m.subject)).toEqual([`Still waiting for your review: ${LITE.fullName}#${pr}`, `Waiting for your review: ${LITE.fullName}#${pr}`]);
    expect((await reliabilityOf(stack.t.ctx, [LITE.id])).get(LITE.id)!.reviewsPastDeadline).toBe(1);
    await waitedFor(pr, 145);
    const before = await stack.t.ctx.chain.client.getBalance({ address: bob.wallet });
    const asked = await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}/release-request`, { as: bob, method: "POST", body: {} });
    expect(asked.status, await asked.clone().text()).toBe(200);
    const first = (await asked.json()) as { poolManagerNotified: boolean; releaseRequestedAt: string; state: string };
    expect(first).toMatchObject({ poolManagerNotified: true, state: "release_requestable" });
    const mail = await sink.waitFor((m) => m.subject === `Release requested: ${LITE.fullName}#${pr}`);
    expect(mail.text).toContain("bob asks you to release the bounty");
    expect(mail.text).toContain("Nothing is paid by this request.");
    const again = (await (await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}/release-request`, { as: bob, method: "POST", body: {} })).json()) as typeof first;
    expect(again).toMatchObject({ poolManagerNotified: false, releaseRequestedAt: first.releaseRequestedAt });
    expect(sink.messages({ to: "alice@example.com" }).filter((m) => m.subject === `Release requested: ${LITE.fullName}#${pr}`)).toHaveLength(1);
    expect(await stack.t.ctx.chain.client.getBalance({ address: bob.wallet })).toBe(before);
  };

  const inTheDigest = async () => { // the pool manager's digest lists it, even without a saved search
    const now = Date.now();
    const worker = new DigestWorker({ db: stack.t.ctx.database.db, log: stack.t.log, mailer: stack.t.ctx.mailer, appSecret: stack.t.ctx.appSecret, publicUrl: stack.t.env.PUBLIC_URL, hourUtc: 0, now: () => now });
    expect(await worker.runOnce({ now })).toBeGreaterThanOrEqual(1);
    const digest = await sink.waitFor((m) => m.to.includes("alice@example.com") && /pull requests? waits? for your review$/.test(m.subject));
    expect(digest.text).toContain(`${LITE.fullName}#${pr}`);
    expect(digest.text).toContain("(release requested)");
    // Once a day.
    expect(await worker.runOnce({ now })).toBe(0);
    // alice follows the digest's unsubscribe link (the mail client's one-click POST): the next days' digests stop,
    // this waiting pull request's list included; turning a saved search's digest on brings the list back.
    const link = new URL(/Stop these e-mails: (\S+)/.exec(digest.text)![1]!);
    const unsubscribed = await stack.t.app.request(link.pathname + link.search, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(unsubscribed.status).toBe(200);
    const digests = () => sink.messages({ to: "alice@example.com" }).filter((m) => /pull requests? waits? for your review$/.test(m.subject)).length;
    const sent = digests();
    const tomorrow = now + 86_400_000;
    const nextDay = new DigestWorker({ db: stack.t.ctx.database.db, log: stack.t.log, mailer: stack.t.ctx.mailer, appSecret: stack.t.ctx.appSecret, publicUrl: stack.t.env.PUBLIC_URL, hourUtc: 0, now: () => tomorrow });
    expect(await nextDay.runOnce({ now: tomorrow })).toBe(0);
    expect(digests()).toBe(sent);
    const saved = await call(stack.t, "/api/alerts/searches", { as: alice, body: { query: "currency=XDC", name: "XDC bounties" } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const dayAfter = tomorrow + 86_400_000;
    const thirdDay = new DigestWorker({ db: stack.t.ctx.database.db, log: stack.t.log, mailer: stack.t.ctx.mailer, appSecret: stack.t.ctx.appSecret, publicUrl: stack.t.env.PUBLIC_URL, hourUtc: 0, now: () => dayAfter });
    expect(await thirdDay.runOnce({ now: dayAfter })).toBeGreaterThanOrEqual(1);
    await sink.waitFor((m) => m.to.includes("alice@example.com") && /pull requests? waits? for your review$/.test(m.subject) && digests() > sent);
  };
  test("waits from its opening, is reminded once per deadline, may ask for release at twice the deadline (paying nothing), and is in the digest; a maintainer's review, comment or merge ends a wait; the repository's own deadline", async () => {
    // waits from its opening; a pull request closing no bountied issue does not
    await waitsFromOpening();
    // the pass reminds the pool manager once at the deadline, whatever the number of passes and processes
    await remindedOnceAtDeadline();
    // before twice the deadline its author may not ask for release; nobody else ever may
    await noReleaseBeforeTwiceDeadline();
    // at twice the deadline: a second reminder, once; then the author asks for release, the pool manager is told once, nothing is paid
    await releaseAskedAtTwiceDeadline();
    // the pool manager's digest lists it, even without a saved search
    await inTheDigest();
    // Then the rest of the repository's story (they count reminders the pass sends, so they follow the wait above).
    // a review by the pool manager: timed on the record, no reminder later
    await reviewEndsTheWait();
    // the author's own comment or an outsider's does not count; a maintainer's comment does
    await onlyAMaintainersCommentCounts();
    // a merge by the pool manager answers it (and pays as always)
    await mergeEndsTheWait();
    // its pool manager sets it (1 to 720 hours); others may not; the pass follows it
    await repositorysOwnDeadline();
  }, 300_000);
});

// The first response of a maintainer ends the wait.
const reviewEndsTheWait = async () => { // a review by the pool manager: timed on the record, no reminder later
    const issue = await bountiedIssue("Reviewed in time");
    const pr = await pullRequest("bob", `Closes #${issue}`);
    await stack.github.controls.reviewPullRequest({ repo: LITE.fullName, number: pr, author: "alice", event: "REQUEST_CHANGES", body: "A test, please." });
    await settled();
    const wait = (await waitOf(pr))!;
    expect(wait).toMatchObject({ firstReviewer: "alice", firstReviewKind: "review" });
    expect(await pass(wait.waitingSince.getTime() + 200 * HOUR)).toBe(0);
    expect(reminders(pr)).toHaveLength(0);
    const record = (await reliabilityOf(stack.t.ctx, [LITE.id])).get(LITE.id)!;
    expect(record.timedReviews).toBeGreaterThanOrEqual(1);
    expect(record.medianFirstReviewWithinMs).toBe(PAID_AFTER_BUCKETS_MS[0]!);
    expect(((await (await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}`)).json()) as { state: string }).state).toBe("reviewed");
    const late = await call(stack.t, `/api/reviews/${LITE.id}/pulls/${pr}/release-request`, { as: bob, method: "POST", body: {} });
    expect([late.status, ((await late.json()) as { code: string }).code]).toEqual([409, "conflict"]);
  };

const onlyAMaintainersCommentCounts = async () => { // the author's own comment or an outsider's does not count; a maintainer's comment does
    const issue = await bountiedIssue("Commented");
    const pr = await pullRequest("bob", `Fixes #${issue}`);
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "bob", body: "Ready for review." });
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "dave", body: "+1" });
    await settled();
    expect((await waitOf(pr))!.firstReviewAt).toBeNull();
    await stack.github.controls.addComment({ repo: LITE.fullName, number: pr, author: "alice", body: "Looking at it today." });
    await settled();
    expect(await waitOf(pr)).toMatchObject({ firstReviewer: "alice", firstReviewKind: "comment" });
  };

const mergeEndsTheWait = async () => { // a merge by the pool manager answers it (and pays as always)
    const issue = await bountiedIssue("Merged without a review");
    const pr = await pullRequest("bob", `Fixes #${issue}`);
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: pr, actor: "alice" });
    await settled();
    const wait = (await waitOf(pr))!;
    expect(wait).toMatchObject({ firstReviewer: "alice", firstReviewKind: "merged" });
    expect(wait.mergedAt).not.toBeNull();
    expect(await pass(wait.waitingSince.getTime() + 200 * HOUR)).toBe(0);
  };

// The repository's own deadline.
const repositorysOwnDeadline = async () => { // its pool manager sets it (1 to 720 hours); others may not; the pass follows it
    expect((await call(stack.t, `/api/reviews/${LITE.id}/deadline`, { as: carol, method: "PUT", body: { deadlineHours: 24 } })).status).toBe(403);
    expect((await call(stack.t, `/api/reviews/${LITE.id}/deadline`, { as: alice, method: "PUT", body: { deadlineHours: 0 } })).status).toBe(400);
    expect((await call(stack.t, `/api/reviews/${LITE.id}/deadline`, { as: alice, method: "PUT", body: { deadlineHours: 1.5 } })).status).toBe(400);
    const set = await call(stack.t, `/api/reviews/${LITE.id}/deadline`, { as: alice, method: "PUT", body: { deadlineHours: 24 } });
    expect([set.status, await set.json()]).toEqual([200, { repoId: LITE.id, deadlineHours: 24, isDefault: false }]);
    expect(await (await call(stack.t, `/api/reviews/${LITE.id}/deadline`)).json()).toEqual({ repoId: LITE.id, deadlineHours: 24, isDefault: false });
    const issue = await bountiedIssue("A shorter deadline");
    const pr = await pullRequest("bob", `Fixes #${issue}`);
    const since = (await waitOf(pr))!.waitingSince.getTime();
    expect(await pass(since + 24 * HOUR - 1000)).toBe(0);
    expect(await pass(since + 24 * HOUR)).toBe(1);
    expect(reminders(pr)[0]!.text).toContain("review deadline of 24 hours");
  };
