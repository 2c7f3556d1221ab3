import { expect, test } from "bun:test";
import { installationToken } from "./app-auth.ts";
import { startEmulatorFor } from "../../testing/stack.ts";
import { testEnv } from "../../testing/context.ts";
import { sharedTestSecrets } from "../../testing/dev-tools.ts";

// Bug: installation tokens were cached by installation id alone, so a process that had talked to one GitHub
// (another emulator, an Enterprise server) handed its token to the next one with the same installation id.
test("installation tokens are kept per GitHub: the same installation id on two GitHubs gets two tokens", async () => {
  const secrets = await sharedTestSecrets();
  const [first, second] = await Promise.all([startEmulatorFor("http://127.0.0.1:9", secrets), startEmulatorFor("http://127.0.0.1:9", secrets)]);
  try {
    const a = await first.controls.install({ account: "issuepool-demo", repositories: "all" });
    const b = await second.controls.install({ account: "issuepool-demo", repositories: "all" });
    expect(a.installation.id).toBe(b.installation.id);
    const envA = await testEnv({ GITHUB_URL: first.webUrl, GITHUB_API_URL: first.apiUrl });
    const envB = await testEnv({ GITHUB_URL: second.webUrl, GITHUB_API_URL: second.apiUrl });
    const tokenA = await installationToken({ env: envA }, a.installation.id as number);
    const tokenB = await installationToken({ env: envB }, b.installation.id as number);
    expect(tokenB).not.toBe(tokenA);
    const res = await fetch(`${second.apiUrl}/installation/repositories`, { headers: { Authorization: `Bearer ${tokenB}` } });
    expect(res.status).toBe(200);
    expect(await installationToken({ env: envA }, a.installation.id as number)).toBe(tokenA);
  } finally {
    await Promise.all([first.stop(), second.stop()]);
  }
});
