import { createWalletClient, http, parseEther, parseUnits, publicActions, type Address, type Chain, type Hex } from "viem";
import { RoxnAbi, TestUsdcAbi } from "../../contracts/artifacts/index.ts";
import { anvilAccounts } from "./anvil.ts";
import { DECIMALS } from "../../lib/money.ts";

/** One JSON-RPC call to the local node (anvil's own methods included), its error thrown as an Error. */
export async function anvilRpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

export type LocalAmounts = { xdc?: string; roxn?: string; usdc?: string };

/**
 * Gives a wallet on the local chain test XDC (set outright) and mints it
 * test ROXN and USDC from the deployer, the way the dev stack's demo data
 * and the tests fund their users. Returns once the mints are mined: anvil
 * answers a sent transaction before its automine block exists (measured: 15
 * of 200 balance reads right after a mint still saw the old balance), and
 * send.test's Max read 0 ROXN that way under load.
 */
export function localFunder(rpcUrl: string, chain: Chain, tokens: { roxn: Address; usdc: Address }) {
  const [deployer] = anvilAccounts(1);
  const wallet = createWalletClient({ account: deployer!, chain, transport: http(rpcUrl), pollingInterval: 50 }).extend(publicActions);
  return async function fund(address: Address, amounts: LocalAmounts): Promise<void> {
    if (amounts.xdc) await anvilRpc(rpcUrl, "anvil_setBalance", [address, `0x${parseEther(amounts.xdc).toString(16)}`]);
    const mints: Hex[] = [];
    if (amounts.roxn) mints.push(await wallet.writeContract({ address: tokens.roxn, abi: RoxnAbi, functionName: "mint", args: [address, parseUnits(amounts.roxn, DECIMALS.ROXN)] }));
    if (amounts.usdc) mints.push(await wallet.writeContract({ address: tokens.usdc, abi: TestUsdcAbi, functionName: "mint", args: [address, parseUnits(amounts.usdc, DECIMALS.USDC)] }));
    for (const hash of mints) {
      const receipt = await wallet.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`funding ${address}: mint ${hash} reverted`);
    }
  };
}
