import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { APP_ID, APP_SLUG, PLATFORM, WEBHOOK_SECRET, api, installationToken, postForm, startTestWorld, userToken, type Received, type TestWorld } from "./test-support.ts";

let w: TestWorld;
beforeAll(async () => {
  w = await startTestWorld();
});
afterAll(() => w.stop());

async function hmacHex(algorithm: "SHA-1" | "SHA-256", body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(WEBHOOK_SECRET), { name: "HMAC", hash: algorithm }, false, ["sign"]);
  return Buffer.from(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body))).toString("hex");
}

/** The received requests for these delivery ids, in order. */
function receivedFor(ids: string[]): Received[] {
  return ids.map((id) => {
    const found = w.receiver.received.filter((r) => r.headers.get("x-github-delivery") === id);
    expect(found.length).toBeGreaterThan(0);
    return found.at(-1)!;
  });
}

// Payloads are checked field by field below; their full type is GitHub's documentation.
const payloadOf = (r: Received) => JSON.parse(r.body) as Record<string, any>;

describe("delivery", () => {
  test("sends GitHub's headers and a verifiable HMAC over the raw body", async () => {
    const { deliveryIds } = await w.emulator.controls.openIssue({ repo: "issuepool-demo/xdc-wallet-kit", title: "Signed", body: "Body with ünïcode", author: "erin", labels: ["bug"] });
    expect(deliveryIds).toHaveLength(2);
    expect(new Set(deliveryIds).size).toBe(2);
    for (const r of receivedFor(deliveryIds)) {
      const h = r.headers;
      expect(h.get("x-github-delivery")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(h.get("x-github-event")).toBe("issues");
      expect(h.get("x-hub-signature-256")).toBe(`sha256=${await hmacHex("SHA-256", r.body)}`);
      expect(h.get("x-hub-signature")).toBe(`sha1=${await hmacHex("SHA-1", r.body)}`);
      expect(h.get("x-github-hook-id")).toMatch(/^\d+$/);
      expect(h.get("x-github-hook-installation-target-type")).toBe("integration");
      expect(h.get("x-github-hook-installation-target-id")).toBe(String(APP_ID));
      expect(h.get("user-agent")).toMatch(/^GitHub-Hookshot\/[0-9a-f]+$/);
      expect(h.get("content-type")).toBe("application/json");
    }
    const [opened, labeled] = receivedFor(deliveryIds).map(payloadOf);
    expect(opened).toMatchObject({ action: "opened", issue: { title: "Signed", body: "Body with ünïcode", user: { login: "erin" }, labels: [{ name: "bug" }] }, repository: { full_name: "issuepool-demo/xdc-wallet-kit" }, organization: { login: "issuepool-demo" }, sender: { login: "erin" } });
    expect(opened!.installation).toBeUndefined();
    expect(labeled).toMatchObject({ action: "labeled", label: { name: "bug", color: "d73a4a" } });
  });

  test("every delivery is recorded with status, response and duration; ids are unique", async () => {
    const { deliveryIds } = await w.emulator.controls.openIssue({ repo: "issuepool-demo/xdc-wallet-kit", title: "Recorded", author: "erin" });
    const ids = w.emulator.deliveries.map((d) => d.id);
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    const last = w.emulator.deliveries.find((d) => d.id === deliveryIds.at(-1))!;
    expect(last).toMatchObject({ status: 200, response: "ok", attempts: [{ status: 200 }] });
    expect(typeof last.durationMs).toBe("number");
    expect(last.body).toBe(JSON.stringify(last.payload));
  });

  test("a failed delivery is not retried; redelivery sends the same id and the same bytes", async () => {
    w.receiver.statuses.push(500);
    const before = w.receiver.received.length;
    const { deliveryIds } = await w.emulator.controls.closeIssue({ repo: "issuepool-demo/xdc-wallet-kit", number: 3, reason: "not_planned", actor: "alice" });
    const id = deliveryIds[0]!;
    expect(w.emulator.deliveries.find((d) => d.id === id)).toMatchObject({ status: 500, response: "receiver failed" });
    await w.emulator.controls.settle();
    expect(w.receiver.received.length).toBe(before + 1);

    const redelivered = await w.emulator.controls.redeliver(id);
    expect(redelivered.status).toBe(200);
    expect(redelivered.attempts.map((a) => a.status)).toEqual([500, 200]);
    const [first, second] = w.receiver.received.slice(before);
    expect(second!.headers.get("x-github-delivery")).toBe(id);
    expect(second!.body).toBe(first!.body);
    expect(payloadOf(second!)).toMatchObject({ action: "closed", issue: { number: 3, state: "closed", state_reason: "not_planned" } });
  });

  test("an unreachable endpoint is recorded with status 0", async () => {
    const offline = await startTestWorld();
    await offline.receiver.stop();
    try {
      const { deliveryIds } = await offline.emulator.controls.reopenIssue({ repo: "issuepool-demo/xdc-wallet-kit", number: 6 });
      const delivery = offline.emulator.deliveries.find((d) => d.id === deliveryIds[0])!;
      expect(delivery.status).toBe(0);
      expect(delivery.response).not.toBe("");
    } finally {
      await offline.emulator.stop();
    }
  });
});

describe("payloads", () => {
  test("installed repositories carry installation; API comments are sent by the bot", async () => {
    const { installation } = await w.emulator.controls.install({ account: "alice", repositories: "all" });
    const token = await installationToken(w, installation.id as number);
    const res = await api(w.emulator, "/repos/alice/xdc-explorer-lite/issues/1/comments", { token, method: "POST", body: { body: "Funded" } });
    expect(res.status).toBe(201);
    await w.emulator.controls.settle();
    const hook = payloadOf(w.receiver.received.at(-1)!);
    expect(hook).toMatchObject({ action: "created", comment: { body: "Funded" }, issue: { number: 1 }, sender: { login: `${APP_SLUG}[bot]`, type: "Bot" } });
    expect(hook.installation).toEqual({ id: installation.id, node_id: expect.any(String) });
    expect(hook.organization).toBeUndefined();
  });

  test("POST /repos/{o}/{r}/issues: 201 with the issue; opened by the bot for an installation, labels kept; issues.opened follows", async () => {
    const { installation } = await w.emulator.controls.install({ account: "alice", repositories: "all" });
    const token = await installationToken(w, installation.id as number);
    const path = "/repos/alice/xdc-explorer-lite/issues";
    const res = await api(w.emulator, path, { token, method: "POST", body: { title: "Add CSV export", body: "Depends on #1", labels: ["issuepool", { name: "scoped" }] } });
    expect(res.status).toBe(201);
    const issue = await res.json();
    expect(res.headers.get("location")).toBe(`${w.emulator.apiUrl}${path}/${issue.number}`);
    expect(issue).toMatchObject({ title: "Add CSV export", body: "Depends on #1", state: "open", user: { login: `${APP_SLUG}[bot]` } });
    expect(issue.labels.map((l: { name: string }) => l.name)).toEqual(["issuepool", "scoped"]);
    await w.emulator.controls.settle();
    const opened = w.receiver.received.map(payloadOf).find((p) => p.action === "opened" && p.issue?.number === issue.number);
    expect(opened).toMatchObject({ issue: { title: "Add CSV export" }, repository: { full_name: "alice/xdc-explorer-lite" } });
    expect((await api(w.emulator, `${path}/${issue.number}`, {})).status).toBe(200);
    // A user without push access opens issues too, but their labels are dropped; no title is 422; anonymous 401.
    const erin = await userToken(w.emulator, "erin");
    const byErin = await (await api(w.emulator, path, { token: erin, method: "POST", body: { title: "Typo", labels: ["bug"] } })).json();
    expect(byErin).toMatchObject({ user: { login: "erin" }, labels: [] });
    expect((await api(w.emulator, path, { token, method: "POST", body: { body: "no title" } })).status).toBe(422);
    expect((await api(w.emulator, path, { method: "POST", body: { title: "x" } })).status).toBe(401);
  });

  test("pull requests: opened, closed unmerged, reopened", async () => {
    const opened = await w.emulator.controls.openPullRequest({ repo: "issuepool-demo/contract-audit-tools", author: "erin", title: "SARIF export", body: "Closes #3", head: "sarif" });
    const number = opened.pull_request.number as number;
    const closed = await w.emulator.controls.closePullRequest({ repo: "issuepool-demo/contract-audit-tools", number });
    const reopened = await w.emulator.controls.reopenIssue({ repo: "issuepool-demo/contract-audit-tools", number });
    const hooks = receivedFor([...opened.deliveryIds, ...closed.deliveryIds, ...reopened.deliveryIds]);
    expect(hooks.map((r) => `${r.headers.get("x-github-event")}.${payloadOf(r).action}`)).toEqual(["pull_request.opened", "pull_request.closed", "pull_request.reopened"]);
    expect(payloadOf(hooks[0]!)).toMatchObject({ number, pull_request: { head: { ref: "sarif" }, base: { ref: "main" }, merged: false } });
    expect(payloadOf(hooks[1]!).pull_request.merged).toBe(false);
  });

  test("comment edits carry the previous body", async () => {
    const { comment } = await w.emulator.controls.addComment({ repo: "issuepool-demo/roxn-sdk", number: 2, author: "bob", body: "v1" });
    const bob = await userToken(w.emulator, "bob");
    await api(w.emulator, `/repos/issuepool-demo/roxn-sdk/issues/comments/${comment.id}`, { token: bob, method: "PATCH", body: { body: "v2" } });
    await w.emulator.controls.settle();
    expect(payloadOf(w.receiver.received.at(-1)!)).toMatchObject({ action: "edited", comment: { body: "v2" }, changes: { body: { from: "v1" } }, sender: { login: "bob" } });
  });

  test("repository renamed, transferred, privatized and publicized", async () => {
    const renamed = await w.emulator.controls.renameRepository({ repo: "dave/hello-xdc", name: "hello-xdc-network" });
    const transferred = await w.emulator.controls.transferRepository({ repo: "dave/hello-xdc-network", newOwner: "issuepool-demo", actor: "dave" });
    const privatized = await w.emulator.controls.setRepositoryVisibility({ repo: "issuepool-demo/hello-xdc-network", visibility: "private" });
    const publicized = await w.emulator.controls.setRepositoryVisibility({ repo: "issuepool-demo/hello-xdc-network", visibility: "public" });
    const [r, t, p, u] = receivedFor([...renamed.deliveryIds, ...transferred.deliveryIds, ...privatized.deliveryIds, ...publicized.deliveryIds]).map(payloadOf);
    expect(r).toMatchObject({ action: "renamed", changes: { repository: { name: { from: "hello-xdc" } } }, repository: { id: 5006, full_name: "dave/hello-xdc-network" } });
    expect(t).toMatchObject({ action: "transferred", changes: { owner: { from: { user: { login: "dave" } } } }, repository: { id: 5006, full_name: "issuepool-demo/hello-xdc-network" }, organization: { login: "issuepool-demo" } });
    expect(p).toMatchObject({ action: "privatized", repository: { private: true } });
    expect(u).toMatchObject({ action: "publicized", repository: { private: false } });
  });
});

describe("control endpoints", () => {
  test("JSON in, the changed object and delivery ids out; deliveries listed and redeliverable", async () => {
    const res = await fetch(`${w.emulator.url}/_emulator/issues`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ repo: "issuepool-demo/roxn-sdk", title: "From the control API", author: "bob" }) });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.issue).toMatchObject({ title: "From the control API", state: "open", user: { login: "bob" } });
    expect(body.deliveryIds).toHaveLength(1);
    const listed = (await (await fetch(`${w.emulator.url}/_emulator/deliveries`)).json()) as { id: string }[];
    expect(listed.map((d) => d.id)).toContain(body.deliveryIds[0]);
    const again = await fetch(`${w.emulator.url}/_emulator/deliveries/${body.deliveryIds[0]}/redeliver`, { method: "POST" });
    expect((await again.json()).attempts).toHaveLength(2);
    expect((await fetch(`${w.emulator.url}/_emulator/deliveries/nope/redeliver`, { method: "POST" })).status).toBe(404);
  });

  test("bad input is a 422 naming the field; unknown repositories a 404", async () => {
    const bad = await fetch(`${w.emulator.url}/_emulator/issues/close`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ repo: "issuepool-demo/roxn-sdk" }) });
    expect(bad.status).toBe(422);
    expect((await bad.json()).message).toContain("number");
    const missing = await fetch(`${w.emulator.url}/_emulator/pulls/merge`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ repo: "nobody/nothing", number: 1 }) });
    expect(missing.status).toBe(404);
  });

  test("the control page lists the world and posts forms back to itself", async () => {
    const page = await (await fetch(`${w.emulator.url}/_emulator`)).text();
    for (const text of ["alice", "issuepool-demo/xdc-wallet-kit", "Recent deliveries", 'action="/_emulator/pulls/merge"']) expect(page).toContain(text);
    const res = await postForm(`${w.emulator.url}/_emulator/issues/label`, { repo: "issuepool-demo/roxn-sdk", number: "1", label: "bounty" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/_emulator");
  });

  test("web pages for issues and pull requests", async () => {
    const issue = await fetch(`${w.emulator.url}/issuepool-demo/roxn-sdk/issues/1`);
    expect(await issue.text()).toContain("Publish typed ABI for ROXN");
    const redirected = await fetch(`${w.emulator.url}/issuepool-demo/xdc-wallet-kit/issues/7`, { redirect: "manual" });
    expect(redirected.headers.get("location")).toBe("/issuepool-demo/xdc-wallet-kit/pull/7");
    expect((await fetch(`${w.emulator.url}/carol/private-notes`)).status).toBe(404);
  });
});

describe("install page", () => {
  const installUrl = () => `${w.emulator.webUrl}/apps/${APP_SLUG}/installations/new?state=opaque-123`;

  async function signIn(login: string): Promise<string> {
    const res = await postForm(`${w.emulator.webUrl}/session`, { login, return_to: "/" });
    return res.headers.get("set-cookie")!.split(";")[0]!;
  }

  test("asks who you are first", async () => {
    const res = await fetch(installUrl(), { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/login?return_to=${encodeURIComponent(`/apps/${APP_SLUG}/installations/new?state=opaque-123`)}`);
  });

  test("installs on selected repositories, updates, and redirects to the setup URL each time", async () => {
    const fresh = await startTestWorld();
    try {
      const cookie = (await postForm(`${fresh.emulator.webUrl}/session`, { login: "alice", return_to: "/" })).headers.get("set-cookie")!.split(";")[0]!;
      const page = await (await fetch(`${fresh.emulator.webUrl}/apps/${APP_SLUG}/installations/new?state=opaque-123`, { headers: { Cookie: cookie } })).text();
      expect(page).toContain("Install on alice");
      expect(page).toContain("Install on issuepool-demo");
      expect(page).toContain('name="repository_ids" value="5001"');

      const submit = (fields: Record<string, string | string[]>) => postForm(`${fresh.emulator.webUrl}/apps/${APP_SLUG}/installations`, { account: "issuepool-demo", state: "opaque-123", ...fields }, cookie);
      const created = await submit({ repository_selection: "selected", repository_ids: ["5001"] });
      expect(created.status).toBe(302);
      const setup = new URL(created.headers.get("location")!);
      expect(`${setup.origin}${setup.pathname}`).toBe(`${PLATFORM}/github/setup`);
      expect(setup.searchParams.get("setup_action")).toBe("install");
      expect(setup.searchParams.get("state")).toBe("opaque-123");
      const installationId = Number(setup.searchParams.get("installation_id"));
      const createdHook = payloadOf(fresh.receiver.received.at(-1)!);
      expect(fresh.receiver.received.at(-1)!.headers.get("x-github-event")).toBe("installation");
      expect(createdHook).toMatchObject({ action: "created", installation: { id: installationId, account: { login: "issuepool-demo" }, repository_selection: "selected" }, sender: { login: "alice" } });
      expect(createdHook.repositories.map((r: { full_name: string }) => r.full_name)).toEqual(["issuepool-demo/xdc-wallet-kit"]);

      const updated = await submit({ repository_selection: "all" });
      const updateUrl = new URL(updated.headers.get("location")!);
      expect(updateUrl.searchParams.get("setup_action")).toBe("update");
      expect(Number(updateUrl.searchParams.get("installation_id"))).toBe(installationId);
      const added = payloadOf(fresh.receiver.received.at(-1)!);
      expect(added).toMatchObject({ action: "added", repository_selection: "all", repositories_removed: [] });
      expect(added.repositories_added.map((r: { full_name: string }) => r.full_name)).toEqual(["issuepool-demo/contract-audit-tools", "issuepool-demo/roxn-sdk", "issuepool-demo/tool-library"]);

      await submit({ repository_selection: "selected", repository_ids: ["5002"] });
      const removed = payloadOf(fresh.receiver.received.at(-1)!);
      expect(removed).toMatchObject({ action: "removed", repository_selection: "selected", repositories_added: [] });
      expect(removed.repositories_removed.map((r: { full_name: string }) => r.full_name)).toEqual(["issuepool-demo/roxn-sdk", "issuepool-demo/tool-library", "issuepool-demo/xdc-wallet-kit"]);

      const uninstall = await postForm(`${fresh.emulator.webUrl}/settings/installations/${installationId}/delete`, {}, cookie);
      expect(uninstall.status).toBe(303);
      expect(payloadOf(fresh.receiver.received.at(-1)!)).toMatchObject({ action: "deleted", installation: { id: installationId } });
    } finally {
      await fresh.stop();
    }
  });

  test("a member who does not own the organisation cannot install there", async () => {
    const cookie = await signIn("bob");
    const page = await (await fetch(installUrl(), { headers: { Cookie: cookie } })).text();
    expect(page).toContain("Install on bob");
    expect(page).not.toContain("Install on issuepool-demo");
    const res = await postForm(`${w.emulator.webUrl}/apps/${APP_SLUG}/installations`, { account: "issuepool-demo", repository_selection: "all" }, cookie);
    expect(res.status).toBe(404);
  });
});
