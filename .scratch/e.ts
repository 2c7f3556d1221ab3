import { startAnvil, anvilAccounts } from "../scripts/lib/anvil.ts";
import { createPublicClient, createWalletClient, http, zeroAddress, BaseError, encodeDeployData, decodeErrorResult, RawContractError } from "viem";
import { anvil as chain } from "viem/chains";
import { RepoRewardsAbi, RepoRewardsBytecode } from "../contracts/artifacts/index.ts";
const a = await startAnvil();
const [d] = anvilAccounts(1);
const w = createWalletClient({ account: d!, chain, transport: http(a.rpcUrl) });
const p = createPublicClient({ chain, transport: http(a.rpcUrl) });
try { await w.deployContract({ abi: RepoRewardsAbi, bytecode: RepoRewardsBytecode, args: [zeroAddress, d!.address, d!.address, d!.address, d!.address] }); } catch (e) { console.log((e as BaseError).name, (e as any).shortMessage); const raw = (e as BaseError).walk(x => x instanceof RawContractError || (x as any).data); console.log(raw?.constructor.name, (raw as any)?.data); }
try { await p.call({ data: encodeDeployData({ abi: RepoRewardsAbi, bytecode: RepoRewardsBytecode, args: [zeroAddress, d!.address, d!.address, d!.address, d!.address] }) }); } catch (e) { const raw = (e as BaseError).walk(x => typeof (x as any).data === "string"); console.log(raw?.constructor.name, (raw as any)?.data); console.log(decodeErrorResult({abi: RepoRewardsAbi, data: (raw as any).data})); }
await a.stop();
