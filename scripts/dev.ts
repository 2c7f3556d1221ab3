/**
 * The embedded default: everything Issuepool needs, on this machine, with
 * demo data and no configuration. `npm start` runs this.
 *
 *   site build (if sources changed) -> anvil (chain state kept in DATA_DIR)
 *   -> contracts (deployed once) -> GitHub emulator -> database (migrated)
 *   -> server (API, site, workers) -> demo seed through the contracts
 *
 * Ctrl-C (or SIGTERM) stops every part cleanly; running it again continues
 * on the same data in DATA_DIR. Delete that directory to start over.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { createServer } from "node:net";
import { buildSite } from "./build-site.ts";
import { ConfigError, configuredDataDir, isProduction, loadEnv, type Env } from "../api/env.ts";
import { createLogger, type Logger } from "../api/logger.ts";
import { loggerFromEnv } from "../api/logger-config.ts";
import { startServer, stopOnSignals, type RunningServer } from "../api/server.ts";
import { migrateDatabase, openDatabase, type DatabaseHandle } from "../db/client.ts";
import { loadOrCreateDevSecrets } from "./lib/dev-secrets.ts";
import { devRoutes } from "./lib/dev-routes.ts";
import { anvilPrivateKey, LOCAL_CHAIN_ID, startAnvil } from "./lib/anvil.ts";
import { eq } from "drizzle-orm";
import { deployLocalContracts } from "./deploy-contracts.ts";
import { startGitHubEmulator, type GitHubEmulator } from "./github-emulator/index.ts";
import { seedDemo, type SeedChain } from "./seed-demo.ts";
import { startMailSink } from "./mail-sink/index.ts";
import { startOnrampSimulator } from "./onramp-simulator/index.ts";
import { FIXTURE_USERS } from "./github-emulator/fixture.ts";
import {
  bounties,
  chainCursors,
  chainEvents,
  chainIdentity,
  chainTransactions,
  repositoryPools,
  users,
  walletNonces,
} from "../db/schema/index.ts";
import { customerIdOf } from "../api/services/cashout/settings.ts";
import { localChain } from "../api/chain/config.ts";
import { assertWritableDataDir } from "../api/data-dir.ts";
import { startDemoNode } from "./lib/demo-node.ts";
import { anvilRpc, localFunder } from "./lib/local-funds.ts";
import { anyCopyExists } from "./lib/chain-state.ts";
import { parseStopWithPid, stopWhenGone } from "./lib/stop-when-gone.ts";

export interface DevStack {
  env: Env;
  url: string;
  server: RunningServer;
  github: GitHubEmulator;
  chainRpcUrl: string;
  /** The demo compute node's log file (undefined when no demo node runs). */
  demoNodeLog?: string;
  stop(): Promise<void>;
}

export interface DevStackOptions {
  /** Values that win over the environment (tests pass PORT, DATA_DIR, ...). */
  overrides?: Record<string, string | number | undefined>;
  log?: Logger;
  /** Skip the site build check (the caller built it). */
  skipBuild?: boolean;
  /** Skip the demo seed. */
  seed?: boolean;
  /**
   * Called at once with the function that stops whatever has started so far: a signal that arrives while the stack
   * is still starting (seeding, say) must stop anvil too, not leave it behind.
   */
  registerStop?: (stop: () => Promise<void>) => void;
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

export async function startDevStack(options: DevStackOptions = {}): Promise<DevStack> {
  const dataDir = String(options.overrides?.DATA_DIR ?? configuredDataDir());
  // A read-only data directory: one line naming it (exit 78), before the secrets, the chain or the database touch it.
  assertWritableDataDir({ DATA_DIR: dataDir, DATABASE_URL: `file:${join(dataDir, "app.db")}` });
  const { GITHUB_APP_PUBLIC_KEY, ...secrets } = await loadOrCreateDevSecrets(dataDir);
  // A first pass with placeholders for what the local services will provide, to read PORT, HOST and friends.
  const placeholders = {
    CHAIN_RPC_URL: "http://127.0.0.1:1",
    REWARDS_CONTRACT_ADDRESS: "0x0000000000000000000000000000000000000001",
    ROXN_TOKEN_ADDRESS: "0x0000000000000000000000000000000000000001",
    USDC_TOKEN_ADDRESS: "0x0000000000000000000000000000000000000001",
    OPERATOR_PRIVATE_KEY: anvilPrivateKey(1),
    SMTP_URL: "smtp://127.0.0.1:1",
  };
  const base = loadEnv(options.overrides, process.env, { LOG_FORMAT: "pretty", ...secrets, ...placeholders });
  const log = options.log ?? loggerFromEnv(base);
  const stops: (() => Promise<void> | void)[] = [];
  let stopped: Promise<void> | undefined;
  // The chain is saved first thing too: a supervisor's SIGKILL may follow its SIGTERM before the stop gets to anvil.
  let saveChain: (() => Promise<void>) | undefined;
  const stopAll = () =>
    (stopped ??= (async () => {
      await saveChain?.().catch(() => undefined);
      for (const stop of stops.splice(0).reverse()) await stop();
    })());
  options.registerStop?.(stopAll);

  try {
    if (!options.skipBuild) await buildSite();
    // Ports: the app's (a free one when PORT=0, chosen now so every part knows the URL up front),
    // and the emulator's next to it, fixed, so GitHub links stored in the database survive a restart.
    const port = base.PORT === 0 ? await freePort(base.HOST) : base.PORT;
    const publicUrl = options.overrides?.PUBLIC_URL ?? process.env.PUBLIC_URL ?? `http://localhost:${port}`;
    const githubPort = base.DEV_GITHUB_PORT ?? (base.PORT === 0 ? 0 : port + 1);
    if (githubPort && !(await portIsFree(githubPort, "127.0.0.1"))) {
      throw new Error(`Port ${githubPort} (the local GitHub emulator, PORT + 1) is in use. Free it or set PORT to another value.`);
    }

    // The chain: anvil with its state in DATA_DIR (saved by us, atomically: scripts/lib/chain-state.ts), and the
    // contracts deployed once. It is stopped last, after the server and its outbox, with a final save.
    const stateFile = join(dataDir, "chain", "anvil-state.json");
    const hadChain = anyCopyExists(stateFile) || existsSync(join(dataDir, "chain", "deployments.json"));
    const anvil = await startAnvil({
      stateFile,
      onSaveError: (err) => log.warn("could not save the local chain; its last good copy is kept", { stateFile, err: err.message }),
    });
    stops.push(() => anvil.stop());
    saveChain = anvil.save;
    for (const skipped of anvil.state?.skipped ?? []) log.warn(`local chain state passed over: ${skipped}`);
    if (hadChain && !anvil.state?.loaded) {
      log.warn(
        `The local chain's state in ${dirname(stateFile)} is lost (no copy could be loaded): starting a new chain, deploying the contracts and funding the demo data again; users, sessions and repositories are kept.`,
      );
    }
    const chain = localChain(anvil.chainId, anvil.rpcUrl, "Local development chain");
    const deployment = await deployLocalContracts({
      rpcUrl: anvil.rpcUrl,
      chain,
      deploymentsFile: join(dataDir, "chain", "deployments.json"),
      log: (m) => log.info(m),
    });

    // GitHub: the emulator, with the platform's GitHub App and webhook endpoint.
    const github = await startGitHubEmulator({
      port: githubPort,
      stateFile: join(dataDir, "github-emulator.json"),
      oauth: { clientId: `${secrets.GITHUB_CLIENT_ID}-oauth`, clientSecret: secrets.GITHUB_CLIENT_SECRET },
      app: {
        id: Number(secrets.GITHUB_APP_ID),
        slug: secrets.GITHUB_APP_SLUG,
        clientId: secrets.GITHUB_CLIENT_ID,
        clientSecret: secrets.GITHUB_CLIENT_SECRET,
        publicKeyPem: GITHUB_APP_PUBLIC_KEY,
        setupUrl: `${publicUrl}/repos/register`,
      },
      webhook: { url: `${publicUrl}/api/webhooks/github`, secret: secrets.GITHUB_WEBHOOK_SECRET },
    });
    stops.push(() => github.stop());

    // ---- local mail sink and on-ramp simulator: wired in here (see the Wallet issue) ----
    // Mail goes to a local SMTP sink (listed at /dev/mail); buying and selling XDC goes through a local
    // simulator of the provider's pages and signed webhooks, with test XDC on anvil (docs/wallet.md).
    // Settings given in the environment (a real SMTP_URL or ONRAMP_URL) still win over these.
    const mailSink = await startMailSink();
    stops.push(() => mailSink.stop());
    const onrampSimulator = await startOnrampSimulator({
      appId: base.ONRAMP_APP_ID,
      appSecret: base.ONRAMP_APP_SECRET,
      webhookUrl: `${publicUrl}/api/webhooks/onramp`,
      rpcUrl: anvil.rpcUrl,
      // anvil's account 9 plays the provider's hot wallet (accounts 0-2 deploy, operate and collect fees).
      providerKey: anvilPrivateKey(9),
      // Its sell side buys USDC too (cash-outs to UPI, issue 40).
      usdcAddress: deployment.usdc,
      log: (m) => log.debug(m),
    });
    stops.push(() => onrampSimulator.stop());
    const realProvider = Boolean(options.overrides?.ONRAMP_URL ?? process.env.ONRAMP_URL);
    const localServices: Record<string, string> = {
      SMTP_URL: mailSink.smtpUrl,
      ONRAMP_URL: onrampSimulator.url,
      // Webhooks for integrators may reach a receiver on this machine (127.0.0.1 only; never in production).
      OUTBOUND_ALLOW_LOOPBACK: "true",
      // Asked before an abandoned order expires; never the simulator's when a real provider is configured.
      ...(realProvider ? {} : { ONRAMP_STATUS_URL: `${onrampSimulator.url}/api/order-status` }),
      // Cash-out to UPI through the simulator's sell side, and its made-up prices for statements (issue 40).
      ...(realProvider ? {} : { ONRAMP_API_URL: onrampSimulator.url }),
      ...(process.env.PRICE_SOURCE_URL || process.env.XDC_USD_PRICE ? {} : { PRICE_SOURCE_URL: onrampSimulator.priceUrl, PRICE_SOURCE_NAME: "On-ramp simulator (made-up prices)" }),
    };
    // The daily digest on demand, as of tomorrow (a journey cannot wait a day): e2e/alerts.e2e.ts.
    let digestAsOfTomorrow: (() => Promise<number>) | undefined;
    // Boosts' expiry on demand (a journey cannot wait a day): the chain's clock moves on by `seconds`, then the hourly
    // refund pass runs as of that clock (e2e/boost-expiry.e2e.ts).
    let refundBoostsAfter: ((seconds: number) => Promise<number>) | undefined;
    // Attempts' locks on demand (a journey cannot wait a week): the lock pass as of `seconds` from now (e2e/attempts.e2e.ts).
    let expireLocksAfter: ((seconds: number) => Promise<number>) | undefined;
    let customerOfLogin: ((login: string) => Promise<string | undefined>) | undefined;
    // Their writes take a session, the anti-forgery token and JSON, like every write (scripts/lib/dev-routes.ts).
    const devOnlyRoutes = devRoutes({
      mail: mailSink.routes(),
      digestAsOfTomorrow: async () => (await digestAsOfTomorrow?.()) ?? 0,
      refundBoostsAfter: async (seconds) => (await refundBoostsAfter?.(seconds)) ?? 0,
      expireLocksAfter: async (seconds) => (await expireLocksAfter?.(seconds)) ?? 0,
      // The simulator's sell side for trying cash-outs by hand: a customer's KYC state (by GitHub login).
      setKyc: async (login, status) => {
        const customerId = await customerOfLogin?.(login);
        if (customerId) onrampSimulator.sell.setKyc(customerId, status);
        return customerId;
      },
    });
    log.info(`local mail sink: mail sent by the platform is listed at ${publicUrl}/dev/mail; on-ramp simulator at ${onrampSimulator.url}`);
    // ---- end of local mail sink and on-ramp simulator ----

    const env = loadEnv(options.overrides, process.env, {
      LOG_FORMAT: "pretty",
      ...secrets,
      ...placeholders,
      ...localServices,
      PORT: port,
      PUBLIC_URL: publicUrl,
      CHAIN: "local",
      CHAIN_RPC_URL: anvil.rpcUrl,
      REWARDS_CONTRACT_ADDRESS: deployment.repoRewards,
      ROXN_TOKEN_ADDRESS: deployment.roxn,
      USDC_TOKEN_ADDRESS: deployment.usdc,
      CONTRACTS_DEPLOYED_BLOCK: Number(deployment.deployedBlock),
      OPERATOR_PRIVATE_KEY: anvilPrivateKey(1),
      // The escrow watcher runs inside the server here, with the guardian's key (anvil's account 4); its alerts go
      // to the local mail sink. In production it runs apart, on its own machine (docs/contracts.md).
      GUARDIAN_PRIVATE_KEY: anvilPrivateKey(4),
      ESCROW_ALERT_EMAILS: "escrow-alerts@issuepool.local",
      GITHUB_URL: github.webUrl,
      GITHUB_API_URL: github.apiUrl,
      // The demo pool manager is also the demo's operator: /ops (docs/operations.md).
      OPS_LOGINS: "alice",
    });

    const database = await openDatabase(env.DATABASE_URL, { authToken: env.DATABASE_AUTH_TOKEN, busyTimeoutMs: env.DATABASE_BUSY_TIMEOUT_MS });
    stops.push(() => database.close());
    await migrateDatabase(database);
    if (deployment.created) await forgetOldChain(database, anvil.rpcUrl, log);

    // The browser journeys check every answer the site receives against the API document (playwright.config.ts sets
    // CHECK_API_ANSWERS; e2e/teardown.ts fails the run on a mismatch the server logged). Loaded only then.
    const checkAnswers =
      process.env.CHECK_API_ANSWERS === "1" && !isProduction(env) ? (await import("../api/openapi/conformance.ts")).answersCheckedAgainstDocument : undefined;
    const server = await startServer({ ...env, PORT: port }, { log, database, extraRoutes: isProduction(env) ? undefined : devOnlyRoutes, checkAnswers });
    stops.pop(); // the server closes the database when it stops
    stops.push(server.stop);
    // Both through the schedule's own passes (api/schedule.ts), as of another moment.
    digestAsOfTomorrow = async () => Number(await server.schedule!.runOnce("digest", { now: Date.now() + 86_400_000 }));
    customerOfLogin = async (login) => {
      const [user] = await server.ctx.database.db.select({ id: users.id }).from(users).where(eq(users.username, login));
      return user ? customerIdOf(server.ctx, user.id) : undefined;
    };
    refundBoostsAfter = async (seconds) => {
      if (seconds) await rpc(anvil.rpcUrl, "evm_increaseTime", [seconds]);
      await rpc(anvil.rpcUrl, "evm_mine", []);
      // Expiries are read against the chain's clock, which just moved on.
      return Number(await server.schedule!.runOnce("boost-refunds"));
    };
    expireLocksAfter = async (seconds) => ((await server.schedule!.runOnce("attempt-locks", { now: Date.now() + seconds * 1000 })) as { expired: number }).expired;

    if (options.seed !== false) {
      const seedChain: SeedChain = { fund: localFunder(anvil.rpcUrl, chain, deployment) };
      await seedDemo(server.ctx, { github, chain: seedChain, log: (m) => log.info(m) });
    }
    // The demo compute node (docs/compute-network.md): a real node agent process, paired to alice, so the chat answers.
    const demoNode = await startDemoNode(server.ctx, { serverUrl: server.url, dataDir, log: (m) => log.info(m) });
    if (demoNode) stops.push(() => demoNode.stop());
    return { env, url: env.PUBLIC_URL, server, github, chainRpcUrl: anvil.rpcUrl, demoNodeLog: demoNode?.logFile, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

/** A new deployment means a new chain (DATA_DIR/chain was deleted): what the database mirrored from the old one is void. */
/**
 * Contracts deployed afresh. On a chain created anew (another genesis block: its state was lost) the server's
 * start marks the old chain's records as such and keeps them as history (api/chain/identity.ts): nothing to do here.
 * On the same chain (the deployments file was removed), the mirror of the previous contracts is cleared.
 */
async function forgetOldChain(database: DatabaseHandle, rpcUrl: string, log: Logger): Promise<void> {
  const db = database.db;
  const genesis = (await rpc(rpcUrl, "eth_getBlockByNumber", ["0x0", false])) as { hash: string };
  const [recorded] = await db.select().from(chainIdentity).where(eq(chainIdentity.chainId, LOCAL_CHAIN_ID));
  if (recorded && recorded.genesisHash.toLowerCase() !== genesis.hash.toLowerCase()) return;
  for (const table of [chainEvents, chainCursors, bounties, repositoryPools, walletNonces, chainTransactions]) await db.delete(table);
  log.info("contracts were deployed afresh: cleared the mirror of the previous chain");
}

const rpc = anvilRpc;

function banner(stack: DevStack): string {
  const users = FIXTURE_USERS.map((u) => `    ${u.login.padEnd(8)} ${u.persona}`).join("\n");
  return [
    "",
    "  Issuepool is running (embedded default: demo data, local services)",
    "",
    `  Open              ${stack.url}`,
    `  GitHub emulator   ${stack.github.webUrl}/_emulator  (sign in as a demo user; open, close and merge issues and PRs)`,
    `  Local chain       ${stack.chainRpcUrl}`,
    `  Data              ${stack.env.DATA_DIR}/  (delete it to start from scratch)`,
    `  Operations        ${stack.url}/ops  (as ${stack.env.OPS_LOGINS.join(", ") || "an account in OPS_LOGINS"}); metrics at ${stack.url}/metrics; backups: npm run backup`,
    ...(stack.demoNodeLog ? [`  Demo node log     ${stack.demoNodeLog}  (restarted by itself if it dies)`] : []),
    "",
    "  Demo users (choose one on the GitHub sign-in page):",
    users,
    "",
    "  Press Ctrl-C to stop.",
    "",
  ].join("\n");
}

if (import.meta.main) {
  try {
    // Signals are handled from the first moment (a process manager may stop us while we seed): they stop whatever
    // has started. One stop, however many ask for it (a signal and the orphan watch often come together, when npm
    // passes the signal on and exits): a second caller waits for the same stop instead of exiting while anvil runs.
    const log = createLogger("info", undefined, {}, "pretty");
    let stopStarted: () => Promise<void> = async () => undefined;
    let stopping: Promise<void> | undefined;
    const stopOnce = () => (stopping ??= stopStarted());
    stopOnSignals(stopOnce, log);
    stopWhenGone(stopOnce, log, { watchedPid: parseStopWithPid(process.env.STOP_WITH_PID) });
    const stack = await startDevStack({ registerStop: (stop) => (stopStarted = stop) });
    console.log(banner(stack));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(78);
    }
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  }
}
