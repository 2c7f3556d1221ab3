import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, like } from "drizzle-orm";
import { createPublicClient, createWalletClient, encodeFunctionData, http, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { createTestUser } from "../../testing/auth.ts";
import { startTestChain, type TestChain } from "../../testing/chain.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { chainTransactions, walletNonces, wallets, workerLeases } from "../../db/schema/index.ts";
import { walletOfUser } from "../services/wallets/custodial.ts";
import { createChainAccess } from "./clients.ts";
import { Outbox, REBROADCAST_AFTER_MS, SIGNER_LEASE_MS, type OutboxRequest } from "./outbox.ts";
import { eventually } from "../../testing/stack.ts";
import { hasCode } from "../errors.ts";
import { isUniqueViolation } from "../../db/client.ts";

let chain: TestChain;
let t: TestContext;
let keySeq = 0;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestContext({ fileDatabase: true, env: chain.env });
}, 60_000);
afterAll(async () => {
  t?.close();
  await chain?.stop();
});
// A test leaves no work behind: rows it only enqueued would otherwise be signed first by the next test's pass.
afterEach(async () => {
  const pending = await t.ctx.database.db
    .select({ id: chainTransactions.id })
    .from(chainTransactions)
    .where(inArray(chainTransactions.status, ["queued", "signed", "sent"]));
  for (const row of pending) await t.ctx.outbox.waitForSettled(row.id, 20_000);
});

const rewards = () => chain.deployment.repoRewards;
const operatorNonce = () => t.ctx.chain.client.getTransactionCount({ address: t.ctx.chain.operator.address });

function setManager(repoId: bigint, manager: Address, key = `k-${keySeq++}`): OutboxRequest {
  return {
    userId: null,
    idempotencyKey: key,
    request: { repoId: String(repoId), manager },
    kind: "set_pool_manager",
    intent: { repoId: String(repoId), manager },
    signer: { kind: "operator" },
    to: rewards(),
    data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "addPoolManager", args: [repoId, manager] }),
  };
}

describe("the transaction outbox", () => {
  test("a transaction goes queued -> signed -> sent -> confirmed, and happens on-chain", async () => {
    const manager = "0x00000000000000000000000000000000000000a1" as Address;
    const { tx } = await t.ctx.outbox.submit(setManager(1n, manager));
    expect(tx.status === "sent" || tx.status === "confirmed").toBe(true);
    expect(tx.rawTx).toStartWith("0x");
    const settled = await t.ctx.outbox.waitForSettled(tx.id, 10_000);
    expect(settled.status).toBe("confirmed");
    expect(settled.blockNumber).toBeGreaterThan(0);
    const onChain = await t.ctx.chain.client.readContract({ address: rewards(), abi: RepoRewardsAbi, functionName: "isPoolManager", args: [1n, manager] });
    expect(onChain).toBe(true);
  });

  test("replaying the same idempotency key returns the first row and sends nothing more", async () => {
    const request = setManager(2n, "0x00000000000000000000000000000000000000a2", "same-key");
    const first = await t.ctx.outbox.submit(request);
    await t.ctx.outbox.waitForSettled(first.tx.id, 10_000);
    const before = await operatorNonce();
    const again = await t.ctx.outbox.submit(request);
    expect(again.replayed).toBe(true);
    expect(again.tx.id).toBe(first.tx.id);
    expect(again.tx.txHash).toBe(first.tx.txHash);
    expect(await operatorNonce()).toBe(before);
  });

  test("the same key for a different request is refused", async () => {
    await t.ctx.outbox.submit(setManager(3n, "0x00000000000000000000000000000000000000a3", "reused"));
    await expect(t.ctx.outbox.submit(setManager(4n, "0x00000000000000000000000000000000000000a4", "reused"))).rejects.toMatchObject({
      code: "idempotency_conflict",
    });
  });

  test("a transaction that would revert fails before signing and uses no nonce", async () => {
    const before = await operatorNonce();
    const { tx } = await t.ctx.outbox.submit({
      ...setManager(5n, "0x00000000000000000000000000000000000000a5"),
      kind: "allocate_bounty",
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "allocateBounty", args: [5n, 1n, 0, 10n ** 18n] }),
    });
    expect(tx.status).toBe("failed");
    expect(tx.nonce).toBeNull();
    expect(tx.rawTx).toBeNull();
    expect(tx.error).toContain("InsufficientPool");
    expect(await operatorNonce()).toBe(before);
    const next = await t.ctx.outbox.submit(setManager(5n, "0x00000000000000000000000000000000000000a5"));
    expect(next.tx.nonce).toBe(before);
  });

  test("concurrent transactions from one signer get contiguous nonces, each once", async () => {
    const start = await operatorNonce();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.ctx.outbox.submit(setManager(100n + BigInt(i), "0x00000000000000000000000000000000000000b0"), { timeoutMs: 30_000 })),
    );
    const settled = await Promise.all(results.map((r) => t.ctx.outbox.waitForSettled(r.tx.id, 30_000)));
    expect(settled.every((tx) => tx.status === "confirmed")).toBe(true);
    const nonces = settled.map((tx) => tx.nonce!).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => start + i));
    expect(await operatorNonce()).toBe(start + 20);
    // Passes that follow one another keep the signer's lease; the last hands it back (it may still be finishing).
    const signerLeases = () => t.ctx.database.db.select().from(workerLeases).where(like(workerLeases.name, "signer:%"));
    // A pass holds the lease at most SIGNER_LEASE_MS: the deadline follows the configuration, not a guess.
    await eventually(async () => (await signerLeases()).length === 0, SIGNER_LEASE_MS, "the signer's lease handed back");
    expect(await signerLeases()).toEqual([]);
  });

  test("a receipt counts at once, whatever block number the client cached a moment before", async () => {
    // viem caches the block number for a polling interval: 5 s here.
    const slow = { ...t.ctx.chain, client: createPublicClient({ chain: t.ctx.chain.config.chain, transport: http(chain.anvil.rpcUrl), pollingInterval: 5_000 }) as PublicClient };
    const outbox = new Outbox({ db: t.ctx.database.db, chain: slow, keyring: t.ctx.keyring, log: t.ctx.log });
    await slow.client.getBlockNumber();
    const { tx } = await outbox.submit(setManager(400n, "0x00000000000000000000000000000000000000d0"));
    expect((await outbox.waitForSettled(tx.id, 2_000)).status).toBe("confirmed");
  });

  test("a signer's lease held by another process: no pass signs until it is handed back", async () => {
    const name = `signer:${t.ctx.chain.config.chain.id}:${t.ctx.chain.operator.address}`;
    await t.ctx.database.db.insert(workerLeases).values({ name, owner: "another-process", until: new Date(Date.now() + 60_000) });
    const { tx } = await t.ctx.outbox.submit(setManager(300n, "0x00000000000000000000000000000000000000c0"), { timeoutMs: 300 });
    expect(tx.status).toBe("queued");
    await t.ctx.database.db.delete(workerLeases).where(eq(workerLeases.name, name));
    expect((await t.ctx.outbox.waitForSettled(tx.id, 10_000)).status).toBe("confirmed");
  });

  test("a wallet without XDC for gas: the row fails, nothing is signed, no nonce is used", async () => {
    const user = await createTestUser(t, { role: "poolmanager" });
    const wallet = (await walletOfUser(t.ctx.database.db, user.id))!;
    const { tx } = await t.ctx.outbox.submit({
      userId: user.id,
      idempotencyKey: "broke",
      request: {},
      kind: "fund_xdc",
      intent: {},
      signer: { kind: "wallet", wallet },
      to: rewards(),
      data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [1n, 50] }),
      value: 2n * 10n ** 18n,
    });
    expect(tx.status).toBe("failed");
    expect(tx.nonce).toBeNull();
    const nonces = await t.ctx.database.db.select().from(walletNonces).where(eq(walletNonces.key, `${tx.chainId}:${wallet.address}`));
    expect(nonces).toHaveLength(0);
  });

  test("a wallet whose key cannot be decrypted: the row fails at once as a key error, not as an unreachable chain, and is not retried", async () => {
    const user = await createTestUser(t, { role: "poolmanager" });
    const wallet = (await walletOfUser(t.ctx.database.db, user.id))!;
    await chain.fund(wallet.address as Address, { xdc: "5" });
    // The row given to another user (issue 15, finding 6): its key no longer decrypts.
    const other = await createTestUser(t, { registered: false });
    await t.ctx.database.db.update(wallets).set({ userId: other.id }).where(eq(wallets.id, wallet.id));
    const { tx } = await t.ctx.outbox.submit(
      {
        userId: user.id,
        idempotencyKey: "undecryptable",
        request: {},
        kind: "send_xdc",
        intent: {},
        signer: { kind: "wallet", wallet },
        to: "0x00000000000000000000000000000000000000e7",
        data: "0x",
        value: 10n ** 18n,
      },
      { timeoutMs: 0 },
    );
    const settled = await t.ctx.outbox.waitForSettled(tx.id, 10_000);
    expect(settled.status).toBe("failed");
    expect(settled.error).toMatch(/^the signing key could not be used/);
    expect(settled.attempts).toBeLessThanOrEqual(1);
    expect(settled.nonce).toBeNull();
  });

  test("after a crash a signed transaction is re-broadcast as it was, never signed again", async () => {
    // A node that accepts everything but never receives the broadcast: the process "dies" right after signing.
    let drop = true;
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = await request.text();
        if (drop && body.includes("eth_sendRawTransaction")) return new Response("upstream went away", { status: 502 });
        return fetch(chain.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      },
    });
    try {
      const crashing = new Outbox({
        db: t.ctx.database.db,
        chain: createChainAccess({ ...t.env, CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` }),
        keyring: t.ctx.keyring,
        log: t.log,
      });
      const before = await operatorNonce();
      const { tx } = await crashing.submit(setManager(7n, "0x00000000000000000000000000000000000000a7"), { timeoutMs: 500 });
      expect(tx.status).toBe("signed");
      expect(tx.nonce).toBe(before);
      const signedRaw = tx.rawTx;

      // "Restart": a fresh worker on the same database, the node reachable again.
      drop = false;
      const restarted = new Outbox({ db: t.ctx.database.db, chain: t.ctx.chain, keyring: t.ctx.keyring, log: t.log });
      await restarted.runOnce();
      const after = await restarted.waitForSettled(tx.id, 10_000);
      expect(after.status).toBe("confirmed");
      expect(after.rawTx).toBe(signedRaw);
      expect(after.nonce).toBe(before);
      expect(await operatorNonce()).toBe(before + 1);
      const rows = await t.ctx.database.db.select().from(chainTransactions).where(eq(chainTransactions.id, tx.id));
      expect(rows).toHaveLength(1);
    } finally {
      proxy.stop(true);
    }
  });
});

describe("signing in passes", () => {
  test("a refusal in the middle of a pass: that row fails, the later ones go back to queued and are signed again with no gap", async () => {
    // A node that refuses the second broadcast it sees, as a node does when the sender is short of XDC.
    let sends = 0;
    const proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const body = await request.text();
        if (body.includes("eth_sendRawTransaction") && ++sends === 2) {
          const { id } = JSON.parse(body) as { id: number };
          return Response.json({ jsonrpc: "2.0", id, error: { code: -32003, message: "insufficient funds for gas * price + value" } });
        }
        return fetch(chain.anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body });
      },
    });
    try {
      const outbox = new Outbox({
        db: t.ctx.database.db,
        chain: createChainAccess({ ...t.env, CHAIN_RPC_URL: `http://127.0.0.1:${proxy.port}` }),
        keyring: t.ctx.keyring,
        log: t.log,
      });
      const start = await operatorNonce();
      const rows = [];
      for (let i = 0; i < 3; i++) rows.push((await outbox.enqueue(setManager(300n + BigInt(i), "0x00000000000000000000000000000000000000d1"))).tx);
      await outbox.advance(rows[0]!.id); // one pass: signs all three, sends the first, the node refuses the second
      const [first, second, third] = await Promise.all(rows.map((r) => outbox.get(r.id)));
      expect(["sent", "confirmed"]).toContain(first!.status);
      expect(first!.nonce).toBe(start);
      expect([second!.status, second!.nonce, second!.rawTx !== null]).toEqual(["failed", null, true]);
      expect(second!.error).toContain("insufficient funds");
      expect([third!.status, third!.nonce, third!.rawTx]).toEqual(["queued", null, null]);

      // The next pass signs the third with the nonce the second handed back.
      const settled = await outbox.waitForSettled(third!.id, 10_000);
      expect([settled.status, settled.nonce]).toEqual(["confirmed", start + 1]);
      expect((await outbox.waitForSettled(first!.id, 10_000)).status).toBe("confirmed");
      expect(await operatorNonce()).toBe(start + 2);
    } finally {
      proxy.stop(true);
    }
  });
});

describe("idempotency at the database level", () => {
  test("the platform's own keys are unique too (NULL user ids are not)", async () => {
    const request = setManager(40n, "0x00000000000000000000000000000000000000c1", "platform-key");
    const results = await Promise.all([t.ctx.outbox.enqueue(request), t.ctx.outbox.enqueue(request), t.ctx.outbox.enqueue(request)]);
    expect(new Set(results.map((r) => r.tx.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
  });

  test("at most one live payout per issue, whatever the keys", async () => {
    const payout = (key: string) => ({
      ...setManager(41n, "0x00000000000000000000000000000000000000c2", key),
      kind: "pay_bounty",
      githubRepoId: 41,
      issueNumber: 7,
    });
    await t.ctx.outbox.enqueue(payout("pay-a"));
    const error = await t.ctx.outbox.enqueue(payout("pay-b")).then(
      () => undefined,
      (err: unknown) => err,
    );
    // Refused in the write transaction with the platform's code (issue 36: no matching of SQLite's error text)...
    expect(hasCode(error, "already_paid")).toBe(true);
    const live = await t.ctx.database.db.select().from(chainTransactions).where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, 41), eq(chainTransactions.issueNumber, 7)));
    expect(live.map((r) => r.idempotencyKey)).toEqual(["pay-a"]);
    // ...and the database's unique index still stands behind it: a second live row written past the outbox is refused.
    const row = live[0]!;
    const bypass = await t.ctx.database.db
      .insert(chainTransactions)
      .values({ ...row, id: row.id + 1_000_000, idempotencyKey: "pay-c" })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(isUniqueViolation(bypass)).toBe(true);
  });
});

describe("the node forgets a sent transaction (docs/money-faults.md)", () => {
  /**
   * A node restart empties its pool: a transaction the outbox sent is gone, with no receipt ever coming.
   * After REBROADCAST_AFTER_MS the receipt pass sends the same raw transaction again (never a new
   * signature, never a new nonce), and it confirms once.
   */
  test("the same signed transaction is sent again and confirms once, with its nonce", async () => {
    const start = await operatorNonce();
    await chain.rpc("evm_setAutomine", [false]);
    try {
      const { tx } = await t.ctx.outbox.submit(setManager(700n, "0x00000000000000000000000000000000000000f1"), { timeoutMs: 0 });
      const sent = await t.ctx.outbox.advance(tx.id);
      expect(sent).toMatchObject({ status: "sent", nonce: start });
      expect(JSON.stringify(await chain.rpc("txpool_content"))).toContain(sent.txHash!); // waiting in the node's pool

      await chain.rpc("anvil_dropAllTransactions"); // the node forgot it
      await chain.rpc("evm_setAutomine", [true]);
      await chain.rpc("evm_mine");
      expect(await t.ctx.chain.client.getTransactionReceipt({ hash: sent.txHash as `0x${string}` }).catch(() => null)).toBeNull();

      // Not yet due: the pass waits, as for a slow block, and sends nothing.
      await t.ctx.outbox.advance(sent.id);
      expect(await operatorNonce()).toBe(start);
      // The clock moved past the re-broadcast delay (the row's own record of when it was sent, moved back).
      await t.ctx.database.db
        .update(chainTransactions)
        .set({ sentAt: new Date(Date.now() - REBROADCAST_AFTER_MS - 1_000) })
        .where(eq(chainTransactions.id, sent.id));
      const settled = await t.ctx.outbox.waitForSettled(sent.id, REBROADCAST_AFTER_MS);
      expect(settled).toMatchObject({ status: "confirmed", nonce: start, txHash: sent.txHash, rawTx: sent.rawTx });
      expect(await operatorNonce()).toBe(start + 1);
      const mined = await t.ctx.chain.client.getTransaction({ hash: sent.txHash as `0x${string}` });
      expect(mined.nonce).toBe(start);
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
  });

  /**
   * The node lost the transaction and, meanwhile, its nonce was used by another one of the same key (the key
   * exported and used elsewhere). The re-broadcast is refused as "nonce too low" and the node knows neither the
   * transaction nor a receipt: it can never be mined, so the row fails with the reason instead of staying sent for
   * ever (the node's refusal was thrown away before).
   */
  test("a lost transaction whose nonce another transaction took fails, with the reason, instead of staying sent", async () => {
    const start = await operatorNonce();
    await chain.rpc("evm_setAutomine", [false]);
    let sentId: string | undefined;
    try {
      const { tx } = await t.ctx.outbox.submit(setManager(701n, "0x00000000000000000000000000000000000000f2"), { timeoutMs: 0 });
      const sent = await t.ctx.outbox.advance(tx.id);
      sentId = sent.id;
      expect(sent).toMatchObject({ status: "sent", nonce: start });
      await chain.rpc("anvil_dropAllTransactions");
      await chain.rpc("evm_setAutomine", [true]);
      // The same key, elsewhere: a plain transfer at the row's nonce, mined.
      const elsewhere = createWalletClient({ account: privateKeyToAccount(chain.env.OPERATOR_PRIVATE_KEY as Hex), transport: http(chain.anvil.rpcUrl) });
      const other = await elsewhere.sendTransaction({ chain: null, to: "0x00000000000000000000000000000000000000f3", value: 1n, nonce: start });
      await t.ctx.chain.client.waitForTransactionReceipt({ hash: other, pollingInterval: 50 });
      expect(await operatorNonce()).toBe(start + 1);

      await t.ctx.database.db
        .update(chainTransactions)
        .set({ sentAt: new Date(Date.now() - REBROADCAST_AFTER_MS - 1_000) })
        .where(eq(chainTransactions.id, sent.id));
      const settled = await t.ctx.outbox.waitForSettled(sent.id, 10_000);
      expect(settled).toMatchObject({ status: "failed", error: `nonce ${start} was used by another transaction` });
      expect(t.log.lines.some((l) => l.includes("nonce was used by another transaction") && l.includes(sent.id))).toBe(true);
      // The next transaction is signed at the chain's count, not after the failed row's nonce: no gap.
      const { tx: next } = await t.ctx.outbox.submit(setManager(702n, "0x00000000000000000000000000000000000000f4"));
      expect((await t.ctx.outbox.waitForSettled(next.id, 10_000)).status).toBe("confirmed");
      expect((await t.ctx.outbox.get(next.id)).nonce).toBe(start + 1);
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
      // Still sent (the test failed before the row did): no later test's receipt pass should trip over it.
      if (sentId) await t.ctx.database.db.update(chainTransactions).set({ status: "failed", error: "left by a failed test" }).where(and(eq(chainTransactions.id, sentId), eq(chainTransactions.status, "sent")));
    }
  });
});
