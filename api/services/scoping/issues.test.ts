/**
 * From plan to bounties, over HTTP on the real stack (anvil, the GitHub
 * emulator, the outbox): a pool manager opens chosen tasks of a plan as
 * GitHub issues of a repository they administer, with "Depends on #n"
 * links and a label, and puts a bounty on each; repeating the request opens
 * nothing and pays nothing twice.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, repositories, wallets } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";
import { requirementsMarkdown } from "../../../testing/scoping-fixtures.ts";
import { onChainBounty } from "../money/bounty-lookups.ts";

const REPO = fixtureRepo("issuepool-demo/contract-audit-tools")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
let stack: TestStack;
let alice: TestSession; // pool manager, admin of issuepool-demo/*
let bob: TestSession; // contributor

beforeAll(async () => {
  stack = await startTestStack();
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  const [wallet] = await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id));
  await stack.chain.fund(wallet!.address as Address, { xdc: "500" });
  const { installation } = await stack.github.controls.install({ account: REPO.owner, repositories: "all" });
  await stack.t.ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: REPO.id, fullName: FULL_NAME, fullNameKey: FULL_NAME.toLowerCase(), owner: REPO.owner, name: REPO.name, htmlUrl: `${stack.github.webUrl}/${FULL_NAME}`, installationId: installation.id as number })
    .onConflictDoNothing();
  const funded = await call(stack.t, `/api/blockchain/repository/${REPO.id}/fund`, { as: alice, body: { amountXdc: "100", repositoryFullName: FULL_NAME }, headers: { "Idempotency-Key": "scoping-fund" } });
  expect(funded.status).toBe(200);
}, 120_000);
afterAll(() => stack?.stop());

async function plan(session: TestSession) {
  const form = new FormData();
  form.append("document", new File([await requirementsMarkdown()], "requirements.md"));
  const { jobId } = (await (await call(stack.t, "/api/ai-scoping/upload", { as: session, form })).json()) as { jobId: string };
  while ((await stack.t.ctx.scoping.runOnce()) > 0);
  return jobId;
}

test("chosen tasks become issues with dependency links and a label, each with a bounty on chain; a repeat does nothing twice", async () => {
  const jobId = await plan(alice);
  const view = (await (await call(stack.t, `/api/ai-scoping/results/${jobId}`, { as: alice })).json()) as { result: { tasks: { id: number; title: string; dependencies: number[] }[] } };
  const find = (title: string) => view.result.tasks.find((t) => t.title.startsWith(title))!;
  const overlap = find("Let members reserve an available tool");
  expect(overlap.dependencies.length).toBeGreaterThan(1);
  const reserve = view.result.tasks.find((t) => t.id === overlap.dependencies.at(-1))!;
  const unopened = overlap.dependencies[0]!;
  const body = { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [reserve.id, overlap.id], label: "scoped", bounty: { currency: "XDC", amount: "2" } };
  const res = await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, { as: alice, body });
  expect(res.status).toBe(200);
  const { issues } = (await res.json()) as { issues: { taskId: number; issueNumber: number; issueUrl: string; bounty: { status: string; amount: string } }[] };
  expect(issues.map((i) => i.taskId)).toEqual([reserve.id, overlap.id]);
  const [catalogue, reservations] = issues as [(typeof issues)[0], (typeof issues)[0]];
  const onGitHub = await (await fetch(`${stack.github.apiUrl}/repos/${FULL_NAME}/issues/${reservations.issueNumber}`)).json();
  expect(onGitHub).toMatchObject({ title: overlap.title, state: "open", labels: [{ name: "scoped" }] });
  expect(onGitHub.body).toMatch(/\*\*Estimated complexity:\*\* (Low|Medium|High): \w/);
  // It depends on a task opened with it (a link), and on another, not opened (named).
  expect(onGitHub.body).toContain(`- Depends on #${catalogue.issueNumber}`);
  expect(onGitHub.body).toContain(`- Depends on task ${unopened} of the plan ("${view.result.tasks.find((t) => t.id === unopened)!.title}"), not opened as an issue`);
  expect(issues.every((i) => i.bounty?.amount === "2")).toBe(true);

  // Each bounty confirms on chain as its own transaction.
  await stack.t.ctx.outbox.runOnce();
  for (const i of issues) {
    const tx = (await stack.t.ctx.database.db.select().from(chainTransactions)).find((t) => t.kind === "allocate_bounty" && t.issueNumber === i.issueNumber)!;
    await stack.t.ctx.outbox.waitForSettled(tx.id, 15_000);
  }
  await stack.t.ctx.indexer.catchUp();
  for (const i of issues) expect(await onChainBounty(stack.t.ctx, REPO.id, i.issueNumber)).toMatchObject({ status: "open", currency: "XDC", amount: parseEther("2") });
  const listed = (await (await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, { as: alice })).json()) as { issues: { bounty: { status: string } }[] };
  expect(listed.issues.map((i) => i.bounty.status)).toEqual(["confirmed", "confirmed"]);

  // The same request again: the same issues, no new ones, no new transactions.
  const issuesBefore = (await (await fetch(`${stack.github.apiUrl}/repos/${FULL_NAME}/issues?state=all&per_page=100`)).json()).length;
  const txBefore = (await stack.t.ctx.database.db.select().from(chainTransactions)).length;
  const again = (await (await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, { as: alice, body })).json()) as { issues: { issueNumber: number }[] };
  expect(again.issues.map((i) => i.issueNumber)).toEqual(issues.map((i) => i.issueNumber));
  expect((await (await fetch(`${stack.github.apiUrl}/repos/${FULL_NAME}/issues?state=all&per_page=100`)).json()).length).toBe(issuesBefore);
  expect((await stack.t.ctx.database.db.select().from(chainTransactions)).length).toBe(txBefore);
}, 60_000);

test("the bounty rules hold for all tasks before anything is opened; contributors and other users are refused", async () => {
  const jobId = await plan(alice);
  const issuesBefore = (await (await fetch(`${stack.github.apiUrl}/repos/${FULL_NAME}/issues?state=all&per_page=100`)).json()).length;
  const tooMuch = await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, {
    as: alice,
    body: { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [1, 2, 3, 4, 5, 6, 7], bounty: { currency: "XDC", amount: "50" } },
  });
  expect(tooMuch.status).toBe(400);
  expect(((await tooMuch.json()) as { message: string }).message).toContain("7 bounties of 50.0000 XDC need 350.0000 XDC");
  const belowMinimum = await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, {
    as: alice,
    body: { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [1], bounty: { currency: "XDC", amount: "0.5" } },
  });
  expect(belowMinimum.status).toBe(400);
  expect((await (await fetch(`${stack.github.apiUrl}/repos/${FULL_NAME}/issues?state=all&per_page=100`)).json()).length).toBe(issuesBefore);
  // Another user's plan is not found; a contributor cannot open issues from their own plan.
  expect((await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, { as: bob, body: { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [1] } })).status).toBe(404);
  const bobsJob = await plan(bob);
  expect((await call(stack.t, `/api/ai-scoping/results/${bobsJob}/issues`, { as: bob, body: { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [1] } })).status).toBe(403);
  expect((await call(stack.t, `/api/ai-scoping/results/${jobId}/issues`, { as: alice, body: { repositoryId: REPO.id, githubRepoFullName: FULL_NAME, taskIds: [99] } })).status).toBe(400);
}, 60_000);
