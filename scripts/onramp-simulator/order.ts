import type { Address, Hex } from "viem";
import type { ProviderStatus } from "../../api/services/onramp/provider.ts";

/** An order the simulator keeps (index.ts runs it, pages.ts shows it). */
export type SimulatedOrderState = "created" | "delivering" | "awaiting_crypto" | "success" | "failed";

export interface SimulatedOrder {
  orderId: number;
  kind: "buy" | "sell";
  merchantRecognitionId: string;
  walletAddress: Address;
  redirectUrl: string;
  /** INR, 2 decimals. */
  fiatAmount: string;
  /** XDC, decimal string. */
  cryptoAmount: string;
  state: SimulatedOrderState;
  depositAddress?: Address;
  transactionHash?: Hex;
  error?: string;
  /** Webhooks sent: the status and how the platform answered. */
  webhooks: { status: ProviderStatus; code: number; answer: string }[];
  createdAt: Date;
}
