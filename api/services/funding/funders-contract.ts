import { encodeFunctionData, type Address, type Hex } from "viem";
import type { ChainAccess } from "../../chain/clients.ts";
import type { Currency } from "../../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { CURRENCY_INDEX } from "../money/rules.ts";

/**
 * The calls of the rewards contract that move funders' money (contract v3, docs/contracts-v3.md). Services
 * build transactions through this port and hand them to the outbox; nothing else in the funding services
 * encodes a v3 call, so a change of the contract's interface touches this file only.
 */
export interface ChainCall {
  to: Address;
  data: Hex;
  value?: bigint;
}

export interface FundersContract {
  /** The funder's own transaction: escrows `gross` (the fee taken on-chain) as their share of the issue's bounty. */
  boost(input: { repoId: number; issueNumber: number; currency: Currency; gross: bigint; expiresAt: Date | null; maxFeeBps: number }): ChainCall;
  /** The funder's own transaction: their whole share back while nobody has claimed the issue (`withdrawBoost`). */
  withdraw(input: { repoId: number; issueNumber: number }): ChainCall;
  /** Anyone (the operator): the whole shares of `funders` back, the bounty cancelled or their shares expired (`refundBoosts`). */
  refund(input: { repoId: number; issueNumber: number; funders: Address[] }): ChainCall;
  /** The fee in basis points, read from the contract (what the pages show). */
  feeBps(): Promise<number>;
  /** A funder's share as the chain holds it (the mirror's check; expiry in seconds, 0 = never). */
  shareOf(input: { repoId: number; issueNumber: number; funder: Address }): Promise<{ amount: bigint; expiresAt: bigint }>;
  /** The chain's clock (expiries are judged by it, not by this machine's). */
  now(): Promise<bigint>;
}

export function fundersContractOf(chain: ChainAccess): FundersContract {
  const to = chain.config.contracts.rewards;
  const read = { address: to, abi: RepoRewardsAbi } as const;
  return {
    boost({ repoId, issueNumber, currency, gross, expiresAt, maxFeeBps }) {
      const expiry = expiresAt ? BigInt(Math.floor(expiresAt.getTime() / 1000)) : 0n;
      if (currency === "XDC") {
        return { to, value: gross, data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "boostXdc", args: [BigInt(repoId), BigInt(issueNumber), expiry, maxFeeBps] }) };
      }
      return { to, data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "boostToken", args: [BigInt(repoId), BigInt(issueNumber), CURRENCY_INDEX[currency], gross, expiry, maxFeeBps] }) };
    },
    withdraw({ repoId, issueNumber }) {
      return { to, data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "withdrawBoost", args: [BigInt(repoId), BigInt(issueNumber)] }) };
    },
    refund({ repoId, issueNumber, funders }) {
      return { to, data: encodeFunctionData({ abi: RepoRewardsAbi, functionName: "refundBoosts", args: [BigInt(repoId), BigInt(issueNumber), funders] }) };
    },
    async feeBps() {
      return Number(await chain.client.readContract({ ...read, functionName: "feeBps" }));
    },
    async shareOf({ repoId, issueNumber, funder }) {
      const [amount, expiresAt] = (await chain.client.readContract({ ...read, functionName: "getBoost", args: [BigInt(repoId), BigInt(issueNumber), funder] })) as readonly [bigint, bigint, bigint];
      return { amount, expiresAt };
    },
    async now() {
      return (await chain.client.getBlock({ blockTag: "latest" })).timestamp;
    },
  };
}
