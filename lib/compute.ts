/**
 * The compute network's shared words: what the node agent, the API and the
 * site all need to agree on (docs/compute-network.md). Nothing here touches
 * the network or the database.
 */

/** Node tokens say what they are, so a user route can never mistake one for a session or an editor token. */
export const NODE_TOKEN_PREFIX = "ipn_";

/** The spec's texts (section 8, "Nodes"). */
export const NETWORK_FAILED_MESSAGE = "Failed to get response from the network.";
export const COMPUTE_UNITS_FAILED_MESSAGE = "Failed to fetch compute units.";
export const FETCH_FAILED_MESSAGE = "Failed to fetch data.";
export const CHAT_SIGN_IN_MESSAGE = "Please sign in to use the decentralized chat.";

/** How often the pages ask again (spec section 9): the hub every 15 s, the chat every 10 s. */
export const HUB_POLL_MS = 15_000;
export const CHAT_POLL_MS = 10_000;

/** A prompt is at most this many characters; an answer is cut to this many. */
export const MAX_PROMPT_CHARS = 8000;
export const MAX_ANSWER_CHARS = 32_000;

/**
 * The pairing code a person reads off the agent's terminal: 8 characters
 * from an alphabet without look-alikes (no 0/O, 1/I), 32 of them, shown ABCD-1234.
 */
export const PAIRING_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const normalisePairingCode = (code: string): string => code.toUpperCase().replace(/[^A-Z0-9]/g, "");
export const formatPairingCode = (code: string): string => {
  const n = normalisePairingCode(code);
  return n.length === 8 ? `${n.slice(0, 4)}-${n.slice(4)}` : n;
};
export const isPairingCode = (code: string): boolean => new RegExp(`^[${PAIRING_CODE_ALPHABET}]{8}$`).test(normalisePairingCode(code));

/**
 * Compute units (docs/compute-network.md): one unit per started 1,000
 * tokens of a completed task, prompt and answer together, and at least one
 * per task. Tokens are estimated by the server from the text it holds (one
 * token per 4 bytes of UTF-8, the usual rule of thumb for English), never
 * taken from the node, so a node cannot inflate its own pay; the answer's
 * size is capped, so neither can a long answer run away with it.
 */
export const TOKENS_PER_UNIT = 1000;
export function estimateTokens(text: string): number {
  return Math.ceil(new TextEncoder().encode(text).byteLength / 4);
}
export function unitsFor(tokens: number): number {
  return Math.max(1, Math.ceil(tokens / TOKENS_PER_UNIT));
}

export type NodeStatus = "Online" | "Offline";

/** The agent's side of the protocol (`/api/node-agent/*`). */
export interface PairingStartRequest {
  walletAddress: string;
  name: string;
  backend: "demo" | "openai";
  model?: string;
}
export interface PairingStartResponse {
  /** Secret of this agent's pairing: only it can redeem the approved pairing. */
  deviceSecret: string;
  /** What the owner approves on the Provider Hub, e.g. ABCD-1234. */
  userCode: string;
  /** The Provider Hub with the code filled in. */
  verificationUrl: string;
  expiresAt: string;
  intervalMs: number;
}
export type PairingRedeemResponse =
  | { status: "pending"; intervalMs: number }
  | { status: "paired"; nodeId: string; nodeToken: string };

export interface AgentSettings {
  nodeId: string;
  heartbeatMs: number;
  leaseMs: number;
  longPollMs: number;
  offlineAfterMs: number;
}
export interface LeasedTask {
  id: string;
  prompt: string;
  leaseToken: string;
  leaseUntil: string;
}
