import { and, count, desc, eq, gt, inArray, isNull, sql, sum } from "drizzle-orm";
import type { Database } from "../../../db/client.ts";
import { computeLedger, computeNodes, type ComputeNode, type User } from "../../../db/schema/index.ts";
import { NODE_TOKEN_PREFIX, type NodeStatus } from "../../../lib/compute.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { parseAddress } from "../../chain/address.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { notFound } from "../../errors.ts";

/**
 * Nodes as people see them. A node is Online while its last heartbeat (or
 * poll) is younger than NODE_OFFLINE_AFTER_MS, Offline after that silence;
 * a revoked node is gone from every list. The public list names a node by
 * its id only: never an address, a wallet or a user.
 */

export const statusAt = (node: Pick<ComputeNode, "lastSeenAt">, now: number, offlineAfterMs: number): NodeStatus =>
  node.lastSeenAt && now - node.lastSeenAt.getTime() < offlineAfterMs ? "Online" : "Offline";

/** The node behind a bearer token; undefined for anything else (a revoked node, a session, an editor token). */
export async function authenticateNode(db: Database, token: string): Promise<ComputeNode | undefined> {
  if (!token.startsWith(NODE_TOKEN_PREFIX) || token.length > 100) return undefined;
  const [node] = await db
    .select()
    .from(computeNodes)
    .where(and(eq(computeNodes.tokenHash, hashToken(token)), isNull(computeNodes.revokedAt)))
    .limit(1);
  return node;
}

export async function touchNode(db: Database, nodeId: string, now: number): Promise<void> {
  await db.update(computeNodes).set({ lastSeenAt: new Date(now) }).where(eq(computeNodes.id, nodeId));
}

export async function countOnlineNodes(db: Database, now: number, offlineAfterMs: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)` })
    .from(computeNodes)
    .where(and(isNull(computeNodes.revokedAt), gt(computeNodes.lastSeenAt, new Date(now - offlineAfterMs))));
  return Number(row?.n ?? 0);
}

export interface PublicNodeStatus {
  id: string;
  status: NodeStatus;
  lastSeen: string | null;
  pairedAt: string;
}

/** GET /api/nodes/status: every paired node, by public id only. */
export async function networkStatus(db: Database, now: number, offlineAfterMs: number): Promise<PublicNodeStatus[]> {
  const nodes = await db
    .select({ id: computeNodes.id, lastSeenAt: computeNodes.lastSeenAt, createdAt: computeNodes.createdAt })
    .from(computeNodes)
    .where(isNull(computeNodes.revokedAt))
    .orderBy(computeNodes.createdAt, computeNodes.id);
  return nodes.map((n) => ({
    id: n.id,
    status: statusAt(n, now, offlineAfterMs),
    lastSeen: n.lastSeenAt?.toISOString() ?? null,
    pairedAt: n.createdAt.toISOString(),
  }));
}

/** The signed-in user's own wallet (xdc… or 0x…), or 404: whether another wallet runs a node is not ours to tell. */
export async function walletStatus(db: Database, user: User, walletAddress: string, now: number, offlineAfterMs: number): Promise<NodeStatus> {
  const wallet = await walletOfUser(db, user.id);
  const asked = parseAddress(walletAddress);
  if (!wallet || !asked || asked !== wallet.address) throw notFound("No such wallet among yours.");
  const online = await db
    .select({ id: computeNodes.id })
    .from(computeNodes)
    .where(and(eq(computeNodes.walletAddress, wallet.address), isNull(computeNodes.revokedAt), gt(computeNodes.lastSeenAt, new Date(now - offlineAfterMs))))
    .limit(1);
  return online.length ? "Online" : "Offline";
}

/** The units earned by the user's wallet (every node it ever paired, revoked ones too: earned is earned). */
export async function computeUnitsOf(db: Database, user: User): Promise<number> {
  const wallet = await walletOfUser(db, user.id);
  if (!wallet) return 0;
  const [row] = await db.select({ units: sum(computeLedger.units) }).from(computeLedger).where(eq(computeLedger.walletAddress, wallet.address));
  return Number(row?.units ?? 0);
}

export interface OwnNodeView {
  id: string;
  name: string;
  backend: string;
  model: string | null;
  status: NodeStatus;
  lastSeen: string | null;
  computeUnits: number;
  tasksCompleted: number;
  pairedAt: string;
}

/** The Provider Hub's list: the user's nodes that are not revoked, newest first, with what each earned. */
export async function nodesOfUser(db: Database, user: User, now: number, offlineAfterMs: number): Promise<OwnNodeView[]> {
  const nodes = await db
    .select()
    .from(computeNodes)
    .where(and(eq(computeNodes.userId, user.id), isNull(computeNodes.revokedAt)))
    .orderBy(desc(computeNodes.createdAt), desc(computeNodes.id));
  const earned = nodes.length
    ? await db
        .select({ nodeId: computeLedger.nodeId, units: sum(computeLedger.units), tasks: count() })
        .from(computeLedger)
        .where(inArray(computeLedger.nodeId, nodes.map((n) => n.id)))
        .groupBy(computeLedger.nodeId)
    : [];
  const byNode = new Map(earned.map((e) => [e.nodeId, e]));
  return nodes.map((node) => ({
    id: node.id,
    name: node.name,
    backend: node.backend,
    model: node.model,
    status: statusAt(node, now, offlineAfterMs),
    lastSeen: node.lastSeenAt?.toISOString() ?? null,
    computeUnits: Number(byNode.get(node.id)?.units ?? 0),
    tasksCompleted: byNode.get(node.id)?.tasks ?? 0,
    pairedAt: node.createdAt.toISOString(),
  }));
}

/** Revokes the user's node (its token stops working on the next request); another user's node is 404. */
export async function revokeNode(db: Database, user: User, nodeId: string, now: number): Promise<void> {
  const rows = await db
    .update(computeNodes)
    .set({ revokedAt: new Date(now) })
    .where(and(eq(computeNodes.id, nodeId), eq(computeNodes.userId, user.id), isNull(computeNodes.revokedAt)))
    .returning({ id: computeNodes.id });
  if (!rows.length) throw notFound("No such node among yours.");
}
