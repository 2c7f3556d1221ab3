import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import { isUniqueViolation, type Database } from "../../../db/client.ts";
import { computeNodes, nodePairings, type User } from "../../../db/schema/index.ts";
import { formatPairingCode, normalisePairingCode, NODE_TOKEN_PREFIX, PAIRING_CODE_ALPHABET, type PairingRedeemResponse, type PairingStartRequest, type PairingStartResponse } from "../../../lib/compute.ts";
import { hashToken, randomToken } from "../../crypto/tokens.ts";
import { parseAddress } from "../../chain/address.ts";
import { ErrorCode, notFound, refused } from "../../errors.ts";
import { walletOfUser } from "../wallets/custodial.ts";

/**
 * Pairing a node, the way a TV pairs with an account (OAuth's device flow):
 *
 *   agent  POST /api/node-agent/pairings {walletAddress}  -> deviceSecret, userCode ABCD-1234
 *   owner  approves ABCD-1234 on the Provider Hub (signed in; the wallet must be theirs)
 *   agent  POST /api/node-agent/pairings/redeem {deviceSecret}  -> pending ... then nodeId + node token, once
 *
 * The code alone pairs nothing (it needs the owner's session), the secret
 * alone gets nothing until the owner approves, and both are single-use and
 * expire after PAIRING_TTL_MS. The node token is made at redemption and only
 * its SHA-256 is kept.
 */
export const PAIRING_TTL_MS = 10 * 60 * 1000;
export const PAIRING_POLL_MS = 2000;

export function newPairingCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  // 32 characters divide 256: each is equally likely (40 bits per code).
  return Array.from(bytes, (b) => PAIRING_CODE_ALPHABET[b % PAIRING_CODE_ALPHABET.length]).join("");
}

export async function startPairing(db: Database, input: PairingStartRequest, options: { now: number; hubUrl: string }): Promise<PairingStartResponse> {
  const wallet = parseAddress(input.walletAddress);
  if (!wallet) throw refused(ErrorCode.INVALID_ADDRESS, "walletAddress: must be an XDC address (xdc… or 0x…)");
  const deviceSecret = randomToken(32);
  const expiresAt = new Date(options.now + PAIRING_TTL_MS);
  for (let tries = 0; ; tries++) {
    const userCode = newPairingCode();
    try {
      await db.insert(nodePairings).values({
        deviceSecretHash: hashToken(deviceSecret),
        userCode,
        walletAddress: wallet,
        name: input.name,
        backend: input.backend,
        model: input.model ?? null,
        createdAt: new Date(options.now),
        expiresAt,
      });
      const shown = formatPairingCode(userCode);
      return { deviceSecret, userCode: shown, verificationUrl: `${options.hubUrl}?code=${shown}`, expiresAt: expiresAt.toISOString(), intervalMs: PAIRING_POLL_MS };
    } catch (err) {
      if (!isUniqueViolation(err) || tries >= 5) throw err;
    }
  }
}

export interface PairingView {
  code: string;
  name: string;
  backend: string;
  model: string | null;
  walletAddress: string;
  createdAt: string;
  expiresAt: string;
}

/** A pending pairing for the signed-in owner's wallet, to show before approving; anything else is 404. */
export async function pendingPairingFor(db: Database, user: User, code: string, now: number): Promise<PairingView> {
  const pairing = await findPending(db, user, code, now);
  return {
    code: formatPairingCode(pairing.userCode),
    name: pairing.name,
    backend: pairing.backend,
    model: pairing.model,
    walletAddress: pairing.walletAddress,
    createdAt: pairing.createdAt.toISOString(),
    expiresAt: pairing.expiresAt.toISOString(),
  };
}

const NO_SUCH_PAIRING = "No node is waiting with this code for your wallet. Check the code in the node's terminal; codes expire after 10 minutes.";

async function findPending(db: Database, user: User, code: string, now: number) {
  const wallet = await walletOfUser(db, user.id);
  const [pairing] = await db
    .select()
    .from(nodePairings)
    .where(and(eq(nodePairings.userCode, normalisePairingCode(code)), isNull(nodePairings.approvedAt), gt(nodePairings.expiresAt, new Date(now))));
  // Another wallet's pairing looks exactly like no pairing: a code never tells whose it is.
  if (!pairing || !wallet || pairing.walletAddress !== wallet.address) throw notFound(NO_SUCH_PAIRING);
  return pairing;
}

/** The owner approves: once, before it expires, only for their own wallet. */
export async function approvePairing(db: Database, user: User, code: string, now: number): Promise<PairingView> {
  const pairing = await findPending(db, user, code, now);
  const [approved] = await db
    .update(nodePairings)
    .set({ approvedByUserId: user.id, approvedAt: new Date(now) })
    .where(and(eq(nodePairings.id, pairing.id), isNull(nodePairings.approvedAt), gt(nodePairings.expiresAt, new Date(now))))
    .returning();
  if (!approved) throw notFound(NO_SUCH_PAIRING);
  return pendingView(approved);
}

const pendingView = (p: typeof nodePairings.$inferSelect): PairingView => ({
  code: formatPairingCode(p.userCode),
  name: p.name,
  backend: p.backend,
  model: p.model,
  walletAddress: p.walletAddress,
  createdAt: p.createdAt.toISOString(),
  expiresAt: p.expiresAt.toISOString(),
});

/**
 * The agent asks whether its pairing was approved. The first call after the
 * approval makes the node and hands out its token; the pairing is then used
 * up, so a second call (or a copied secret) gets nothing.
 */
export async function redeemPairing(db: Database, deviceSecret: string, now: number): Promise<PairingRedeemResponse> {
  const [pairing] = await db.select().from(nodePairings).where(eq(nodePairings.deviceSecretHash, hashToken(deviceSecret)));
  if (!pairing || pairing.redeemedAt || pairing.expiresAt.getTime() <= now) throw notFound("This pairing is unknown, used or expired. Start the node again for a new code.");
  if (!pairing.approvedAt || !pairing.approvedByUserId) return { status: "pending", intervalMs: PAIRING_POLL_MS };
  const nodeId = newNodeId();
  const nodeToken = newNodeToken();
  const paired = await db.transaction(async (tx) => {
    const [used] = await tx
      .update(nodePairings)
      .set({ redeemedAt: new Date(now), nodeId })
      .where(and(eq(nodePairings.id, pairing.id), isNull(nodePairings.redeemedAt)))
      .returning({ id: nodePairings.id });
    if (!used) return false;
    await tx.insert(computeNodes).values({
      id: nodeId,
      userId: pairing.approvedByUserId!,
      walletAddress: pairing.walletAddress,
      name: pairing.name,
      backend: pairing.backend,
      model: pairing.model,
      tokenHash: hashToken(nodeToken),
      createdAt: new Date(now),
      lastSeenAt: new Date(now),
    });
    return true;
  });
  if (!paired) throw notFound("This pairing is unknown, used or expired. Start the node again for a new code.");
  return { status: "paired", nodeId, nodeToken };
}

/** Pairings are short-lived: expired ones are deleted on the dispatcher's passes. */
export async function deleteExpiredPairings(db: Database, now: number): Promise<void> {
  await db.delete(nodePairings).where(lt(nodePairings.expiresAt, new Date(now)));
}

export function newNodeId(): string {
  return `node_${encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(10)))}`;
}

export function newNodeToken(): string {
  return NODE_TOKEN_PREFIX + randomToken(32);
}

/**
 * A node paired without a person approving it: only the embedded default
 * uses this, for the demo node it starts itself (scripts/lib/demo-node.ts).
 * Returns the node's id and its token (kept by the caller, hashed here).
 */
export async function pairNodeDirectly(
  db: Database,
  input: { userId: number; walletAddress: string; name: string; backend: "demo" | "openai"; model?: string; now: number },
): Promise<{ nodeId: string; token: string }> {
  const nodeId = newNodeId();
  const token = newNodeToken();
  await db.insert(computeNodes).values({
    id: nodeId,
    userId: input.userId,
    walletAddress: input.walletAddress,
    name: input.name,
    backend: input.backend,
    model: input.model ?? null,
    tokenHash: hashToken(token),
    createdAt: new Date(input.now),
  });
  return { nodeId, token };
}
