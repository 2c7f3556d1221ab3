/**
 * The emulator speaks GitHub (issue 15): its REST answers validate against
 * the response schemas of GitHub's published OpenAPI description
 * (`@octokit/openapi`), its webhook payloads against GitHub's webhook schemas
 * (`@octokit/webhooks-schemas`), and a real client, `@octokit/rest`, pages
 * through it by the `Link` header.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Octokit } from "@octokit/rest";
import { api, appClaims, installationToken, signJwt, startTestWorld, userToken, type TestWorld } from "./test-support.ts";
import { restSchemaErrors, webhookSchemaErrors } from "./github-schemas.ts";

const REPO = "issuepool-demo/xdc-wallet-kit";
let w: TestWorld;
let alice: string;
let bob: string;
let installationId: number;

beforeAll(async () => {
  w = await startTestWorld();
  alice = await userToken(w.emulator, "alice");
  bob = await userToken(w.emulator, "bob", "app");
  installationId = Number((await w.emulator.controls.install({ account: "issuepool-demo", repositories: "all", sender: "alice" })).installation.id);
});
afterAll(() => w.stop());

/** GET (or another method) as `token`, and the errors of the answer against GitHub's schema for `template`. */
async function check(template: string, path: string, token: string | undefined, init: { method?: string; body?: unknown; status?: number } = {}) {
  const res = await api(w.emulator, path, { token, method: init.method, body: init.body });
  const status = init.status ?? 200;
  expect({ path, status: res.status }).toEqual({ path, status });
  return restSchemaErrors(init.method ?? "GET", template, await res.json(), String(status));
}

describe("REST answers match GitHub's OpenAPI description", () => {
  const reads: [string, string, () => string | undefined][] = [
    ["/user", "/user", () => alice],
    ["/user/emails", "/user/emails", () => alice],
    ["/user/repos", "/user/repos", () => alice],
    ["/user/memberships/orgs", "/user/memberships/orgs?state=active", () => bob],
    ["/orgs/{org}/repos", "/orgs/issuepool-demo/repos?sort=updated&per_page=100", () => alice],
    ["/users/{username}", "/users/bob", () => undefined],
    ["/users/{username}", "/users/issuepool-demo", () => undefined],
    ["/repos/{owner}/{repo}", `/repos/${REPO}`, () => alice],
    ["/repos/{owner}/{repo}", `/repos/${REPO}`, () => undefined],
    ["/repos/{owner}/{repo}/issues", `/repos/${REPO}/issues?state=all`, () => alice],
    ["/repos/{owner}/{repo}/issues/{issue_number}", `/repos/${REPO}/issues/1`, () => alice],
    ["/repos/{owner}/{repo}/issues/{issue_number}/comments", `/repos/${REPO}/issues/1/comments`, () => alice],
    ["/repos/{owner}/{repo}/issues/{issue_number}/timeline", `/repos/${REPO}/issues/1/timeline`, () => alice],
    ["/repos/{owner}/{repo}/pulls", `/repos/${REPO}/pulls?state=all`, () => alice],
    ["/repos/{owner}/{repo}/pulls/{pull_number}", `/repos/${REPO}/pulls/7`, () => alice],
    ["/repos/{owner}/{repo}/collaborators/{username}/permission", `/repos/${REPO}/collaborators/erin/permission`, () => alice],
    ["/repos/{owner}/{repo}/contributors", `/repos/${REPO}/contributors`, () => alice],
    ["/user/installations", "/user/installations", () => bob],
    // Shared rewards (issue 29): a pull request's commits (the co-authors' trailers) and users by public e-mail.
    ["/repos/{owner}/{repo}/pulls/{pull_number}/commits", `/repos/${REPO}/pulls/7/commits`, () => alice],
    ["/search/users", "/search/users?q=carol%40example.com%20in%3Aemail", () => alice],
  ];
  for (const [template, path, token] of reads) {
    test(`GET ${path}`, async () => {
      expect(await check(template, path, token())).toEqual([]);
    });
  }

  test("a pull request from a contributor's fork, and a new comment (201)", async () => {
    const pr = await w.emulator.controls.openPullRequest({ repo: REPO, author: "bob", title: "From a fork", body: "Fixes #2", head: "bob:fork-branch" });
    const number = Number(pr.pull_request.number);
    expect(await check("/repos/{owner}/{repo}/pulls/{pull_number}", `/repos/${REPO}/pulls/${number}`, alice)).toEqual([]);
    expect(await check("/repos/{owner}/{repo}/issues/{issue_number}/comments", `/repos/${REPO}/issues/2/comments`, alice, { method: "POST", body: { body: "A comment" }, status: 201 })).toEqual([]);
  });

  test("pull request reviews (issue 39): created (200), listed and read", async () => {
    const pr = await w.emulator.controls.openPullRequest({ repo: REPO, author: "bob", title: "To review", body: "Fixes #2", head: "bob:review-branch" });
    const number = Number(pr.pull_request.number);
    const path = `/repos/${REPO}/pulls/${number}/reviews`;
    expect(await check("/repos/{owner}/{repo}/pulls/{pull_number}/reviews", path, alice, { method: "POST", body: { event: "REQUEST_CHANGES", body: "Please add a test." } })).toEqual([]);
    expect(await check("/repos/{owner}/{repo}/pulls/{pull_number}/reviews", path, alice)).toEqual([]);
    const [first] = (await api(w.emulator, path, { token: alice }).then((r) => r.json())) as { id: number }[];
    expect(await check("/repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}", `${path}/${first!.id}`, alice)).toEqual([]);
  });

  test("the app's own endpoints: installations and their tokens", async () => {
    const jwt = await signJwt(w.keys.privateKey, appClaims(w.clock.now));
    expect(await check("/app", "/app", jwt)).toEqual([]);
    expect(await check("/app/installations", "/app/installations", jwt)).toEqual([]);
    expect(await check("/app/installations/{installation_id}", `/app/installations/${installationId}`, jwt)).toEqual([]);
    expect(await check("/repos/{owner}/{repo}/installation", `/repos/${REPO}/installation`, jwt)).toEqual([]);
    expect(
      await check("/app/installations/{installation_id}/access_tokens", `/app/installations/${installationId}/access_tokens`, jwt, { method: "POST", status: 201 }),
    ).toEqual([]);
    const token = await installationToken(w, installationId);
    expect(await check("/installation/repositories", "/installation/repositories", token)).toEqual([]);
  });
});

describe("webhook payloads match GitHub's webhook schemas", () => {
  test("installation, issues, labels, comments, pull requests opened, merged and closed, issues closed and reopened", async () => {
    const c = w.emulator.controls;
    const since = w.emulator.deliveries.length;
    await c.install({ account: "alice", repositories: "all", sender: "alice" });
    const opened = await c.openIssue({ repo: REPO, title: "Validated", body: "Body", author: "bob", labels: ["bug"] });
    const n = Number(opened.issue.number);
    await c.addLabel({ repo: REPO, number: n, label: "help wanted", actor: "alice" });
    await c.addComment({ repo: REPO, number: n, author: "bob", body: "/attempt" });
    const pr = await c.openPullRequest({ repo: REPO, author: "bob", title: "Fix", body: `Fixes #${n}`, head: "bob:fix-validated" });
    await c.mergePullRequest({ repo: REPO, number: Number(pr.pull_request.number), actor: "alice" });
    const other = await c.openPullRequest({ repo: REPO, author: "alice", title: "Abandoned", body: "", head: "abandoned" });
    await c.closePullRequest({ repo: REPO, number: Number(other.pull_request.number), actor: "alice" });
    await c.closeIssue({ repo: REPO, number: 3, reason: "not_planned", actor: "alice" });
    await c.reopenIssue({ repo: REPO, number: 3, actor: "alice" });
    const reviewed = await c.openPullRequest({ repo: REPO, author: "bob", title: "Reviewed", body: "", head: "bob:reviewed" });
    await c.reviewPullRequest({ repo: REPO, number: Number(reviewed.pull_request.number), author: "alice", event: "APPROVE" });
    await c.reviewPullRequest({ repo: REPO, number: Number(reviewed.pull_request.number), author: "erin", event: "COMMENT", body: "Looks fine." });
    const deliveries = w.emulator.deliveries.slice(since);
    const kinds = new Set(deliveries.map((d) => `${d.event}.${d.action}`));
    for (const kind of ["installation.created", "issues.opened", "issues.labeled", "issue_comment.created", "pull_request.opened", "pull_request.closed", "issues.closed", "issues.reopened", "pull_request_review.submitted"]) expect(kinds).toContain(kind);
    for (const d of deliveries) {
      expect({ delivery: `${d.event}.${d.action}`, errors: webhookSchemaErrors(d.event, d.payload as Record<string, unknown>) }).toEqual({ delivery: `${d.event}.${d.action}`, errors: [] });
    }
  });
});

describe("a real GitHub client", () => {
  test("@octokit/rest pages through a repository's issues by the Link header", async () => {
    const octokit = new Octokit({ auth: alice, baseUrl: w.emulator.apiUrl, request: { fetch } });
    const [owner, repo] = REPO.split("/") as [string, string];
    const all = (await api(w.emulator, `/repos/${REPO}/issues?state=all&per_page=100`, { token: alice }).then((r) => r.json())) as { number: number }[];
    expect(all.length).toBeGreaterThan(4);
    let pages = 0;
    const paged = await octokit.paginate(octokit.rest.issues.listForRepo, { owner, repo, state: "all", per_page: 2 }, (response) => {
      pages++;
      return response.data;
    });
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect(paged.map((i) => i.number)).toEqual(all.map((i) => i.number));
  });
});
