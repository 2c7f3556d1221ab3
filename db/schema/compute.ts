import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { timestamp } from "./columns.ts";
import { users } from "./users.ts";

/**
 * The compute network (docs/compute-network.md). Nodes pull work: the
 * server never calls a node, so nothing here knows a node's address.
 *
 *   node_pairings   device-style pairing: agent asks -> owner approves -> agent redeems once
 *   compute_nodes   a paired agent: its owner, the wallet it earns for, the SHA-256 of its token
 *   compute_tasks   one chat prompt, worked with a lease: queued -> leased -> done | failed | expired
 *   compute_ledger  one row per completed task (unique per task): the units its node earned
 */

/**
 * A pairing asked for by an agent. The agent holds the device secret (only
 * its hash is stored) and polls with it; the owner types or follows the
 * short user code ("ABCD-1234") on the Provider Hub and approves it. The
 * node and its token are made when the agent redeems the approved pairing,
 * once: `redeemedAt` makes it single-use. Pairings expire after minutes.
 */
export const nodePairings = sqliteTable(
  "node_pairings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    deviceSecretHash: text("device_secret_hash").notNull(),
    /** Normalised "ABCD1234" (shown as ABCD-1234). */
    userCode: text("user_code").notNull(),
    /** The wallet the agent was started for; only its owner can approve. */
    walletAddress: text("wallet_address").notNull(),
    name: text("name").notNull(),
    backend: text("backend").notNull(),
    model: text("model"),
    approvedByUserId: integer("approved_by_user_id").references(() => users.id, { onDelete: "cascade" }),
    approvedAt: timestamp("approved_at"),
    redeemedAt: timestamp("redeemed_at"),
    nodeId: text("node_id"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    expiresAt: timestamp("expires_at").notNull(),
  },
  (t) => [uniqueIndex("node_pairings_secret_idx").on(t.deviceSecretHash), uniqueIndex("node_pairings_code_idx").on(t.userCode), index("node_pairings_expires_idx").on(t.expiresAt)],
);

export const computeNodes = sqliteTable(
  "compute_nodes",
  {
    /** Public node id ("node_…"): the only thing /api/nodes/status tells about a node. */
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Checksummed 0x address the node earns compute units for (its owner's wallet at pairing). */
    walletAddress: text("wallet_address").notNull(),
    name: text("name").notNull(),
    /** demo | openai */
    backend: text("backend").notNull(),
    model: text("model"),
    tokenHash: text("token_hash").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    /** Last heartbeat or poll: Online while it is recent (NODE_OFFLINE_AFTER_MS). */
    lastSeenAt: timestamp("last_seen_at"),
    /** Last time a task went to this node, for fairness (least recently served first). */
    lastAssignedAt: timestamp("last_assigned_at"),
    /** Last failed or abandoned task: the node is passed over for a while. */
    lastFailureAt: timestamp("last_failure_at"),
    revokedAt: timestamp("revoked_at"),
  },
  (t) => [uniqueIndex("compute_nodes_token_idx").on(t.tokenHash), index("compute_nodes_user_idx").on(t.userId), index("compute_nodes_wallet_idx").on(t.walletAddress)],
);

export const COMPUTE_TASK_STATUSES = ["queued", "leased", "done", "failed", "expired"] as const;
export type ComputeTaskStatus = (typeof COMPUTE_TASK_STATUSES)[number];

export const computeTasks = sqliteTable(
  "compute_tasks",
  {
    id: text("id").primaryKey(),
    /** Who asked (the chat user). */
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    prompt: text("prompt").notNull(),
    status: text("status", { enum: COMPUTE_TASK_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    /** The lease holder; only it may finish the task (the token is checked in the same UPDATE). */
    nodeId: text("node_id"),
    leaseToken: text("lease_token"),
    leaseUntil: timestamp("lease_until"),
    /** Nodes that failed or abandoned this task, comma-separated: it is not given to them again. */
    excludedNodeIds: text("excluded_node_ids").notNull().default(""),
    answer: text("answer"),
    error: text("error"),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    /** The asker stops waiting here; an unfinished task then expires. */
    deadlineAt: timestamp("deadline_at").notNull(),
    finishedAt: timestamp("finished_at"),
  },
  (t) => [index("compute_tasks_due_idx").on(t.status, t.createdAt), index("compute_tasks_lease_idx").on(t.status, t.leaseUntil), index("compute_tasks_created_idx").on(t.createdAt)],
);

/**
 * What nodes earned: one row per completed task (the unique task id makes a
 * second row impossible), in whole compute units (docs/compute-network.md),
 * for the wallet the node was paired for. `payoutId` stays empty until a
 * ROXN payout through the outbox covers the row (not built yet).
 */
export const computeLedger = sqliteTable(
  "compute_ledger",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: text("task_id").notNull(),
    nodeId: text("node_id").notNull(),
    walletAddress: text("wallet_address").notNull(),
    units: integer("units").notNull(),
    /** Tokens counted for the units (server-side estimate of prompt + answer). */
    tokens: integer("tokens").notNull(),
    createdAt: timestamp("created_at").notNull().default(sql`(unixepoch() * 1000)`),
    payoutId: text("payout_id"),
  },
  (t) => [uniqueIndex("compute_ledger_task_idx").on(t.taskId), index("compute_ledger_wallet_idx").on(t.walletAddress), index("compute_ledger_node_idx").on(t.nodeId)],
);

export type ComputeNode = typeof computeNodes.$inferSelect;
export type ComputeTask = typeof computeTasks.$inferSelect;
