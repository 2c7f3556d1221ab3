import { z } from "zod";
import { decodeBase64 } from "@oslojs/encoding";
import { KeyringError, parseKeyringSpec } from "./crypto/keyring.ts";

/**
 * The only reader of the environment. Everything configurable is declared
 * here, parsed once at start, and handed to the rest of the program as a typed
 * object. A bad value stops the process with a message naming the variable.
 */

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
/** At least 32 bytes of base64: the root of the server's HMAC keys. */
const secretBytes = z.string().refine(
  (v) => {
    try {
      return decodeBase64(v.trim()).byteLength >= 32;
    } catch {
      return false;
    }
  },
  { message: "must be at least 32 random bytes, base64-encoded (e.g. `openssl rand -base64 32`)" },
);

const keyringSpec = z.string().superRefine((v, ctx) => {
  try {
    parseKeyringSpec(v);
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `must be id:base64key[,id:base64key] with 32-byte keys (${err instanceof KeyringError ? err.message : "invalid"})` });
  }
});

/** PEM text; `\n` escapes are accepted so the key fits in one environment variable. */
const pem = z
  .string()
  .transform((v) => v.replace(/\\n/g, "\n").trim())
  .refine((v) => /^-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+-----END (RSA )?PRIVATE KEY-----$/.test(v), {
    message: "must be a PEM private key (-----BEGIN PRIVATE KEY----- ...)",
  });

const address = z.string().regex(/^(0x|xdc)[0-9a-fA-F]{40}$/i, "must be an address (0x… or xdc…)").transform((v) => `0x${v.slice(v.startsWith("0x") ? 2 : 3)}`);
const privateKeyHex = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex private key (0x…)");

/** An unset or empty variable means "not configured". */
const optionalUrl = z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.url().optional());

/**
 * Comma-separated origins (scheme://host[:port], nothing after) whose pages may call the API with the user's
 * cookies: a client of the original product served from its own origin (docs/api.md, "Clients of the original
 * product"). Never `*`.
 */
const originList = z
  .string()
  .default("")
  .transform((v, ctx) => {
    const origins: string[] = [];
    for (const entry of v.split(",").map((e) => e.trim()).filter(Boolean)) {
      let origin: string | undefined;
      try {
        const url = new URL(entry);
        if ((url.protocol === "https:" || url.protocol === "http:") && url.origin === entry.replace(/\/$/, "")) origin = url.origin;
      } catch {
        // refused below
      }
      if (!origin) ctx.addIssue({ code: "custom", message: `"${entry}" is not an origin like https://app.example.com (no path, no wildcard)` });
      else origins.push(origin);
    }
    return origins;
  });

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(3000),
  /** The origin users reach the platform at; used for redirects and the Origin check. */
  PUBLIC_URL: optionalUrl,
  /**
   * Other origins allowed to call the API with the user's session (CORS with credentials, and the Origin check on
   * writes, the anti-forgery token still required); empty by default. Listing one makes the session cookies
   * `SameSite=None; Secure` so that origin's requests carry them. README, "A client on another origin".
   */
  ALLOWED_ORIGINS: originList,
  /** Where the embedded default keeps its files (database, chain state, dev secrets). */
  DATA_DIR: z.string().min(1).default("data"),
  /** libSQL URL; defaults to the embedded file `${DATA_DIR}/app.db`. */
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  /** Busy timeout for the embedded libSQL file, in ms. */
  DATABASE_BUSY_TIMEOUT_MS: positiveInt.default(5000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** JSON lines for machines (default) or short readable lines for a terminal. */
  LOG_FORMAT: z.enum(["json", "pretty"]).default("json"),
  /** Append log lines to this file instead of standard output (the browser journeys read the server's log from it). */
  LOG_FILE: z.string().min(1).optional(),
  /**
   * More field names whose values the log never shows (comma-separated), beside the built-in ones (keys, tokens,
   * cookies, one-time codes, signatures…: api/logger.ts). The configured secrets' values are never logged either.
   */
  LOG_REDACT_FIELDS: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((f) => f.trim()).filter(Boolean)),
  /**
   * Monitoring (docs/operations.md). `/metrics` in Prometheus text format: with METRICS_TOKEN set, for callers that
   * send `Authorization: Bearer <token>`; without it, only for callers on this machine (a loopback address, no proxy
   * header), and not at all in production. METRICS_PORT serves it on a listener of its own instead
   * (METRICS_HOST, default 127.0.0.1), not on the main port.
   */
  METRICS_TOKEN: z.string().min(16, "at least 16 characters").optional(),
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** How often the figures that need the database or the chain are gathered for /metrics and the operator's page. */
  METRICS_INTERVAL_MS: positiveInt.default(5_000),
  /** GitHub logins (comma-separated) of the platform's operators: they may open /ops. Nobody else sees it (404). */
  OPS_LOGINS: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((l) => l.trim().toLowerCase()).filter(Boolean)),
  /** Where the operator's page links the guardian's runbook (your copy of docs/contracts.md, "Pause and recovery"). */
  OPS_RUNBOOK_URL: optionalUrl,
  /** /api/health/ready says "not ready" while the indexer is more than this many blocks behind the chain. */
  READY_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(30),
  /**
   * Backups of the embedded database (docs/operations.md): `npm run backup` and a pass every BACKUP_INTERVAL_HOURS
   * (0: none; 0 unless set when NODE_ENV=test) write a consistent copy to BACKUP_DIR (default DATA_DIR/backups),
   * keeping the newest BACKUP_KEEP.
   */
  BACKUP_DIR: z.string().min(1).optional(),
  BACKUP_KEEP: z.coerce.number().int().min(1).max(10_000).default(7),
  BACKUP_INTERVAL_HOURS: z.coerce.number().min(0).max(24 * 365).default(24),
  /** Largest request body accepted by default (uploads have their own limit). */
  MAX_BODY_BYTES: positiveInt.default(1024 * 1024),
  SUPPORT_EMAIL: z.email().default("support@issuepool.dev"),
  /** Third-party support chat widget; injected on every page but /ai-scoping-agent when set. */
  SUPPORT_CHAT_SCRIPT_URL: optionalUrl,
  /** GitHub's web and API base URLs: github.com in production, the emulator in dev and tests. */
  GITHUB_URL: z.url().default("https://github.com").transform((u) => u.replace(/\/+$/, "")),
  GITHUB_API_URL: z.url().default("https://api.github.com").transform((u) => u.replace(/\/+$/, "")),
  /** Root secret for HMACs (anti-forgery tokens, signed values). */
  APP_SECRET: secretBytes,
  /** Master keys wrapping the data keys of secrets at rest; the first is active. */
  ENCRYPTION_KEYS: keyringSpec,
  /** The GitHub App: its OAuth client (sign-in), id, slug, private key and webhook secret. */
  GITHUB_CLIENT_ID: z.string().min(1),
  GITHUB_CLIENT_SECRET: z.string().min(1),
  GITHUB_APP_ID: z.coerce.number().int().positive(),
  GITHUB_APP_SLUG: z.string().regex(/^[a-z0-9-]+$/, "lowercase letters, digits and dashes"),
  GITHUB_APP_PRIVATE_KEY: pem,
  GITHUB_WEBHOOK_SECRET: z.string().min(16, "at least 16 characters"),
  /**
   * The extension's URI handler: its authority (publisher.name) and path are the only ones a sign-in code is sent
   * to, under any of the editor schemes (vscode, vscode-insiders, vscodium, cursor; docs/vscode.md).
   */
  VSCODE_REDIRECT_URI: z
    .string()
    .regex(/^(vscode|vscode-insiders|vscodium|cursor):\/\/[a-z0-9-]+\.[a-z0-9-]+\/[\w/-]*$/, "must be an editor URI like vscode://publisher.name/auth")
    .default("vscode://issuepool.issuepool/auth"),
  /** Which network the platform runs on (see api/chain/networks.ts). */
  CHAIN: z.enum(["local", "xdc-apothem", "xdc-mainnet"]).default("local"),
  /** JSON-RPC endpoint of the chain (an XDC node, or anvil in development). */
  CHAIN_RPC_URL: z.url(),
  /** Contract addresses (written by scripts/deploy-contracts.ts). */
  REWARDS_CONTRACT_ADDRESS: address,
  ROXN_TOKEN_ADDRESS: address,
  USDC_TOKEN_ADDRESS: address,
  /** Block of the contracts' deployment: where the indexer starts reading. */
  CONTRACTS_DEPLOYED_BLOCK: z.coerce.number().int().min(0).default(0),
  /** The platform's operator key: sets pool managers, allocates and pays on verified requests, pays their gas. */
  OPERATOR_PRIVATE_KEY: privateKeyHex,
  /**
   * The escrow's guardian key (RepoRewards v2), held by the watcher only (api/workers/watcher.ts): it pauses the
   * contract when an outflow the outbox did not send, or outflows near a cap, appear. Unset: the server runs no watcher
   * (run it as its own process: docs/contracts.md).
   */
  GUARDIAN_PRIVATE_KEY: privateKeyHex.optional(),
  /** Where the watcher's alerts go (comma-separated addresses). Unset: alerts are only logged. */
  ESCROW_ALERT_EMAILS: z.string().optional(),
  /** Blocks on top of a transaction's block before it counts as confirmed (default: 1 local, 2 on XDC). */
  CHAIN_CONFIRMATIONS: z.coerce.number().int().min(0).max(100).optional(),
  /** How long one chain RPC call may take before it fails as "could not reach the XDC network" (a hung node; retried once). */
  CHAIN_RPC_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * A money lock's lease (a pool's or a bounty's, api/services/money/pool-guard.ts): renewed every third of it while
   * its holder works, so it lapses this long after a holder stops (crashed, frozen); a request waits 1.6 times it for
   * the lock before it answers 503 `Pool busy`, and a holder keeps it at most 6 times it.
   */
  MONEY_LOCK_MS: z.coerce.number().int().min(300).max(60_000).default(5_000),
  /**
   * How many blocks back the platform re-checks its beliefs against the chain (api/chain/outbox-reconciling.ts):
   * confirmed transactions' blocks and the indexer's blocks. XDC (XDPoS 2.0) commits a block once three more with
   * quorum certificates follow it; the default of 100 blocks (about 3 minutes on XDC) leaves a wide margin, and locally
   * covers the blocks a restarted anvil can lose.
   */
  CHAIN_REORG_WINDOW_BLOCKS: z.coerce.number().int().min(1).max(100_000).default(100),
  /** The RPC URL given to browser wallets (MetaMask) in the network configuration; defaults to CHAIN_RPC_URL. */
  CHAIN_PUBLIC_RPC_URL: optionalUrl,
  /** Outgoing mail (one-time codes, notices): smtp://user:pass@host:port or smtps://… */
  SMTP_URL: z.string().regex(/^smtps?:\/\/\S+$/, "must be an smtp:// or smtps:// URL"),
  MAIL_FROM: z.string().min(3).default("Issuepool <no-reply@issuepool.dev>"),
  /** The on-ramp provider (onramp.money-shaped): app id, secret for signatures, hosted pages' base URL. */
  ONRAMP_APP_ID: z.string().min(1),
  ONRAMP_APP_SECRET: z.string().min(16, "at least 16 characters"),
  ONRAMP_URL: z.url().default("https://onramp.money").transform((u) => u.replace(/\/+$/, "")),
  /**
   * The provider's order-status call (api/services/onramp/provider.ts), asked before an abandoned order is marked
   * expired. Unset: orders expire without asking.
   */
  ONRAMP_STATUS_URL: optionalUrl,
  /**
   * How long the provider keeps an order open for payment, in minutes: an order no webhook moved by then was abandoned
   * on its page and is shown as expired (after asking ONRAMP_STATUS_URL, when set). Set it to the provider's figure.
   */
  ONRAMP_ORDER_LIFETIME_MINUTES: z.coerce.number().int().min(1).max(24 * 60).default(60),
  /**
   * The provider's sell-side (off-ramp) API, for cash-outs to UPI (api/services/onramp/sell-api.ts): quotes, KYC,
   * orders with a deposit address, order status. Unset: cash-out is not offered.
   */
  ONRAMP_API_URL: optionalUrl.transform((u) => u?.replace(/\/+$/, "")),
  /** How often open cash-outs are asked about at the provider (their webhooks move them sooner). */
  CASHOUT_POLL_INTERVAL_MS: positiveInt.default(30_000),
  /**
   * The price source of statements and receipts (issue 40): a CoinGecko-compatible `simple/price` URL, its name as
   * statements show it, and which of its coin ids each currency is. Unset: XDC_USD_PRICE (USD only), else no prices.
   */
  PRICE_SOURCE_URL: optionalUrl,
  PRICE_SOURCE_NAME: z.string().min(1).max(200).optional(),
  PRICE_COIN_IDS: z
    .string()
    .regex(/^(XDC|ROXN|USDC):[a-z0-9-]+(,(XDC|ROXN|USDC):[a-z0-9-]+)*$/, "must read like XDC:xdce-crowd-sale,USDC:usd-coin")
    .default("XDC:xdce-crowd-sale,USDC:usd-coin"),
  /** Sends above this many XDC (or the same figure of ROXN/USDC) need an e-mailed one-time code. */
  SEND_OTP_THRESHOLD: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a decimal number")
    .default("100"),
  /** XDC price in USD for estimates on public pages, and where it comes from (shown beside it). Unset: no USD estimate. */
  XDC_USD_PRICE: z
    .string()
    .regex(/^\d+(\.\d+)?$/, "must be a decimal number")
    .optional(),
  XDC_USD_PRICE_SOURCE: z.string().max(200).optional(),
  /** Trust X-Forwarded-For from a reverse proxy in front of the platform. */
  TRUST_PROXY: z
    .enum(["true", "false", "1", "0", ""])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** Multiplies every per-IP rate limit: for many legitimate users behind one address (an office NAT, a browser test run). */
  RATE_LIMIT_PER_IP_FACTOR: z.coerce.number().int().min(1).max(1000).default(1),
  /**
   * The AI scoping agent's language model: any OpenAI-compatible Chat Completions server (a hosted
   * model, llama.cpp's server, Ollama, exo). Unset: the built-in planner (docs/ai-scoping.md).
   */
  AI_BASE_URL: optionalUrl.transform((u) => u?.replace(/\/+$/, "")),
  AI_API_KEY: z.string().optional(),
  AI_MODEL: z.string().min(1).max(200).default("gpt-4o-mini"),
  /** How long one model answer may take before the job fails. */
  AI_TIMEOUT_MS: positiveInt.default(60_000),
  /** A scoping job's lease, renewed while it runs; a crashed process's job is taken up again after it. */
  SCOPING_LEASE_MS: positiveInt.default(15_000),
  /** How long plans (and the extracted text) are kept. */
  SCOPING_RETENTION_DAYS: positiveInt.default(30),
  /** Compute network (docs/compute-network.md): how often agents heartbeat; a node silent for NODE_OFFLINE_AFTER_MS is Offline. */
  NODE_HEARTBEAT_MS: positiveInt.default(5000),
  NODE_OFFLINE_AFTER_MS: positiveInt.default(20_000),
  /** A task's lease, renewed by its node's heartbeats; a dead node's task goes to another node after it. */
  NODE_TASK_LEASE_MS: positiveInt.default(12_000),
  /** How long a chat request waits for an answer (below the server's 30 s idle timeout), and an agent's long poll. */
  NODE_DISPATCH_TIMEOUT_MS: positiveInt.default(25_000),
  NODE_LONG_POLL_MS: positiveInt.default(20_000),
  /** Chat prompts one user may send per minute. */
  NODE_DISPATCH_PER_MINUTE: positiveInt.default(20),
  /**
   * Webhook deliveries whose processing fails (GitHub or the chain unreachable) are retried with exponential backoff
   * from WEBHOOK_RETRY_BASE_MS, at most WEBHOOK_RETRY_MAX_MS apart, for WEBHOOK_RETRY_HOURS after they arrived.
   */
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(1_000),
  WEBHOOK_RETRY_MAX_MS: positiveInt.default(600_000),
  WEBHOOK_RETRY_HOURS: z.coerce.number().positive().default(72),
  /** How often the GitHub catch-up pass asks GitHub about bountied issues closed while a delivery failed or never came. */
  GITHUB_CATCH_UP_INTERVAL_MS: positiveInt.default(300_000),
  /**
   * Shared rewards (issue 29): a bounty earned by a pull request with co-authors is paid this long after the merge,
   * so the pool manager can change the shares first (default 24 h). Also how often the release pass looks at most.
   */
  SPLIT_RELEASE_WINDOW_MS: positiveInt.default(24 * 3_600_000),
  SPLIT_RELEASE_INTERVAL_MS: positiveInt.default(60_000),
  /**
   * Outbound webhooks for integrators (docs/webhooks.md): failed deliveries are retried with exponential backoff from
   * OUTBOUND_RETRY_BASE_MS, at most OUTBOUND_RETRY_MAX_MS apart, for OUTBOUND_RETRY_HOURS; one attempt waits at most
   * OUTBOUND_TIMEOUT_MS for an answer.
   */
  OUTBOUND_RETRY_BASE_MS: positiveInt.default(5_000),
  OUTBOUND_RETRY_MAX_MS: positiveInt.default(3_600_000),
  OUTBOUND_RETRY_HOURS: z.coerce.number().positive().default(24),
  OUTBOUND_TIMEOUT_MS: positiveInt.default(10_000),
  /**
   * Lets outbound webhooks reach 127.0.0.1 (and only it): the local receiver of tests and development. Refused in
   * production, where only public addresses are ever called.
   */
  OUTBOUND_ALLOW_LOOPBACK: z
    .enum(["true", "false", "1", "0", ""])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  /** The hour (UTC) from which the daily digest of saved searches goes out. */
  DIGEST_HOUR_UTC: z.coerce.number().int().min(0).max(23).default(7),
  /** The embedded default's GitHub emulator port (default PORT + 1, fixed so stored GitHub links survive restarts). */
  DEV_GITHUB_PORT: port.optional(),
  /** Where `astro build` wrote the site. */
  SITE_DIST_DIR: z.string().min(1).default("dist"),
});

export type Env = z.infer<typeof EnvSchema> & { PUBLIC_URL: string; DATABASE_URL: string; BACKUP_DIR: string };

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

type Values = Record<string, string | number | undefined>;

/**
 * Parses configuration from `source` (the process environment by default).
 * `overrides` let tests supply values without mutating the environment and
 * win over `source`; `defaults` (the dev stack's) lose to it.
 */
export function loadEnv(overrides: Values = {}, source: Values = process.env, defaults: Values = {}): Env {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const value = overrides[key] ?? source[key] ?? defaults[key];
    if (value !== undefined) raw[key] = value;
  }
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = issue.path.join(".");
      const got = raw[name];
      const shown = isSecretName(name) || got === undefined ? "" : ` (got ${JSON.stringify(String(got))})`;
      return `  ${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = parsed.data;
  if (env.NODE_ENV === "production" && env.OUTBOUND_ALLOW_LOOPBACK) {
    throw new ConfigError("Invalid configuration:\n  OUTBOUND_ALLOW_LOOPBACK: only for development and tests (webhooks never call loopback in production)");
  }
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, "");
  const databaseUrl = env.DATABASE_URL ?? `file:${env.DATA_DIR.replace(/\/+$/, "")}/app.db`;
  const backupDir = env.BACKUP_DIR ?? `${env.DATA_DIR.replace(/\/+$/, "")}/backups`;
  // Test servers back up only when a test asks (each process test would otherwise take a copy at start).
  if (env.NODE_ENV === "test" && raw.BACKUP_INTERVAL_HOURS === undefined) env.BACKUP_INTERVAL_HOURS = 0;
  return { ...env, PUBLIC_URL: publicUrl, DATABASE_URL: databaseUrl, BACKUP_DIR: backupDir };
}

/** DATA_DIR alone, before the rest is known: the dev stack keeps its generated secrets there. */
export function configuredDataDir(source: Values = process.env): string {
  return String(source.DATA_DIR ?? "data");
}

/**
 * What `npm run backup` and `npm run restore` need (api/ops/backup-cli.ts, restore-cli.ts), read alone: they run
 * beside a stopped or running platform without its secrets.
 */
export function backupSettings(source: Values = process.env): { dataDir: string; databaseUrl: string; backupDir: string; keep: number } {
  const dataDir = configuredDataDir(source).replace(/\/+$/, "");
  const keep = Number(source.BACKUP_KEEP ?? 7);
  if (!Number.isInteger(keep) || keep < 1) throw new ConfigError(`Invalid configuration:\n  BACKUP_KEEP: must be a whole number of copies, at least 1 (got ${JSON.stringify(String(source.BACKUP_KEEP))})`);
  return {
    dataDir,
    databaseUrl: String(source.DATABASE_URL ?? `file:${dataDir}/app.db`),
    backupDir: String(source.BACKUP_DIR ?? `${dataDir}/backups`),
    keep,
  };
}

/** SITE_DIST_DIR alone, for the site build (astro.config.ts, scripts/build-site.ts). */
export function configuredSiteDistDir(source: Values = process.env): string {
  return String(source.SITE_DIST_DIR ?? "dist");
}

export function isSecretName(name: string): boolean {
  return /SECRET|TOKEN|KEY|PASSWORD|PRIVATE/i.test(name);
}

export function isProduction(env: Env): boolean {
  return env.NODE_ENV === "production";
}
