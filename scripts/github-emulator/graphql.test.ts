import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { api, startTestWorld, userToken, type TestWorld } from "./test-support.ts";

let w: TestWorld;
let token: string;

beforeAll(async () => {
  w = await startTestWorld();
  token = await userToken(w.emulator, "alice");
});
afterAll(() => w.stop());

/** The platform's query, verbatim. */
const CLOSING_QUERY = `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ pullRequest(number:$number){ merged author{login} closingIssuesReferences(first:50){ nodes{ number databaseId repository{ databaseId nameWithOwner } } } } } }`;

async function graphql(query: string, variables: Record<string, unknown> = {}, as = token) {
  const res = await api(w.emulator, "/graphql", { token: as, method: "POST", body: { query, variables } });
  return { res, body: await res.json() };
}

const closing = (repo: string, number: number, as?: string) => {
  const [owner, name] = repo.split("/");
  return graphql(CLOSING_QUERY, { owner, name, number }, as);
};

describe("closedByPullRequestsReferences", () => {
  /** The platform's query (api/services/github-events/pull-requests.ts), verbatim but for includeClosedPrs. */
  const closedBy = (number: number, includeClosedPrs = true) =>
    graphql(
      `query($owner:String!,$name:String!,$number:Int!){ repository(owner:$owner,name:$name){ issue(number:$number){ closedByPullRequestsReferences(first:25,includeClosedPrs:${includeClosedPrs}){ nodes{ number merged repository{ databaseId } } } } } }`,
      { owner: "issuepool-demo", name: "xdc-wallet-kit", number },
    );
  const numbers = async (issue: number, includeClosedPrs?: boolean) =>
    ((await closedBy(issue, includeClosedPrs)).body.data.repository.issue.closedByPullRequestsReferences.nodes as { number: number; merged: boolean }[]).map((n) => `${n.number}:${n.merged}`);

  test("lists the pull requests whose description closes the issue; merged and closed ones only with includeClosedPrs", async () => {
    const { issue } = await w.emulator.controls.openIssue({ repo: "issuepool-demo/xdc-wallet-kit", title: "Closed by a merge", author: "alice" });
    const n = issue.number as number;
    const open = (await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/xdc-wallet-kit", author: "bob", title: "A fix", body: `Fixes #${n}`, head: "closed-by-1" })).pull_request.number as number;
    const merged = (await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/xdc-wallet-kit", author: "bob", title: "Another", body: `Closes #${n}`, head: "closed-by-2" })).pull_request.number as number;
    await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/xdc-wallet-kit", author: "bob", title: "Mentions", body: `See #${n}`, head: "closed-by-3" });
    await w.emulator.controls.mergePullRequest({ repo: "issuepool-demo/xdc-wallet-kit", number: merged, actor: "alice" });
    expect(await numbers(n)).toEqual([`${open}:false`, `${merged}:true`]);
    expect(await numbers(n, false)).toEqual([`${open}:false`]);
  });
});

describe("closingIssuesReferences", () => {
  test("answers the platform's query in GitHub's shape", async () => {
    const { res, body } = await closing("issuepool-demo/xdc-wallet-kit", 7);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-resource")).toBe("graphql");
    expect(body).toEqual({
      data: {
        repository: {
          pullRequest: {
            merged: false,
            author: { login: "bob" },
            closingIssuesReferences: { nodes: [{ number: 1, databaseId: 500100001, repository: { databaseId: 5001, nameWithOwner: "issuepool-demo/xdc-wallet-kit" } }] },
          },
        },
      },
    });
  });

  test("follows GitHub's keyword rules: body only, any case, same or other repository, not pull requests, not code", async () => {
    const body = [
      "Closes #2, and FIXES issuepool-demo/contract-audit-tools#3.",
      "Resolves #7 (a pull request, so not closable). See #4 for context.",
      "Fix: #5",
      "`fixes #6` and\n```\nresolves #8\n```",
    ].join("\n");
    const { pull_request } = await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/xdc-wallet-kit", author: "bob", title: "Fixes #8 in the title", body, head: "many-fixes" });
    const nodes = (await closing("issuepool-demo/xdc-wallet-kit", pull_request.number as number)).body.data.repository.pullRequest.closingIssuesReferences.nodes;
    expect(nodes.map((n: { number: number; repository: { nameWithOwner: string } }) => `${n.repository.nameWithOwner}#${n.number}`)).toEqual([
      "issuepool-demo/xdc-wallet-kit#2",
      "issuepool-demo/contract-audit-tools#3",
      "issuepool-demo/xdc-wallet-kit#5",
    ]);
  });

  test("aliases, __typename, totalCount and pageInfo", async () => {
    const { body } = await graphql(`query Q($n: Int!) { repo: repository(owner: "issuepool-demo", name: "xdc-wallet-kit") { __typename pr: pullRequest(number: $n) { state url closingIssuesReferences(first: 1) { totalCount pageInfo { hasNextPage } nodes { __typename title } } } } }`, { n: 7 });
    expect(body.data.repo).toEqual({
      __typename: "Repository",
      pr: { state: "OPEN", url: `${w.emulator.webUrl}/issuepool-demo/xdc-wallet-kit/pull/7`, closingIssuesReferences: { totalCount: 1, pageInfo: { hasNextPage: false }, nodes: [{ __typename: "Issue", title: "Support xdc-prefixed addresses in the address parser" }] } },
    });
  });
});

describe("errors", () => {
  test("an unknown field fails validation, with no data", async () => {
    const { body } = await graphql(`{ repository(owner: "alice", name: "xdc-explorer-lite") { pullRequest(number: 1) { nope } } }`);
    expect(body.data).toBeUndefined();
    expect(body.errors[0]).toMatchObject({ message: "Field 'nope' doesn't exist on type 'PullRequest'", path: ["query", "repository", "pullRequest", "nope"], extensions: { code: "undefinedField" } });
  });

  test("a repository the caller cannot see, or a missing pull request, is NOT_FOUND with null data", async () => {
    const hidden = await closing("carol/private-notes", 1);
    expect(hidden.body).toEqual({
      data: { repository: null },
      errors: [{ type: "NOT_FOUND", path: ["repository"], locations: [{ line: 1, column: 51 }], message: "Could not resolve to a Repository with the name 'carol/private-notes'." }],
    });
    const missing = await closing("issuepool-demo/xdc-wallet-kit", 99);
    expect(missing.body.data).toEqual({ repository: { pullRequest: null } });
    expect(missing.body.errors[0]).toMatchObject({ type: "NOT_FOUND", path: ["repository", "pullRequest"], message: "Could not resolve to a PullRequest with the number of 99." });
  });

  test("missing variables, syntax errors and anonymous callers", async () => {
    expect((await graphql(CLOSING_QUERY, { owner: "alice" })).body.errors[0].message).toBe("Variable $name of type String! was provided invalid value");
    expect((await graphql("{ repository(owner: ")).body.errors[0].message).toStartWith("Parse error on");
    const anonymous = await api(w.emulator, "/graphql", { method: "POST", body: { query: "{ viewer { login } }" } });
    expect(anonymous.status).toBe(401);
  });

  test("viewer is the token's user", async () => {
    expect((await graphql("{ viewer { login databaseId } }")).body.data.viewer).toEqual({ login: "alice", databaseId: 1001 });
  });
});

describe("merging", () => {
  test("closes the same-repository issues the body closes, records the closing event and delivers the webhooks", async () => {
    const { pull_request } = await w.emulator.controls.openPullRequest({ repo: "alice/xdc-explorer-lite", author: "bob", title: "Pagination and contrast", body: "fixes #1\nCloses #2\nCloses issuepool-demo/roxn-sdk#1\nRelated: #3", head: "pagination" });
    const number = pull_request.number as number;
    const merged = await w.emulator.controls.mergePullRequest({ repo: "alice/xdc-explorer-lite", number, actor: "alice" });
    expect(merged.pull_request).toMatchObject({ merged: true, state: "closed", merged_by: { login: "alice" } });
    const sha = merged.pull_request.merge_commit_sha;

    const events = merged.deliveryIds.map((id) => w.emulator.deliveries.find((d) => d.id === id)!);
    expect(events.map((d) => `${d.event}.${d.action}`)).toEqual(["pull_request.closed", "issues.closed", "issues.closed"]);
    expect((events[0]!.payload.pull_request as { merged: boolean }).merged).toBe(true);
    expect(events.slice(1).map((d) => (d.payload.issue as { number: number; state_reason: string }).state_reason)).toEqual(["completed", "completed"]);
    expect(events.every((d) => d.status === 200)).toBe(true);

    for (const n of [1, 2]) {
      const issue = await (await api(w.emulator, `/repos/alice/xdc-explorer-lite/issues/${n}`)).json();
      expect(issue).toMatchObject({ state: "closed", state_reason: "completed", closed_by: { login: "alice" } });
      const timeline = await (await api(w.emulator, `/repos/alice/xdc-explorer-lite/issues/${n}/timeline`)).json();
      expect(timeline.map((e: { event: string }) => e.event)).toContain("cross-referenced");
      expect(timeline.at(-1)).toMatchObject({ event: "closed", commit_id: sha, state_reason: "completed", actor: { login: "alice" } });
    }
    expect((await (await api(w.emulator, "/repos/alice/xdc-explorer-lite/issues/3")).json()).state).toBe("open");
    expect((await (await api(w.emulator, "/repos/issuepool-demo/roxn-sdk/issues/1")).json()).state).toBe("open");

    const after = await closing("alice/xdc-explorer-lite", number);
    expect(after.body.data.repository.pullRequest.merged).toBe(true);
    expect(after.body.data.repository.pullRequest.closingIssuesReferences.nodes.map((n: { number: number }) => n.number)).toEqual([1, 2, 1]);
  });

  test("a pull request into another branch closes nothing", async () => {
    const { pull_request } = await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/roxn-sdk", author: "alice", title: "Typed ABI", body: "Closes #1", head: "abi", base: "release" });
    const merged = await w.emulator.controls.mergePullRequest({ repo: "issuepool-demo/roxn-sdk", number: pull_request.number as number });
    expect(merged.deliveryIds).toHaveLength(1);
    expect((await (await api(w.emulator, "/repos/issuepool-demo/roxn-sdk/issues/1")).json()).state).toBe("open");
  });
});
