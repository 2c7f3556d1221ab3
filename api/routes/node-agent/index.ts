import { ANONYMOUS, declareRoute, json, NODE, noJson } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AppContext, AppVariables } from "../../context.ts";
import type { ComputeNode } from "../../../db/schema/index.ts";
import { unauthorized } from "../../errors.ts";
import { validate } from "../../validate.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { authenticateNode } from "../../services/compute/nodes.ts";
import { redeemPairing, startPairing } from "../../services/compute/pairing.ts";
import { MAX_ANSWER_CHARS } from "../../../lib/compute.ts";

/**
 * The node agent's side (node-agent/; docs/compute-network.md). Every call
 * is made by the agent; the server never calls a node.
 *
 * POST /api/node-agent/pairings               { walletAddress, name, backend, model? } -> 201 { deviceSecret, userCode, verificationUrl, expiresAt, intervalMs }
 * POST /api/node-agent/pairings/redeem        { deviceSecret } -> { status: pending } | { status: paired, nodeId, nodeToken } (once)
 *   with `Authorization: Bearer ipn_…` (the node token; nothing else is accepted, no session):
 * POST /api/node-agent/heartbeat              -> { nodeId, heartbeatMs, leaseMs, longPollMs, offlineAfterMs }
 * GET  /api/node-agent/tasks/next             long poll -> 200 { task: { id, prompt, leaseToken, leaseUntil } } | 204
 * POST /api/node-agent/tasks/:taskId/result   { leaseToken, answer } -> { units } | 409 when the lease is gone
 * POST /api/node-agent/tasks/:taskId/failure  { leaseToken, error } -> { ok } (another node tries)
 * POST /api/node-agent/tasks/:taskId/release  { leaseToken } -> { ok } (the agent is stopping)
 */
type NodeBindings = { Variables: AppVariables & { node: ComputeNode } };

export const PAIRING_START_RATE_LIMIT = { name: "node-pairing-start", perIp: 30, windowMs: 3600 * 1000 };
export const PAIRING_REDEEM_RATE_LIMIT = { name: "node-pairing-redeem", perIp: 2400, windowMs: 3600 * 1000 };

const StartPairing = z.object({
  walletAddress: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(60).regex(/^[\p{L}\p{N} ._-]+$/u, "letters, digits, spaces, dots, dashes and underscores"),
  backend: z.enum(["demo", "openai"]),
  model: z.string().trim().min(1).max(200).optional(),
});
const Redeem = z.object({ deviceSecret: z.string().min(20).max(100) });
const TaskParam = z.object({ taskId: z.string().regex(/^task_[a-z2-7]{24}$/, "is not a task id") });
const leaseToken = z.string().min(10).max(100);
const Result = z.object({ leaseToken, answer: z.string().max(MAX_ANSWER_CHARS, `must be at most ${MAX_ANSWER_CHARS} characters`) });
const Failure = z.object({ leaseToken, error: z.string().max(2000) });
const Release = z.object({ leaseToken });

const NODE_TOKEN_REQUIRED = "A node token is required (Authorization: Bearer ipn_…). Pair the node from the Provider Hub.";

export function nodeAgentRoutes(ctx: AppContext) {
  const db = ctx.database.db;
  const compute = ctx.compute;
  const requireNode: MiddlewareHandler<NodeBindings> = async (c, next) => {
    const token = /^Bearer (\S+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    const node = token ? await authenticateNode(db, token) : undefined;
    if (!node) throw unauthorized(NODE_TOKEN_REQUIRED);
    c.set("node", node);
    await next();
  };
  const hubUrl = `${ctx.env.PUBLIC_URL}/provider-hub`;
  return new Hono<NodeBindings>()
    .post("/pairings", rateLimit(ctx, PAIRING_START_RATE_LIMIT), validate("json", StartPairing), async (c) => {
      const pairing = await startPairing(db, c.req.valid("json"), { now: compute.now(), hubUrl });
      ctx.log.info("compute node pairing requested", { code: pairing.userCode });
      return c.json(pairing, 201);
    })
    .post("/pairings/redeem", rateLimit(ctx, PAIRING_REDEEM_RATE_LIMIT), validate("json", Redeem), async (c) => {
      const result = await redeemPairing(db, c.req.valid("json").deviceSecret, compute.now());
      if (result.status === "paired") ctx.log.info("compute node paired", { nodeId: result.nodeId });
      return c.json(result);
    })
    .use("/heartbeat", requireNode)
    .use("/tasks/*", requireNode)
    .post("/heartbeat", async (c) => c.json(await compute.heartbeat(c.get("node"))))
    .get("/tasks/next", async (c) => {
      const task = await compute.nextTask(c.get("node"), c.req.raw.signal);
      if (task === "revoked") throw unauthorized(NODE_TOKEN_REQUIRED);
      if (!task) return c.body(null, 204);
      return c.json({ task });
    })
    .post("/tasks/:taskId/result", validate("param", TaskParam), validate("json", Result), async (c) => {
      const { leaseToken, answer } = c.req.valid("json");
      return c.json(await compute.complete(c.get("node"), c.req.valid("param").taskId, leaseToken, answer));
    })
    .post("/tasks/:taskId/failure", validate("param", TaskParam), validate("json", Failure), async (c) => {
      const { leaseToken, error } = c.req.valid("json");
      await compute.fail(c.get("node"), c.req.valid("param").taskId, leaseToken, error);
      return c.json({ ok: true });
    })
    .post("/tasks/:taskId/release", validate("param", TaskParam), validate("json", Release), async (c) => {
      await compute.release(c.get("node"), c.req.valid("param").taskId, c.req.valid("json").leaseToken);
      return c.json({ ok: true });
    });
}

const jsonBody = <T extends z.ZodType>(schema: T) => ({ content: { "application/json": { schema } }, required: true });
const Ok = json("Done", z.object({ ok: z.literal(true) }));

export const nodeAgentApi = [
  declareRoute({
    method: "post", path: "/api/node-agent/pairings", operationId: "startNodePairing", tags: ["nodes"], security: ANONYMOUS,
    errors: ["invalid_address", "rate_limited", "validation_failed"],
    summary: "A node asks to be paired with a wallet (the owner approves the code on the Provider Hub)",
    request: { body: jsonBody(StartPairing) },
    responses: {
      201: json("The pairing to poll", z.object({
        deviceSecret: z.string(), userCode: z.string(), verificationUrl: z.string(), expiresAt: Timestamp, intervalMs: z.number().int(),
      })),
    },
  }),
  declareRoute({
    method: "post", path: "/api/node-agent/pairings/redeem", operationId: "redeemNodePairing", tags: ["nodes"], security: ANONYMOUS,
    errors: ["not_found", "rate_limited", "validation_failed"],
    summary: "The node polls its pairing; once approved it gets its token (once)",
    request: { body: jsonBody(Redeem) },
    responses: {
      200: json("Pending, or paired", z.union([
        z.object({ status: z.literal("pending"), intervalMs: z.number().int() }),
        z.object({ status: z.literal("paired"), nodeId: z.string(), nodeToken: z.string() }),
      ])),
    },
  }),
  declareRoute({
    method: "post", path: "/api/node-agent/heartbeat", operationId: "nodeHeartbeat", tags: ["nodes"], security: NODE,
    summary: "The node is alive; the server's timings",
    responses: {
      200: json("The agent's settings", z.object({
        nodeId: z.string(), heartbeatMs: z.number().int(), leaseMs: z.number().int(), longPollMs: z.number().int(), offlineAfterMs: z.number().int(),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/node-agent/tasks/next", operationId: "nextNodeTask", tags: ["nodes"], security: NODE,
    summary: "Long poll for the next task",
    responses: {
      200: json("A leased task", z.object({ task: z.object({ id: z.string(), prompt: z.string(), leaseToken: z.string(), leaseUntil: Timestamp }) })),
      204: noJson("No task within the long poll"),
    },
  }),
  declareRoute({
    method: "post", path: "/api/node-agent/tasks/{taskId}/result", operationId: "completeNodeTask", tags: ["nodes"], security: NODE,
    errors: ["task_not_held", "validation_failed"],
    summary: "The task's answer (409 when the lease is gone)",
    request: { params: TaskParam, body: jsonBody(Result) },
    responses: { 200: json("The units earned", z.object({ units: z.number().int() })) },
  }),
  declareRoute({
    method: "post", path: "/api/node-agent/tasks/{taskId}/failure", operationId: "failNodeTask", tags: ["nodes"], security: NODE,
    errors: ["task_not_held", "validation_failed"],
    summary: "The node could not run the task (another node tries)",
    request: { params: TaskParam, body: jsonBody(Failure) },
    responses: { 200: Ok },
  }),
  declareRoute({
    method: "post", path: "/api/node-agent/tasks/{taskId}/release", operationId: "releaseNodeTask", tags: ["nodes"], security: NODE,
    errors: ["task_not_held", "validation_failed"],
    summary: "The node is stopping: the task goes back to the queue",
    request: { params: TaskParam, body: jsonBody(Release) },
    responses: { 200: Ok },
  }),
];
