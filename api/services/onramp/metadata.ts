/** What an on-ramp order row keeps in its `metadata` column (JSON): written by orders.ts, advanced by webhook.ts. */
export interface OnrampMetadata {
  transactionType: "onramp" | "offramp";
  provider?: { statusCode: number; lastEventAt: string };
  /** Sells: the provider's deposit address and the amount it asked for. */
  depositAddress?: string;
  /** Sells: the outbox row that sends the XDC. */
  sendTransactionId?: string;
  failureReason?: string;
}
