import { afterAll, beforeAll, expect, test } from "bun:test";
import { testEnv } from "../testing/context.ts";
import { forgetInstallationToken, installationToken } from "./app-auth.ts";

/**
 * An installation id is unique only within one GitHub: two GitHubs (the test
 * suite runs an emulator per stack) never get each other's cached token.
 */
const servers: ReturnType<typeof Bun.serve>[] = [];
const issued: string[] = [];

function fakeGitHub(name: string) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const token = `${name}-${issued.length}`;
      issued.push(`${new URL(req.url).pathname} ${token}`);
      return Response.json({ token, expires_at: new Date(Date.now() + 3600_000).toISOString() });
    },
  });
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

let one: { env: Awaited<ReturnType<typeof testEnv>> };
let two: { env: Awaited<ReturnType<typeof testEnv>> };
beforeAll(async () => {
  one = { env: await testEnv({ GITHUB_API_URL: fakeGitHub("one") }) };
  two = { env: await testEnv({ GITHUB_API_URL: fakeGitHub("two") }) };
});
afterAll(() => servers.forEach((s) => s.stop(true)));

test("installation tokens are cached per GitHub, not per installation id alone", async () => {
  const first = await installationToken(one, 7);
  expect(first).toStartWith("one-");
  expect(await installationToken(one, 7)).toBe(first);
  expect(await installationToken(two, 7)).toStartWith("two-");
  expect(issued.map((line) => line.split(" ")[0])).toEqual(["/app/installations/7/access_tokens", "/app/installations/7/access_tokens"]);
  forgetInstallationToken(one, 7);
  expect(await installationToken(one, 7)).not.toBe(first);
});
