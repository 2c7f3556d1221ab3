import { ANONYMOUS, declareRoute, json, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { unauthorized } from "../../errors.ts";
import { validate } from "../../validate.ts";
import { enforceRateLimit } from "../../middleware/rate-limit.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { computeUnitsOf, networkStatus, nodesOfUser, walletStatus } from "../../services/compute/nodes.ts";
import { approvePairing, pendingPairingFor } from "../../services/compute/pairing.ts";
import { CHAT_SIGN_IN_MESSAGE, isPairingCode, MAX_PROMPT_CHARS } from "../../../lib/compute.ts";

/**
 * The compute network as people use it (spec section 7, "Nodes"; docs/compute-network.md):
 *
 * GET    /api/node/compute-units                 signed in -> { computeUnits } (the user's wallet)
 * GET    /api/node/status?walletAddress=         signed in, own wallet -> { status: Online | Offline }
 * POST   /api/node/dispatch-task                 { prompt } session + CSRF, per-user limit -> { message }
 *                                                503/504 'Failed to get response from the network.'
 * GET    /api/node/nodes                         the user's nodes -> { nodes: [{ id, name, status, lastSeen, computeUnits, ... }] }
 * DELETE /api/node/nodes/:nodeId                 revoke one of them -> { revoked: true }
 * GET    /api/node/pairings/:code                a node waiting for the user's approval -> { code, name, backend, ... }
 * POST   /api/node/pairings/approve              { code } -> the approved pairing
 * GET    /api/nodes/status                       public -> [{ id, status: online | offline, lastSeen }], a bare array: the
 *                                                original product's chat reads it so (docs/api.md, "Clients of the original product")
 * GET    /api/nodes/network                      public -> { nodes: [{ id, status: Online | Offline, lastSeen }] }: the site's chat
 *                                                (no address, wallet or user in either)
 *
 * Node tokens are never accepted here: the routes read only the browser
 * session (or an editor token on reads).
 */
export function dispatchRateLimit(ctx: Pick<AppContext, "env">) {
  return { name: "node-dispatch", perIp: 3 * ctx.env.NODE_DISPATCH_PER_MINUTE, perUser: ctx.env.NODE_DISPATCH_PER_MINUTE, windowMs: 60_000 };
}
export const PAIRING_APPROVAL_RATE_LIMIT = { name: "node-pairing-approve", perIp: 60, perUser: 30, windowMs: 3600 * 1000 };

const Dispatch = z.object({
  prompt: z
    .string()
    .max(MAX_PROMPT_CHARS, `must be at most ${MAX_PROMPT_CHARS} characters`)
    .refine((p) => p.trim().length > 0, "must not be empty"),
});
const WalletQuery = z.object({ walletAddress: z.string().min(1).max(64) });
const NodeParam = z.object({ nodeId: z.string().regex(/^node_[a-z2-7]{16}$/, "is not a node id") });
const code = z.string().max(20).refine(isPairingCode, "is not a pairing code (like ABCD-1234)");
const CodeParam = z.object({ code });
const Approve = z.object({ code });

export function nodeRoutes(ctx: AppContext) {
  const db = ctx.database.db;
  const compute = ctx.compute;
  const now = () => compute.now();
  const offlineAfter = () => compute.settings.offlineAfterMs;
  return new Hono<AppBindings>()
    .get("/compute-units", async (c) => c.json({ computeUnits: await computeUnitsOf(db, requireUser(c)) }))
    .get("/status", validate("query", WalletQuery), async (c) =>
      c.json({ status: await walletStatus(db, requireUser(c), c.req.valid("query").walletAddress, now(), offlineAfter()) }),
    )
    .post(
      "/dispatch-task",
      async (c, next) => {
        // Signed in with a browser session before anything else: a visitor is told to sign in, whatever they sent.
        if (!c.get("session") || !c.get("user")) throw unauthorized(CHAT_SIGN_IN_MESSAGE);
        await next();
      },
      validate("json", Dispatch),
      async (c) => {
      const { user } = requireSession(c);
      await enforceRateLimit(ctx, c, dispatchRateLimit(ctx));
      const { message } = await compute.dispatch(user, c.req.valid("json").prompt);
      return c.json({ message });
      },
    )
    .get("/nodes", async (c) => c.json({ nodes: await nodesOfUser(db, requireUser(c), now(), offlineAfter()) }))
    .delete("/nodes/:nodeId", validate("param", NodeParam), async (c) => {
      const { user } = requireSession(c);
      await compute.revoke(user, c.req.valid("param").nodeId);
      return c.json({ revoked: true });
    })
    .get("/pairings/:code", validate("param", CodeParam), async (c) => {
      const user = requireUser(c);
      await enforceRateLimit(ctx, c, PAIRING_APPROVAL_RATE_LIMIT);
      return c.json(await pendingPairingFor(db, user, c.req.valid("param").code, now()));
    })
    .post("/pairings/approve", validate("json", Approve), async (c) => {
      const { user } = requireSession(c);
      await enforceRateLimit(ctx, c, PAIRING_APPROVAL_RATE_LIMIT);
      const pairing = await approvePairing(db, user, c.req.valid("json").code, now());
      ctx.log.info("compute node pairing approved", { userId: user.id, code: pairing.code });
      return c.json(pairing);
    });
}

export function nodesRoutes(ctx: AppContext) {
  const nodes = () => networkStatus(ctx.database.db, ctx.compute.now(), ctx.compute.settings.offlineAfterMs);
  return new Hono<AppBindings>()
    .get("/status", async (c) => {
      c.header("Cache-Control", "no-store");
      // The spec's "Node status: id, status (online), lastSeen", as a list: what the original client stores and filters.
      return c.json((await nodes()).map((n) => ({ id: n.id, status: n.status === "Online" ? "online" : "offline", lastSeen: n.lastSeen ?? n.pairedAt })));
    })
    .get("/network", async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ nodes: (await nodes()).map(({ id, status, lastSeen }) => ({ id, status, lastSeen })) });
    });
}

const NodeStatus = z.enum(["Online", "Offline"]);
export const NetworkNode = z.object({ id: z.string(), status: NodeStatus, lastSeen: z.string().nullable() }).openapi("NetworkNode");
export const OwnNode = z.object({
  id: z.string(), name: z.string(), backend: z.string(), model: z.string().nullable(), status: NodeStatus,
  lastSeen: z.string().nullable(), computeUnits: z.number().int(), tasksCompleted: z.number().int(), pairedAt: Timestamp,
}).openapi("OwnNode");
export const Pairing = z.object({
  code: z.string(), name: z.string(), backend: z.string(), model: z.string().nullable(), walletAddress: z.string(), createdAt: Timestamp, expiresAt: Timestamp,
}).openapi("Pairing");

export const nodeApi = [
  declareRoute({
    method: "get", path: "/api/node/compute-units", operationId: "getComputeUnits", tags: ["nodes"], security: USER,
    summary: "The compute units the user's nodes earned",
    responses: { 200: json("The units", z.object({ computeUnits: z.number().int() })) },
  }),
  declareRoute({
    method: "get", path: "/api/node/status", operationId: "getWalletNodeStatus", tags: ["nodes"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "Whether a node of the user's own wallet is online",
    request: { query: WalletQuery },
    responses: { 200: json("The status", z.object({ status: NodeStatus })) },
  }),
  declareRoute({
    method: "post", path: "/api/node/dispatch-task", operationId: "dispatchTask", tags: ["nodes"], security: SESSION_WRITE,
    errors: ["compute_timeout", "no_compute_node", "rate_limited", "validation_failed"],
    summary: "Sends a prompt to the compute network and waits for the answer",
    request: { body: { content: { "application/json": { schema: Dispatch } }, required: true } },
    responses: { 200: json("The answer", z.object({ message: z.string() })) },
  }),
  declareRoute({
    method: "get", path: "/api/node/nodes", operationId: "listOwnNodes", tags: ["nodes"], security: USER,
    summary: "The user's nodes, newest first, with what each earned",
    responses: { 200: json("The nodes", z.object({ nodes: z.array(OwnNode) })) },
  }),
  declareRoute({
    method: "delete", path: "/api/node/nodes/{nodeId}", operationId: "revokeNode", tags: ["nodes"], security: SESSION_WRITE,
    errors: ["not_found", "validation_failed"],
    summary: "Revokes one of the user's nodes",
    request: { params: NodeParam },
    responses: { 200: json("Revoked", z.object({ revoked: z.literal(true) })) },
  }),
  declareRoute({
    method: "get", path: "/api/node/pairings/{code}", operationId: "findPairing", tags: ["nodes"], security: USER,
    errors: ["not_found", "rate_limited", "validation_failed"],
    summary: "A node waiting for the user's approval (anything else: 404)",
    request: { params: CodeParam },
    responses: { 200: json("The pairing", Pairing) },
  }),
  declareRoute({
    method: "post", path: "/api/node/pairings/approve", operationId: "approvePairing", tags: ["nodes"], security: SESSION_WRITE,
    errors: ["not_found", "rate_limited", "validation_failed"],
    summary: "Approves a node's pairing for the user's wallet",
    request: { body: { content: { "application/json": { schema: Approve } }, required: true } },
    responses: { 200: json("The approved pairing", Pairing) },
  }),
  declareRoute({
    method: "get", path: "/api/nodes/status", operationId: "listNodeStatuses", tags: ["nodes"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "Every paired node by public id, a bare array (the spec's node status; no address, wallet or user)",
    responses: {
      200: json("The nodes", z.array(z.object({
        id: z.string(),
        status: z.enum(["online", "offline"]),
        lastSeen: z.string().meta({ description: "ISO 8601: the last heartbeat, or the pairing for a node never heard since" }),
      }).strict())),
    },
  }),
  declareRoute({
    method: "get", path: "/api/nodes/network", operationId: "getNetworkStatus", tags: ["nodes"], security: ANONYMOUS,
    summary: "Every paired node by public id, as the site's chat reads them (no address, wallet or user)",
    responses: { 200: json("The nodes", z.object({ nodes: z.array(NetworkNode) })) },
  }),
];
