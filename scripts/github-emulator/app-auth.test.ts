import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JWT_ERRORS } from "./app-auth.ts";
import { APP_ID, APP_SLUG, api, appClaims, installationToken, makeAppKeys, signJwt, startTestWorld, userToken, type TestWorld } from "./test-support.ts";

let w: TestWorld;
let demoInstallation: number;
let carolInstallation: number;

beforeAll(async () => {
  w = await startTestWorld();
  const demo = await w.emulator.controls.install({ account: "issuepool-demo", repositories: ["xdc-wallet-kit", "contract-audit-tools"], sender: "alice" });
  const carol = await w.emulator.controls.install({ account: "carol", repositories: "all" });
  demoInstallation = demo.installation.id as number;
  carolInstallation = carol.installation.id as number;
});
afterAll(() => w.stop());

const jwt = (overrides: Record<string, unknown> = {}) => signJwt(w.keys.privateKey, appClaims(w.clock.now, overrides));
const nowS = () => Math.floor(w.clock.now / 1000);

describe("app JWT", () => {
  test("a valid RS256 JWT authenticates as the app (iss as number or string)", async () => {
    for (const iss of [APP_ID, String(APP_ID)]) {
      const res = await api(w.emulator, "/app", { token: await jwt({ iss }) });
      expect(res.status).toBe(200);
      const app = await res.json();
      expect(app).toMatchObject({ id: APP_ID, slug: APP_SLUG, permissions: { issues: "write", metadata: "read" } });
    }
  });

  test("a JWT signed with another key could not be decoded", async () => {
    const other = await makeAppKeys();
    const res = await api(w.emulator, "/app", { token: await signJwt(other.privateKey, appClaims(w.clock.now)) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: JWT_ERRORS.decode, documentation_url: "https://docs.github.com/rest", status: "401" });
  });

  test("an expired JWT is refused with GitHub's message", async () => {
    const res = await api(w.emulator, "/app", { token: await jwt({ iat: nowS() - 1200, exp: nowS() - 600 }) });
    expect(res.status).toBe(401);
    expect((await res.json()).message).toBe(JWT_ERRORS.expired);
  });

  test("exp more than ten minutes after iat is too far in the future", async () => {
    const res = await api(w.emulator, "/app", { token: await jwt({ iat: nowS(), exp: nowS() + 3600 }) });
    expect(res.status).toBe(401);
    expect((await res.json()).message).toBe("'Expiration time' claim ('exp') is too far in the future");
  });

  test("a minute of clock skew is tolerated", async () => {
    expect((await api(w.emulator, "/app", { token: await jwt({ iat: nowS() + 50, exp: nowS() + 600 }) })).status).toBe(200);
  });

  test("a user token on an app endpoint is not a JWT", async () => {
    const res = await api(w.emulator, "/app/installations", { token: await userToken(w.emulator, "alice") });
    expect(res.status).toBe(401);
    expect((await res.json()).message).toBe(JWT_ERRORS.decode);
  });

  test("installations of the app, and of a repository", async () => {
    const token = await jwt();
    const list = await (await api(w.emulator, "/app/installations", { token })).json();
    expect(list.map((i: { id: number }) => i.id).sort()).toEqual([demoInstallation, carolInstallation].sort());
    const inst = await (await api(w.emulator, "/repos/issuepool-demo/xdc-wallet-kit/installation", { token })).json();
    expect(inst).toMatchObject({ id: demoInstallation, app_id: APP_ID, app_slug: APP_SLUG, target_type: "Organization", repository_selection: "selected", account: { login: "issuepool-demo" } });
    expect((await api(w.emulator, "/repos/alice/xdc-explorer-lite/installation", { token })).status).toBe(404);
    expect((await api(w.emulator, "/repos/issuepool-demo/roxn-sdk/installation", { token })).status).toBe(404);
  });
});

describe("installation tokens", () => {
  test("are minted with a JWT: 201, ghs_, one hour, the app's permissions", async () => {
    const res = await api(w.emulator, `/app/installations/${demoInstallation}/access_tokens`, { token: await jwt(), method: "POST" });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.token).toMatch(/^ghs_[A-Za-z0-9]{36}$/);
    expect(Date.parse(body.expires_at) - w.clock.now).toBeGreaterThan(3590_000);
    expect(body).toMatchObject({ permissions: { issues: "write" }, repository_selection: "selected" });
    expect((await api(w.emulator, "/app/installations/999/access_tokens", { token: await jwt(), method: "POST" })).status).toBe(404);
  });

  test("list exactly the installation's repositories, paginated", async () => {
    const token = await installationToken(w, demoInstallation);
    const res = await api(w.emulator, "/installation/repositories?per_page=1", { token });
    const body = await res.json();
    expect(body.total_count).toBe(2);
    expect(body.repositories.map((r: { full_name: string }) => r.full_name)).toEqual(["issuepool-demo/contract-audit-tools"]);
    expect(res.headers.get("link")).toContain('rel="next"');
  });

  test("cannot see a private repository outside the installation, nor write outside it", async () => {
    const demo = await installationToken(w, demoInstallation);
    expect((await api(w.emulator, "/repos/carol/private-notes", { token: demo })).status).toBe(404);
    expect((await api(w.emulator, "/repos/carol/private-notes/issues/1", { token: demo })).status).toBe(404);
    // Public data stays readable, as with GitHub's installation tokens, but writing needs the repository in the installation.
    expect((await api(w.emulator, "/repos/issuepool-demo/roxn-sdk", { token: demo })).status).toBe(200);
    const refused = await api(w.emulator, "/repos/issuepool-demo/roxn-sdk/issues/1/comments", { token: demo, method: "POST", body: { body: "hi" } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toBe("Resource not accessible by integration");

    const carol = await installationToken(w, carolInstallation);
    expect((await api(w.emulator, "/repos/carol/private-notes", { token: carol })).status).toBe(200);
  });

  test("expire after an hour", async () => {
    const token = await installationToken(w, demoInstallation);
    w.clock.now += 61 * 60 * 1000;
    try {
      const res = await api(w.emulator, "/installation/repositories", { token });
      expect(res.status).toBe(401);
      expect((await res.json()).message).toBe("Bad credentials");
    } finally {
      w.clock.now -= 61 * 60 * 1000;
    }
  });
});

describe("user-accessible installations", () => {
  test("need a GitHub App user token; an OAuth app token is refused", async () => {
    const res = await api(w.emulator, "/user/installations", { token: await userToken(w.emulator, "bob", "oauth") });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toContain("authorized to a GitHub App");
  });

  test("list installations on the user's account and their organisations", async () => {
    const bob = await (await api(w.emulator, "/user/installations", { token: await userToken(w.emulator, "bob", "app") })).json();
    expect(bob.total_count).toBe(1);
    expect(bob.installations[0].account.login).toBe("issuepool-demo");
    const carol = await (await api(w.emulator, "/user/installations", { token: await userToken(w.emulator, "carol", "app") })).json();
    expect(carol.installations.map((i: { id: number }) => i.id)).toEqual([carolInstallation]);
    const dave = await (await api(w.emulator, "/user/installations", { token: await userToken(w.emulator, "dave", "app") })).json();
    expect(dave.total_count).toBe(0);
  });

  test("list an installation's repositories the user can access, with their permissions", async () => {
    const erin = await userToken(w.emulator, "erin", "app");
    const body = await (await api(w.emulator, `/user/installations/${demoInstallation}/repositories`, { token: erin })).json();
    expect(body.repositories.map((r: { full_name: string; permissions: { push: boolean; admin: boolean } }) => [r.full_name, r.permissions.push, r.permissions.admin])).toEqual([
      ["issuepool-demo/contract-audit-tools", true, false],
      ["issuepool-demo/xdc-wallet-kit", true, false],
    ]);
    const dave = await userToken(w.emulator, "dave", "app");
    expect((await api(w.emulator, `/user/installations/${demoInstallation}/repositories`, { token: dave })).status).toBe(404);
  });

  test("a GitHub App user token reaches only repositories where the app is installed", async () => {
    const alice = await userToken(w.emulator, "alice", "app");
    const repos = await (await api(w.emulator, "/user/repos", { token: alice })).json();
    expect(repos.map((r: { full_name: string }) => r.full_name)).toEqual(["issuepool-demo/contract-audit-tools", "issuepool-demo/xdc-wallet-kit"]);
  });
});
