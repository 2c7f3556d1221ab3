import type { Address, Hex } from "viem";
import type { Currency } from "../../../db/schema/index.ts";
import { ApiError, ErrorCode } from "../../errors.ts";

/**
 * The calls of the rewards contract that move funders' money (contract v3, issue 29 item 7). Services build
 * transactions through this port and hand them to the outbox; they never encode a v3 call themselves, so the
 * day the deployed contract changes only this file does.
 *
 * Until contract v3 is merged (branch v3-contract) there is no implementation: `fundersContract` answers
 * undefined and every chain step of a boost, refund or community payout is refused with 503 before anything
 * is written, so no platform state ever claims money the chain does not hold.
 */
export interface ChainCall {
  to: Address;
  data: Hex;
  value?: bigint;
}

export interface FundersContract {
  /** The funder's own transaction: escrows `gross` (the fee taken on-chain) as their share of the issue's bounty. */
  boost(input: { repoId: number; issueNumber: number; currency: Currency; gross: bigint; expiresAt: Date | null; maxFeeBps: number }): ChainCall;
  /** Operator: returns one funder's whole share (expiry passed, cancelled by its funder, issue closed as not planned). */
  refundShare(input: { repoId: number; issueNumber: number; funder: Address }): ChainCall;
  /** Operator: pays the issue's bounty (pool part and every active share) to the contributor. */
  payCommunity(input: { repoId: number; issueNumber: number; contributor: Address }): ChainCall;
  /** The fee in basis points, read from the contract (what the pages show). */
  feeBps(): Promise<number>;
}

export interface FundersContractSource {
  fundersContract?: FundersContract;
}

export function requireFundersContract(source: FundersContractSource): FundersContract {
  if (source.fundersContract) return source.fundersContract;
  throw new ApiError({
    code: ErrorCode.SERVICE_UNAVAILABLE,
    error: "Boosts not available yet",
    message: "Funding an issue needs the rewards contract v3, which is not deployed on this network yet.",
  });
}

/** Until v3 is deployed (see above). */
export function fundersContractOf(_chain: unknown): FundersContract | undefined {
  return undefined;
}
