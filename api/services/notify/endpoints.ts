import { and, desc, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  BOUNTY_EVENT_TYPES,
  outboundAttempts,
  outboundMessages,
  webhookEndpoints,
  type BountyEventType,
  type EndpointKind,
  type User,
  type WebhookEndpoint,
} from "../../../db/schema/index.ts";
import { ErrorCode, notFound, refused } from "../../errors.ts";
import { sealText, unsealText } from "../../crypto/envelope.ts";
import { randomToken } from "../../crypto/tokens.ts";
import { AddressRefused, assertPublicUrl, type Resolve } from "./address-guard.ts";
import { newEndpointSecret } from "./signing.ts";
import { testEventBody } from "./messages.ts";

/**
 * Webhook endpoints of integrators (docs/webhooks.md): an account's (events of the repositories the user
 * registered, and of the user as a contributor) or a repository's (its pool managers add them; the route checks
 * the admin rights on GitHub before calling here). Each belongs to the user who added it: anybody else's is a
 * 404, as if it did not exist. The URL must name a public address (checked again at every send).
 */
export type EndpointDeps = Pick<AppContext, "database" | "keyring" | "env">;

export const MAX_ENDPOINTS_PER_OWNER = 20;
/** How many attempts the delivery log shows. */
export const DELIVERY_LOG_SIZE = 50;

export interface EndpointInput {
  url: string;
  kind?: EndpointKind;
  events?: BountyEventType[];
  description?: string;
}

const sealContext = (id: string) => `webhook-endpoint:${id}`;

/** The target's kind from its URL, when the caller does not say: Slack's and Discord's incoming webhooks. */
export function kindOf(url: URL): EndpointKind {
  if (url.hostname === "hooks.slack.com") return "slack";
  if (/^(?:canary\.|ptb\.)?discord(?:app)?\.com$/.test(url.hostname) && url.pathname.startsWith("/api/webhooks/")) return "discord";
  return "standard";
}

/** A URL an endpoint may have: http(s), no credentials, a public address (or 127.0.0.1 where allowed). */
export async function checkEndpointUrl(deps: Pick<AppContext, "env">, text: string, resolve?: Resolve): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refused(ErrorCode.INVALID_URL, "url: must be an absolute http(s) URL.");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refused(ErrorCode.INVALID_URL, "url: must be an http(s) URL.");
  if (url.protocol === "http:" && !deps.env.OUTBOUND_ALLOW_LOOPBACK) throw refused(ErrorCode.INVALID_URL, "url: must be an https URL.");
  if (url.username || url.password) throw refused(ErrorCode.INVALID_URL, "url: must not carry a user name or password.");
  try {
    await assertPublicUrl(url, { allowLoopback: deps.env.OUTBOUND_ALLOW_LOOPBACK, resolve });
  } catch (err) {
    if (err instanceof AddressRefused) throw refused(ErrorCode.INVALID_URL, "url: must reach a public address (not loopback, private, link-local or metadata ranges).", { details: { address: err.address } });
    throw refused(ErrorCode.INVALID_URL, `url: its host does not resolve (${(err as Error).message}).`);
  }
  return url;
}

export async function createEndpoint(
  deps: EndpointDeps,
  user: User,
  input: EndpointInput & { repoId: number | null },
  resolve?: Resolve,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkEndpointUrl(deps, input.url, resolve);
  const db = deps.database.db;
  const owned = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, user.id), isNull(webhookEndpoints.deletedAt)));
  if (owned.length >= MAX_ENDPOINTS_PER_OWNER) throw refused(ErrorCode.QUOTA_EXCEEDED, `At most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints per account.`);
  const id = `ep_${randomToken(12)}`;
  const secret = newEndpointSecret();
  const [endpoint] = await db
    .insert(webhookEndpoints)
    .values({
      id,
      userId: user.id,
      githubRepoId: input.repoId,
      kind: input.kind ?? kindOf(url),
      url: url.toString(),
      description: input.description ?? "",
      events: JSON.stringify(input.events?.length ? [...new Set(input.events)] : BOUNTY_EVENT_TYPES),
      secretSealed: await sealText(deps.keyring, secret, sealContext(id)),
    })
    .returning();
  return { endpoint: endpoint!, secret };
}

/** The caller's endpoint, or 404 (someone else's, deleted, or none). */
export async function ownedEndpoint(deps: Pick<AppContext, "database">, user: User, id: string): Promise<WebhookEndpoint> {
  const [endpoint] = await deps.database.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, user.id), isNull(webhookEndpoints.deletedAt)))
    .limit(1);
  if (!endpoint) throw notFound("Webhook endpoint not found.");
  return endpoint;
}

export async function listEndpoints(deps: Pick<AppContext, "database">, user: User, repoId?: number): Promise<WebhookEndpoint[]> {
  return deps.database.db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.userId, user.id),
        isNull(webhookEndpoints.deletedAt),
        repoId === undefined ? undefined : eq(webhookEndpoints.githubRepoId, repoId),
      ),
    )
    .orderBy(desc(webhookEndpoints.createdAt));
}

export async function updateEndpoint(
  deps: EndpointDeps,
  user: User,
  id: string,
  input: Partial<EndpointInput> & { enabled?: boolean },
  resolve?: Resolve,
): Promise<WebhookEndpoint> {
  await ownedEndpoint(deps, user, id);
  const url = input.url === undefined ? undefined : await checkEndpointUrl(deps, input.url, resolve);
  const [endpoint] = await deps.database.db
    .update(webhookEndpoints)
    .set({
      ...(url ? { url: url.toString(), ...(input.kind ? {} : { kind: kindOf(url) }) } : {}),
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.events?.length ? { events: JSON.stringify([...new Set(input.events)]) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.userId, user.id)))
    .returning();
  return endpoint!;
}

/** Deleted endpoints keep their log for the record; their pending messages are dropped. */
export async function deleteEndpoint(deps: Pick<AppContext, "database">, user: User, id: string): Promise<void> {
  await ownedEndpoint(deps, user, id);
  await deps.database.db.transaction(async (tx) => {
    await tx.update(webhookEndpoints).set({ deletedAt: new Date(), enabled: false }).where(eq(webhookEndpoints.id, id));
    await tx
      .update(outboundMessages)
      .set({ status: "failed", leaseUntil: null })
      .where(and(eq(outboundMessages.endpointId, id), eq(outboundMessages.status, "pending")));
  });
}

/** A new secret, shown once; messages not yet delivered are signed with it from their next attempt. */
export async function rotateEndpointSecret(deps: EndpointDeps, user: User, id: string): Promise<string> {
  await ownedEndpoint(deps, user, id);
  const secret = newEndpointSecret();
  await deps.database.db
    .update(webhookEndpoints)
    .set({ secretSealed: await sealText(deps.keyring, secret, sealContext(id)) })
    .where(eq(webhookEndpoints.id, id));
  return secret;
}

export function endpointSecret(deps: Pick<AppContext, "keyring">, endpoint: WebhookEndpoint): Promise<string> {
  return unsealText(deps.keyring, endpoint.secretSealed, sealContext(endpoint.id));
}

/** Queues a `webhook.test` message for the outbound worker (the route never sends itself). */
export async function queueTestEvent(deps: EndpointDeps, user: User, id: string, now = Date.now()): Promise<{ messageId: string }> {
  const endpoint = await ownedEndpoint(deps, user, id);
  const messageId = `msg_${randomToken(16)}`;
  await deps.database.db.insert(outboundMessages).values({
    messageId,
    endpointId: endpoint.id,
    eventId: null,
    type: "webhook.test",
    body: testEventBody(endpoint, deps.env.PUBLIC_URL, new Date(now)),
    nextAttemptAt: new Date(now),
    createdAt: new Date(now),
  });
  return { messageId };
}

export async function deliveryLog(deps: Pick<AppContext, "database">, user: User, id: string, limit = DELIVERY_LOG_SIZE) {
  await ownedEndpoint(deps, user, id);
  return deps.database.db
    .select({
      at: outboundAttempts.at,
      statusCode: outboundAttempts.statusCode,
      latencyMs: outboundAttempts.latencyMs,
      error: outboundAttempts.error,
      messageId: outboundMessages.messageId,
      type: outboundMessages.type,
      messageStatus: outboundMessages.status,
    })
    .from(outboundAttempts)
    .innerJoin(outboundMessages, eq(outboundMessages.id, outboundAttempts.messageId))
    .where(eq(outboundAttempts.endpointId, id))
    .orderBy(desc(outboundAttempts.id))
    .limit(limit);
}

/** An endpoint as the API shows it (never the secret). */
export function endpointView(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    kind: endpoint.kind,
    repositoryId: endpoint.githubRepoId,
    description: endpoint.description,
    events: JSON.parse(endpoint.events) as BountyEventType[],
    enabled: endpoint.enabled,
    createdAt: endpoint.createdAt.toISOString(),
  };
}
