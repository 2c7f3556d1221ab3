/**
 * Funding a wallet on the local chain returns only once the funds are there:
 * anvil answers a sent transaction before its automine block exists, so a
 * read right after an unawaited mint can see the old balance (send.test's
 * Max read 0 ROXN under load; 15 of 200 reads here before the fix).
 */
import { expect, test } from "bun:test";
import { createPublicClient, erc20Abi, http, parseEther, parseUnits, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startTestChain } from "../../testing/chain.ts";

test("every balance read right after funding sees the funds", async () => {
  const chain = await startTestChain();
  try {
    const client = createPublicClient({ transport: http(chain.anvil.rpcUrl) });
    const balanceOf = (token: Address, owner: Address) => client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
    const stale: string[] = [];
    for (let i = 0; i < 60; i++) {
      const owner = privateKeyToAccount(generatePrivateKey()).address;
      await chain.fund(owner, { xdc: "2", roxn: "1.5", usdc: "3" });
      const [xdc, roxn, usdc] = await Promise.all([client.getBalance({ address: owner }), balanceOf(chain.deployment.roxn, owner), balanceOf(chain.deployment.usdc, owner)]);
      if (xdc !== parseEther("2") || roxn !== parseEther("1.5") || usdc !== parseUnits("3", 6)) stale.push(`${i}: ${xdc} ${roxn} ${usdc}`);
    }
    expect(stale).toEqual([]);
  } finally {
    await chain.stop();
  }
}, 120_000);
