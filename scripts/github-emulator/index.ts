/**
 * A local GitHub for development and tests: the OAuth web flow, a GitHub
 * App (install pages, JWT and installation tokens, webhooks), the REST and
 * GraphQL endpoints the platform uses, and control endpoints to play the
 * other people on GitHub. One HTTP server on 127.0.0.1 serves the web side
 * at `url` and the API at `${url}/api/v3`.
 *
 *   bun scripts/github-emulator/index.ts   (standalone; see docs/github-emulator.md)
 */
import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { Actions } from "./actions.ts";
import { importAppKey } from "./app-auth.ts";
import type { EmulatorContext } from "./context.ts";
import { createControls, type EmulatorControls } from "./controls.ts";
import { API_PREFIX, createApp } from "./server.ts";
import { loadState } from "./state.ts";
import { Webhooks, type WebhookDelivery } from "./webhooks.ts";
import { World } from "./world.ts";

export type { EmulatorControls, ControlResult } from "./controls.ts";
export type { WebhookDelivery, DeliveryAttempt } from "./webhooks.ts";
export { API_PREFIX } from "./server.ts";

export interface GitHubEmulatorOptions {
  /** 0 or undefined: pick a free port. */
  port?: number;
  /** Persist the world here (JSON, rewritten after every change, loaded at start). */
  stateFile?: string;
  oauth: { clientId: string; clientSecret: string };
  /** setupUrl: where the install page sends the browser back (the platform); its origin is also the registered OAuth callback. */
  app: { id: number; slug: string; clientId: string; clientSecret: string; publicKeyPem: string; setupUrl: string };
  /** The platform's webhook endpoint and the app's webhook secret. */
  webhook: { url: string; secret: string };
  /** Hourly request budgets; GitHub's are 5000 (authenticated) and 60 (anonymous, per IP). */
  rateLimits?: { authenticated?: number; anonymous?: number };
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
}

export interface GitHubEmulator {
  /** e.g. http://127.0.0.1:54321: the web side and, under /api/v3, the API. */
  url: string;
  /** GITHUB_URL for the platform (= url). */
  webUrl: string;
  /** GITHUB_API_URL for the platform (= `${url}/api/v3`); GraphQL is at `${apiUrl}/graphql`. */
  apiUrl: string;
  /** Every delivery attempted, oldest first (the latest 200 are kept). */
  readonly deliveries: WebhookDelivery[];
  controls: EmulatorControls;
  stop(): Promise<void>;
}

export async function startGitHubEmulator(options: GitHubEmulatorOptions): Promise<GitHubEmulator> {
  let handler: (req: Request, server: Server<undefined>) => Response | Promise<Response> = () => new Response("Starting", { status: 503 });
  // Listen first: with port 0 the URLs (which appear in every payload) are known only once bound.
  const server = Bun.serve({ hostname: "127.0.0.1", port: options.port ?? 0, fetch: (req, srv) => handler(req, srv) });
  const url = `http://127.0.0.1:${server.port}`;
  const now = options.now ?? Date.now;
  const world = new World(
    loadState(options.stateFile, now()),
    {
      webUrl: url,
      apiUrl: url + API_PREFIX,
      app: options.app,
      oauth: options.oauth,
      webhook: options.webhook,
      rateLimits: { authenticated: options.rateLimits?.authenticated ?? 5000, anonymous: options.rateLimits?.anonymous ?? 60 },
      now,
    },
    options.stateFile,
  );
  world.save();
  const webhooks = new Webhooks(world);
  const appKey = importAppKey(options.app.publicKeyPem);
  // A bad key should fail the start, not the first JWT.
  await appKey;
  const ctx: EmulatorContext = { world, actions: new Actions(world, webhooks), webhooks, appKey };
  const controls = createControls(ctx);
  handler = createApp(ctx, controls).fetch;

  return {
    url,
    webUrl: url,
    apiUrl: world.config.apiUrl,
    get deliveries() {
      return world.state.deliveries;
    },
    controls,
    async stop() {
      await webhooks.settle();
      world.save();
      await server.stop(true);
    },
  };
}

/** Standalone, for manual poking. Every setting has a development default; see docs/github-emulator.md. */
if (import.meta.main) {
  const env = process.env;
  let publicKeyPem = env.GITHUB_APP_PUBLIC_KEY;
  if (!publicKeyPem && env.GITHUB_APP_PRIVATE_KEY) {
    publicKeyPem = createPublicKey(env.GITHUB_APP_PRIVATE_KEY.replace(/\\n/g, "\n")).export({ type: "spki", format: "pem" }).toString();
  }
  if (!publicKeyPem) {
    const pair = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const keyFile = join(tmpdir(), "github-emulator-app-private-key.pem");
    writeFileSync(keyFile, pair.privateKey.export({ type: "pkcs1", format: "pem" }), { mode: 0o600 });
    publicKeyPem = pair.publicKey.export({ type: "spki", format: "pem" }).toString();
    console.log(`No GITHUB_APP_PUBLIC_KEY or GITHUB_APP_PRIVATE_KEY: generated an app key; private key in ${keyFile}`);
  }
  const emulator = await startGitHubEmulator({
    port: Number(env.PORT ?? 3100),
    stateFile: env.GITHUB_EMULATOR_STATE_FILE,
    oauth: { clientId: env.GITHUB_CLIENT_ID ?? "Iv1.dev-oauth-client", clientSecret: env.GITHUB_CLIENT_SECRET ?? "dev-oauth-secret" },
    app: {
      id: Number(env.GITHUB_APP_ID ?? 1000001),
      slug: env.GITHUB_APP_SLUG ?? "issuepool-dev",
      clientId: env.GITHUB_APP_CLIENT_ID ?? "Iv23.dev-app-client",
      clientSecret: env.GITHUB_APP_CLIENT_SECRET ?? "dev-app-secret",
      publicKeyPem,
      setupUrl: env.GITHUB_APP_SETUP_URL ?? "http://localhost:3000/github/setup",
    },
    webhook: { url: env.GITHUB_WEBHOOK_URL ?? "http://localhost:3000/api/github/webhooks", secret: env.GITHUB_WEBHOOK_SECRET ?? "dev-webhook-secret" },
  });
  console.log(`GitHub emulator: web ${emulator.webUrl}, API ${emulator.apiUrl}, control panel ${emulator.url}/_emulator`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void emulator.stop().then(() => process.exit(0)));
  }
}
