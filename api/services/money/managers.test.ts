import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, http, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { anvilPrivateKey } from "../../../testing/dev-tools.ts";
import { reviewAllPoolManagers } from "./managers.ts";

/**
 * Pool managers follow GitHub (issue 19, M2): a maintainer who loses admin
 * rights on the repository is removed as pool manager on-chain when GitHub
 * says so (the member webhook), and the periodic check removes any manager
 * that is no admin or no platform wallet at all.
 */
const REPO = { id: 5001, fullName: "issuepool-demo/xdc-wallet-kit" };
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let erin: TestSession & { wallet: Address };
let n = 0;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": `managers-${n++}-${Date.now()}` } });
const managers = () =>
  stack.t.ctx.chain.client.readContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "poolManagers", args: [BigInt(REPO.id)] });

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  alice = await stack.signUp("alice", "poolmanager");
  erin = await stack.signUp("erin", "poolmanager");
  await stack.chain.fund(alice.wallet, { xdc: "100" });
  await stack.chain.fund(erin.wallet, { xdc: "100" });
  const installed = await stack.github.controls.install({ account: "issuepool-demo", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  const registered = await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: REPO.id, githubRepoFullName: REPO.fullName } });
  expect((await registered.json()).success).toBe(true);
}, 120_000);
afterAll(() => stack?.stop());

describe("pool managers follow GitHub's admin rights", () => {
  test("a maintainer demoted on GitHub is removed as pool manager on-chain; the admin who still is stays", async () => {
    await stack.github.controls.setCollaborator({ repo: REPO.fullName, login: "erin", permission: "admin" });
    const funded = await money(erin, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "2", repositoryFullName: REPO.fullName });
    expect(funded.status).toBe(200);
    await eventually(async () => (await managers()).includes(erin.wallet), 15_000, "erin appointed");

    await stack.github.controls.setCollaborator({ repo: REPO.fullName, login: "erin", permission: "write" });
    await eventually(async () => !(await managers()).includes(erin.wallet), 20_000, "erin removed after the member webhook");
    expect(await managers()).toContain(alice.wallet);
    // And the platform no longer lets her withdraw (GitHub says she is no admin), nor could she on-chain.
    const refused = await money(erin, `/api/blockchain/repository/${REPO.id}/withdraw`, { currency: "XDC", amount: "1", repositoryFullName: REPO.fullName });
    expect(refused.status).toBe(403);
  }, 60_000);

  test("the periodic check removes a manager that is no platform wallet (appointed with the operator key outside the platform)", async () => {
    const stranger = "0x00000000000000000000000000000000000000cc" as Address;
    const operator = createWalletClient({ account: privateKeyToAccount(anvilPrivateKey(1)), chain: stack.t.ctx.chain.config.chain, transport: http(stack.chain.anvil.rpcUrl) });
    await stack.t.ctx.chain.client.waitForTransactionReceipt({
      hash: await operator.writeContract({ address: stack.t.ctx.chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "addPoolManager", args: [BigInt(REPO.id), stranger] }),
    });
    expect(await managers()).toContain(stranger);
    await reviewAllPoolManagers(stack.t.ctx);
    await eventually(async () => !(await managers()).includes(stranger), 15_000, "stranger removed");
    expect(await managers()).toContain(alice.wallet);
  }, 60_000);
});
