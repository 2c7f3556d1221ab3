import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, encodeFunctionData, http, parseEther, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { startTestChain, type TestChain } from "../../testing/chain.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { anvilPrivateKey } from "../../testing/dev-tools.ts";
import { startMailSink, type MailSink } from "../../testing/dev-tools.ts";
import { EscrowWatcher } from "./watcher.ts";

/**
 * The escrow watcher (issue 19): outflows the outbox sent pass; an outflow
 * sent with the operator key outside the platform pauses the contract with
 * the guardian key within one poll, and mails an alert to the SMTP sink.
 */
let chain: TestChain;
let t: TestContext;
let sink: MailSink;
const ALERTS = "escrow-alerts@example.org";

beforeAll(async () => {
  chain = await startTestChain();
  sink = await startMailSink();
  t = await createTestContext({ fileDatabase: true, env: { ...chain.env, SMTP_URL: sink.smtpUrl } });
}, 60_000);
afterAll(async () => {
  t?.close();
  await chain?.stop();
  await sink?.stop();
});

const rewards = () => chain.deployment.repoRewards;
const call = (functionName: "fundPoolXdc" | "allocateBounty" | "payBounty", args: readonly unknown[]) =>
  encodeFunctionData({ abi: RepoRewardsAbi, functionName, args } as never) as Hex;

/** An operator transaction through the outbox, once confirmed. */
async function throughOutbox(key: string, data: Hex, value?: bigint) {
  const { tx } = await t.ctx.outbox.submit({ userId: null, idempotencyKey: key, request: { key }, kind: "test", intent: {}, signer: { kind: "operator" }, to: rewards(), data, value });
  const settled = await t.ctx.outbox.waitForSettled(tx.id, 10_000);
  expect(settled.status).toBe("confirmed");
}

function watcher(nearCap?: number) {
  return new EscrowWatcher({
    db: t.ctx.database.db,
    chain: t.ctx.chain,
    guardian: privateKeyToAccount(chain.guardianKey),
    log: t.ctx.log,
    mailer: t.ctx.mailer,
    alertTo: [ALERTS],
    nearCap,
  });
}

const paused = () => t.ctx.chain.client.readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "paused" });

describe("the escrow watcher", () => {
  test("passes the platform's own outflows; an outflow sent with the operator key outside the outbox pauses the contract within one poll and mails an alert", async () => {
    const repoId = 5101n;
    const w = watcher();
    await throughOutbox("w-fund", call("fundPoolXdc", [repoId, 50]), parseEther("20"));
    await throughOutbox("w-alloc-1", call("allocateBounty", [repoId, 1n, 0, parseEther("2")]));
    await throughOutbox("w-pay-1", call("payBounty", [repoId, 1n, "0x00000000000000000000000000000000000000aa"]));
    expect(await w.runOnce()).toEqual([]);
    expect(await paused()).toBe(false);

    // The stolen key, used from elsewhere: the outbox never sent these.
    const thief = createWalletClient({ account: privateKeyToAccount(anvilPrivateKey(1)), chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl) });
    // Gas set, not estimated: an estimate made in one second and mined in the next can miss the caps' new checkpoint
    // (one more storage write) and run out, and a reverted theft shows no outflow (as the adversarial test found).
    const send = async (data: Hex) => {
      const receipt = await t.ctx.chain.client.waitForTransactionReceipt({ hash: await thief.sendTransaction({ to: rewards(), data, gas: 1_000_000n }) });
      expect(receipt.status).toBe("success");
      return receipt;
    };
    await send(call("allocateBounty", [repoId, 2n, 0, parseEther("3")]));
    const stolen = await send(call("payBounty", [repoId, 2n, thief.account.address]));

    const findings = await w.runOnce();
    expect(findings.map((f) => ({ kind: f.kind, txHash: f.txHash }))).toEqual([{ kind: "unknown-outflow", txHash: stolen.transactionHash }]);
    expect(await paused()).toBe(true);
    const mail = await sink.waitFor((m) => m.to.includes(ALERTS), 10_000);
    expect(mail.subject).toBe("Issuepool escrow paused: an outflow the platform did not send");
    expect(mail.text).toContain(stolen.transactionHash);
    expect(mail.text).toContain("The guardian paused the contract");

    // Nothing more moves until the admin unpauses; the next poll finds nothing new.
    expect(await w.runOnce()).toEqual([]);
    const admin = createWalletClient({ account: privateKeyToAccount(chain.adminKey), chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl) });
    await t.ctx.chain.client.waitForTransactionReceipt({ hash: await admin.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "unpause", args: [] }) });
  }, 60_000);

  test("outflows near a daily cap pause the contract and alert, even when the platform sent them", async () => {
    const repoId = 5102n;
    // The test chain's caps: 10,000 XDC per repository a day. With "near" at 0.05%, a 6 XDC payout is near.
    const w = watcher(0.0005);
    await w.runOnce(); // past the earlier test's blocks
    await throughOutbox("wc-fund", call("fundPoolXdc", [repoId, 50]), parseEther("20"));
    await throughOutbox("wc-alloc", call("allocateBounty", [repoId, 1n, 0, parseEther("6")]));
    await throughOutbox("wc-pay", call("payBounty", [repoId, 1n, "0x00000000000000000000000000000000000000bb"]));
    const findings = await w.runOnce();
    expect(findings.map((f) => f.kind)).toContain("near-cap");
    expect(await paused()).toBe(true);
    const mail = await sink.waitFor((m) => m.to.includes(ALERTS) && m.subject.includes("near a daily cap"), 10_000);
    expect(mail.text).toContain(`repository ${repoId}`);
    const admin = createWalletClient({ account: privateKeyToAccount(chain.adminKey), chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl) });
    await t.ctx.chain.client.waitForTransactionReceipt({ hash: await admin.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "unpause", args: [] }) });
  }, 60_000);

  test("an escrowed tip paid with the operator key outside the outbox pauses the contract (RepoRewards v3)", async () => {
    const w = watcher();
    await w.runOnce(); // past the earlier tests' blocks
    const client = t.ctx.chain.client;
    const chainConfig = t.ctx.chain.config.chain;
    // A tipper's tip held for GitHub user 4242: money coming in, no outflow.
    const tipper = createWalletClient({ account: privateKeyToAccount(anvilPrivateKey(6)), chain: chainConfig, transport: http(chain.anvil.rpcUrl) });
    await client.waitForTransactionReceipt({
      hash: await tipper.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "escrowTipXdc", args: [4242n, 50], value: parseEther("5"), gas: 1_000_000n }),
    });
    expect(await w.runOnce()).toEqual([]);
    const tipId = await client.readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "nextTipId" });
    const thief = createWalletClient({ account: privateKeyToAccount(anvilPrivateKey(1)), chain: chainConfig, transport: http(chain.anvil.rpcUrl) });
    const stolen = await client.waitForTransactionReceipt({
      // Gas set, not estimated (see the first test): a theft that ran out of gas would show nothing to find.
      hash: await thief.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "payTip", args: [tipId, thief.account.address], gas: 1_000_000n }),
    });
    expect(stolen.status).toBe("success");
    const findings = await w.runOnce();
    expect(findings.map((f) => ({ kind: f.kind, txHash: f.txHash }))).toEqual([{ kind: "unknown-outflow", txHash: stolen.transactionHash }]);
    expect(await paused()).toBe(true);
    const admin = createWalletClient({ account: privateKeyToAccount(chain.adminKey), chain: chainConfig, transport: http(chain.anvil.rpcUrl) });
    await client.waitForTransactionReceipt({ hash: await admin.writeContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "unpause", args: [] }) });
  }, 60_000);
});
