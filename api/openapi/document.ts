import { OpenAPIHono } from "@hono/zod-openapi";
import { healthApi } from "../routes/health/get.ts";
import { githubSignInApi } from "../routes/auth/github.ts";
import { registerApi } from "../routes/auth/register.ts";
import { vscodeApi } from "../routes/auth/vscode.ts";
import { sessionApi } from "../routes/auth/session.ts";
import { privateAccessApi } from "../routes/auth/private-access.ts";
import { userApi } from "../routes/user/role.ts";
import { userActivityApi } from "../routes/user/activity.ts";
import { walletApi } from "../routes/wallet/index.ts";
import { exportApi } from "../routes/wallet/export.ts";
import { sendApi } from "../routes/wallet/send.ts";
import { onrampApi } from "../routes/wallet/onramp.ts";
import { tokensApi } from "../routes/wallet/tokens.ts";
import { walletHistoryApi } from "../routes/wallet/history.ts";
import { githubWebhookApi } from "../routes/webhooks/github.ts";
import { onrampWebhookApi } from "../routes/webhooks/onramp.ts";
import { repositoriesApi } from "../routes/repositories/index.ts";
import { accessibleRepositoriesApi } from "../routes/repositories/accessible.ts";
import { githubApi } from "../routes/github/index.ts";
import { githubOrgApi } from "../routes/github/orgs.ts";
import { publicApi } from "../routes/public/index.ts";
import { reposApi } from "../routes/repos/index.ts";
import { badgesApi } from "../routes/badges/index.ts";
import { fundingApi } from "../routes/blockchain/funding.ts";
import { bountiesApi } from "../routes/blockchain/bounties.ts";
import { blockchainUsersApi } from "../routes/blockchain/users.ts";
import { aiScopingApi } from "../routes/ai-scoping/index.ts";
import { nodeApi } from "../routes/node/index.ts";
import { nodeAgentApi } from "../routes/node-agent/index.ts";
import { docsApi } from "../routes/docs/index.ts";
import { leaderboardApi } from "../routes/leaderboard/index.ts";
import { intentsApi } from "../routes/intents/index.ts";
import { splitsApi } from "../routes/splits/index.ts";
import { attemptsApi } from "../routes/attempts/index.ts";
import { tipsApi } from "../routes/tips/index.ts";
import { reviewsApi } from "../routes/reviews/index.ts";
import { boostsApi } from "../routes/funding/boosts.ts";
import { communityApi } from "../routes/funding/community.ts";
import { alertSearchesApi } from "../routes/alerts/searches.ts";
import { alertWebhooksApi } from "../routes/alerts/webhooks.ts";
import { feedsApi } from "../routes/alerts/feeds.ts";
import { exploreApi } from "../routes/explore/index.ts";
import { contributorsApi } from "../routes/contributors/index.ts";
import { cashoutApi } from "../routes/wallet/cashout.ts";
import { statementsApi } from "../routes/statements/index.ts";

/**
 * The API document (OpenAPI 3.1), generated from the routes' declarations.
 * A new route: declare it in its module's array (api/openapi/declare.ts); a
 * new module: add its array here. document.test.ts names anything missing.
 */
export const DECLARATIONS = [
  ...healthApi,
  ...githubSignInApi,
  ...registerApi,
  ...vscodeApi,
  ...sessionApi,
  ...privateAccessApi,
  ...userApi,
  ...userActivityApi,
  ...walletApi,
  ...exportApi,
  ...sendApi,
  ...onrampApi,
  ...tokensApi,
  ...walletHistoryApi,
  ...githubWebhookApi,
  ...onrampWebhookApi,
  ...repositoriesApi,
  ...accessibleRepositoriesApi,
  ...githubApi,
  ...githubOrgApi,
  ...publicApi,
  ...reposApi,
  ...badgesApi,
  ...fundingApi,
  ...bountiesApi,
  ...blockchainUsersApi,
  ...aiScopingApi,
  ...nodeApi,
  ...nodeAgentApi,
  ...docsApi,
  ...leaderboardApi,
  ...intentsApi,
  ...splitsApi,
  ...tipsApi,
  ...reviewsApi,
  ...boostsApi,
  ...communityApi,
  ...alertWebhooksApi,
  ...alertSearchesApi,
  ...feedsApi,
  ...exploreApi,
  ...contributorsApi,
  ...attemptsApi,
  ...cashoutApi,
  ...statementsApi,
] as const;

export const API_VERSION = "1.0.0";

let cached: ReturnType<OpenAPIHono["getOpenAPI31Document"]> | undefined;

export function apiDocument() {
  if (cached) return cached;
  const generator = new OpenAPIHono();
  const registry = generator.openAPIRegistry;
  registry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: "ip_session",
    description: "The browser's session cookie (`__Host-ip_session` over HTTPS), set by the GitHub sign-in.",
  });
  registry.registerComponent("securitySchemes", "csrf", {
    type: "apiKey",
    in: "header",
    name: "X-CSRF-Token",
    description: "Anti-forgery token from GET /api/auth/csrf-token, required with a session on POST/PUT/PATCH/DELETE (or `_csrf` in a JSON body).",
  });
  registry.registerComponent("securitySchemes", "vscode", {
    type: "http",
    scheme: "bearer",
    description: "The VS Code extension's token (`ipv_…`) from POST /api/auth/vscode/token. Read-only: GET and HEAD only.",
  });
  registry.registerComponent("securitySchemes", "nodeToken", {
    type: "http",
    scheme: "bearer",
    description: "A paired compute node's token (`ipn_…`), for /api/node-agent/* only.",
  });
  registry.registerComponent("securitySchemes", "githubSignature", {
    type: "apiKey",
    in: "header",
    name: "X-Hub-Signature-256",
    description: "HMAC-SHA256 of the raw body with the GitHub App's webhook secret (`sha256=<hex>`).",
  });
  registry.registerComponent("securitySchemes", "onrampSignature", {
    type: "apiKey",
    in: "header",
    name: "X-Onramp-Signature",
    description: "The on-ramp provider's HMAC of the raw body.",
  });
  for (const route of DECLARATIONS) registry.registerPath(route);
  cached = generator.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Issuepool API",
      version: API_VERSION,
      description:
        "The HTTP API of Issuepool (open-source bounties on the XDC network). Rules, caching, rate limits and errors are described in docs/api.md; shapes are described here. " +
        "Operations marked `x-stability: stable` (the public reads) are versioned: they change only compatibly within a major version of this document, and they answer cross-origin requests without credentials (CORS).",
    },
    servers: [{ url: "/" }],
    tags: [
      { name: "auth", description: "Sign-in, session, anti-forgery token, registration" },
      { name: "wallet", description: "The custodial wallet: balances, sending, export, on-ramp" },
      { name: "blockchain", description: "Pools, funding and bounties on the rewards contract" },
      { name: "repositories", description: "Registered repositories and the maintainer's GitHub data" },
      { name: "public", description: "Unauthenticated public reads (stable, CORS-open)" },
      { name: "webhooks", description: "Signed deliveries from GitHub and the on-ramp provider" },
      { name: "ai-scoping", description: "Turning a document into scoped issues" },
      { name: "nodes", description: "The compute network: the owner's side and the node agent's side" },
      { name: "vscode", description: "The VS Code extension's sign-in" },
      { name: "funding", description: "Boosts and community bounties: anyone funds an issue; confirmations of payments asked for in GitHub comments" },
      { name: "alerts", description: "Saved searches and their digest, Atom feeds, outbound webhooks for integrators" },
      { name: "attempts", description: "Who works on a bounty: open, exclusive (a lock and a queue) or by application; humans only or agents allowed" },
      { name: "statements", description: "Statements, receipts and invoices of payouts, fundings, boosts and tips (PDF, CSV)" },
    ],
  });
  return cached;
}
