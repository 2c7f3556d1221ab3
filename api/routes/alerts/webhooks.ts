import { Hono } from "hono";
import { declareRoute, json, SESSION, SESSION_WRITE, z } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { BOUNTY_EVENT_TYPES, ENDPOINT_KINDS } from "../../../db/schema/index.ts";
import {
  createEndpoint,
  deleteEndpoint,
  deliveryLog,
  endpointView,
  listEndpoints,
  ownedEndpoint,
  queueTestEvent,
  rotateEndpointSecret,
  updateEndpoint,
} from "../../services/notify/endpoints.ts";
import { requireRepositoryAdmin } from "../../services/notify/repository-admin.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";

/**
 * Adding endpoints, test events and new secrets each make the platform call a URL someone chose: counted per
 * user and per address, so nobody turns it into a source of traffic at another's server.
 */
export const WEBHOOK_WRITE_RATE_LIMIT = { name: "alert-webhooks", perIp: 120, perUser: 30, windowMs: 60_000 };

/**
 * Outbound webhook endpoints of integrators (docs/webhooks.md). A browser session; writes need the anti-forgery
 * token. Another user's endpoint is 404. A repository's endpoint needs the pool manager role and admin rights on
 * GitHub (checked now). Nothing here sends: the test event is queued for the outbound worker.
 *
 * GET    /api/alerts/webhooks?repositoryId=     the caller's endpoints
 * POST   /api/alerts/webhooks                   add one (201, with its secret, shown once)
 * GET    /api/alerts/webhooks/:id               one, with its delivery log
 * PATCH  /api/alerts/webhooks/:id               url, events, description, enabled
 * DELETE /api/alerts/webhooks/:id
 * POST   /api/alerts/webhooks/:id/test          queue a webhook.test message (202)
 * POST   /api/alerts/webhooks/:id/rotate-secret a new secret, shown once
 */
const EventType = z.enum(BOUNTY_EVENT_TYPES);
const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    kind: z.enum(ENDPOINT_KINDS),
    repositoryId: z.number().int().nullable().meta({ description: "null: the account's endpoint" }),
    description: z.string(),
    events: z.array(EventType),
    enabled: z.boolean(),
    createdAt: Timestamp,
  })
  .openapi("WebhookEndpoint");
const Attempt = z.object({
  at: Timestamp,
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int(),
  error: z.string().nullable(),
  messageId: z.string(),
  type: z.string(),
  messageStatus: z.enum(["pending", "delivered", "failed"]),
});
const Secret = z.string().regex(/^whsec_/).meta({ description: "The Standard Webhooks secret: shown this once" });

const ListQuery = z.object({ repositoryId: z.coerce.number().int().positive().optional() });
const CreateBody = z.object({
  url: z.string().min(1).max(2000),
  kind: z.enum(ENDPOINT_KINDS).optional().meta({ description: "Default: from the URL (Slack's and Discord's incoming webhooks), else standard" }),
  events: z.array(EventType).max(BOUNTY_EVENT_TYPES.length).optional().meta({ description: "Default: all" }),
  description: z.string().max(200).optional(),
  repositoryId: z.number().int().positive().nullable().optional().meta({ description: "A repository's endpoint (pool managers with admin rights); absent or null: the account's" }),
  _csrf: z.string().optional(),
});
const UpdateBody = z.object({
  url: z.string().min(1).max(2000).optional(),
  kind: z.enum(ENDPOINT_KINDS).optional(),
  events: z.array(EventType).min(1).max(BOUNTY_EVENT_TYPES.length).optional(),
  description: z.string().max(200).optional(),
  enabled: z.boolean().optional(),
  _csrf: z.string().optional(),
});
const IdParam = z.object({ id: z.string().min(1).max(64) });

export function alertWebhookRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/", validate("query", ListQuery), async (c) => {
      const { user } = requireSession(c);
      c.header("Cache-Control", "private, no-store");
      const endpoints = await listEndpoints(ctx, user, c.req.valid("query").repositoryId);
      return c.json({ endpoints: endpoints.map(endpointView) });
    })
    .post("/", rateLimit(ctx, WEBHOOK_WRITE_RATE_LIMIT), validate("json", CreateBody), async (c) => {
      const { user } = requireSession(c);
      const input = c.req.valid("json");
      const repoId = input.repositoryId ?? null;
      if (repoId !== null) await requireRepositoryAdmin(ctx, user, repoId);
      const { endpoint, secret } = await createEndpoint(ctx, user, { ...input, repoId });
      return c.json({ endpoint: endpointView(endpoint), secret }, 201);
    })
    .get("/:id", validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      c.header("Cache-Control", "private, no-store");
      const endpoint = await ownedEndpoint(ctx, user, c.req.valid("param").id);
      const attempts = await deliveryLog(ctx, user, endpoint.id);
      return c.json({ endpoint: endpointView(endpoint), attempts: attempts.map((a) => ({ ...a, at: a.at.toISOString() })) });
    })
    .patch("/:id", validate("param", IdParam), validate("json", UpdateBody), async (c) => {
      const { user } = requireSession(c);
      const endpoint = await updateEndpoint(ctx, user, c.req.valid("param").id, c.req.valid("json"));
      return c.json({ endpoint: endpointView(endpoint) });
    })
    .delete("/:id", validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      await deleteEndpoint(ctx, user, c.req.valid("param").id);
      return c.json({ success: true });
    })
    .post("/:id/test", rateLimit(ctx, WEBHOOK_WRITE_RATE_LIMIT), validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      const queued = await queueTestEvent(ctx, user, c.req.valid("param").id);
      ctx.outbound.nudge();
      return c.json(queued, 202);
    })
    .post("/:id/rotate-secret", rateLimit(ctx, WEBHOOK_WRITE_RATE_LIMIT), validate("param", IdParam), async (c) => {
      const { user } = requireSession(c);
      return c.json({ secret: await rotateEndpointSecret(ctx, user, c.req.valid("param").id) });
    });
}

const P = "/api/alerts/webhooks";
const tags = ["alerts"];
export const alertWebhooksApi = [
  declareRoute({
    method: "get", path: P, operationId: "listWebhookEndpoints", tags, security: SESSION,
    errors: ["not_found", "validation_failed"],
    summary: "The caller's webhook endpoints (all, or one repository's)",
    request: { query: ListQuery },
    responses: { 200: json("The endpoints", z.object({ endpoints: z.array(Endpoint) })) },
  }),
  declareRoute({
    method: "post", path: P, operationId: "createWebhookEndpoint", tags, security: SESSION_WRITE,
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "invalid_repository", "invalid_url", "not_found", "quota_exceeded",
      "rate_limited", "role_required", "validation_failed"],
    summary: "Adds an endpoint; the URL must reach a public address. Answers its secret, once",
    request: { body: { content: { "application/json": { schema: CreateBody } } } },
    responses: { 201: json("Added", z.object({ endpoint: Endpoint, secret: Secret })) },
  }),
  declareRoute({
    method: "get", path: `${P}/{id}`, operationId: "getWebhookEndpoint", tags, security: SESSION,
    errors: ["not_found", "validation_failed"],
    summary: "One endpoint with its delivery log (the last 50 attempts, newest first)",
    request: { params: IdParam },
    responses: { 200: json("The endpoint", z.object({ endpoint: Endpoint, attempts: z.array(Attempt) })) },
  }),
  declareRoute({
    method: "patch", path: `${P}/{id}`, operationId: "updateWebhookEndpoint", tags, security: SESSION_WRITE,
    errors: ["invalid_url", "not_found", "validation_failed"],
    summary: "Changes an endpoint's URL, events, description or whether it is enabled",
    request: { params: IdParam, body: { content: { "application/json": { schema: UpdateBody } } } },
    responses: { 200: json("Changed", z.object({ endpoint: Endpoint })) },
  }),
  declareRoute({
    method: "delete", path: `${P}/{id}`, operationId: "deleteWebhookEndpoint", tags, security: SESSION_WRITE,
    errors: ["not_found", "validation_failed"],
    summary: "Deletes an endpoint; its undelivered messages are dropped",
    request: { params: IdParam },
    responses: { 200: json("Deleted", z.object({ success: z.literal(true) })) },
  }),
  declareRoute({
    method: "post", path: `${P}/{id}/test`, operationId: "sendWebhookTestEvent", tags, security: SESSION_WRITE,
    errors: ["not_found", "rate_limited", "validation_failed"],
    summary: "Queues a webhook.test message to the endpoint (sent by the outbound worker within seconds)",
    request: { params: IdParam },
    responses: { 202: json("Queued", z.object({ messageId: z.string() })) },
  }),
  declareRoute({
    method: "post", path: `${P}/{id}/rotate-secret`, operationId: "rotateWebhookSecret", tags, security: SESSION_WRITE,
    errors: ["not_found", "rate_limited", "validation_failed"],
    summary: "A new signing secret, shown once; the old one stops signing at once",
    request: { params: IdParam },
    responses: { 200: json("The new secret", z.object({ secret: Secret })) },
  }),
];
