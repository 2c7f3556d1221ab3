/**
 * The escrow watcher (issue 19): every outflow the rewards contract emits
 * must come from a transaction the platform's outbox sent (a row of
 * chain_transactions with that hash). An unknown outflow (a stolen operator
 * or manager key used outside the platform), or outflows near a daily cap,
 * pause the contract with the guardian key at once and send an alert mail.
 *
 * It needs only the guardian key (which can pause and cancel queued
 * outflows, and move nothing), read access to the database and an RPC node.
 * The server starts it when GUARDIAN_PRIVATE_KEY is set (the embedded local
 * default does); in production run it as its own process, on another
 * machine than the server holding the operator key:
 *
 *   GUARDIAN_PRIVATE_KEY=0x... DATABASE_URL=... CHAIN=xdc-mainnet ... bun api/workers/watcher.ts
 *
 * See docs/contracts.md ("The watcher").
 */
import { eq, inArray } from "drizzle-orm";
import { createPublicClient, createWalletClient, http, parseEventLogs, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import type { Env } from "../env.ts";
import { chainConfig } from "../chain/config.ts";
import { createLogger } from "../logger.ts";
import { openDatabase } from "../../db/client.ts";
import { createMailer } from "../mail/mailer.ts";
import type { Database } from "../../db/client.ts";
import { chainCursors, chainTransactions } from "../../db/schema/index.ts";
import { CURRENCIES } from "../../lib/money.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import type { ChainAccess } from "../chain/clients.ts";
import { describeChainError } from "../chain/errors.ts";
import type { Logger } from "../logger.ts";
import type { Mailer } from "../mail/mailer.ts";
import { Periodic } from "./periodic.ts";

/**
 * Events that move money out of escrow to an address someone chose, or queue it to. RepoRewards v3's refunds
 * (BoostRefunded, TipRefunded) go back where the money came from, and a split payout's BountySharePaid comes with its
 * BountyPaid; an escrowed tip's payout (TipPaid) is the operator's choice of address, like a bounty's.
 */
const OUTFLOW_EVENTS = new Set(["BountyPaid", "PoolWithdrawn", "OutflowQueued", "ExcessSwept", "TipPaid"]);
const BATCH_BLOCKS = 2000n;

export interface WatcherDeps {
  db: Database;
  chain: ChainAccess;
  guardian: PrivateKeyAccount;
  log: Logger;
  mailer?: Mailer;
  /** Who gets the alerts. Empty: only logged. */
  alertTo: string[];
  /** Share of a cap (per repository or in total) that counts as near it: 0.8 by default. */
  nearCap?: number;
}

export interface WatcherFinding {
  kind: "unknown-outflow" | "near-cap";
  detail: string;
  txHash?: Hex;
}

export class EscrowWatcher {
  private readonly cursorName: string;
  private readonly worker = new Periodic(
    "watcher",
    () => this.runOnce(),
    (err) => this.deps.log.warn("escrow watcher pass failed", { err: describeChainError(err) }),
  );

  constructor(private readonly deps: WatcherDeps) {
    this.cursorName = `watcher:${deps.chain.config.contracts.rewards.toLowerCase()}`;
  }

  /** One poll: reads the blocks since the last one, checks every outflow, pauses and alerts on a finding. */
  async runOnce(): Promise<WatcherFinding[]> {
    const { chain, db } = this.deps;
    const { contracts } = chain.config;
    const latest = await chain.client.getBlockNumber({ cacheTime: 0 });
    const [cursor] = await db.select().from(chainCursors).where(eq(chainCursors.name, this.cursorName)).limit(1);
    const from = cursor ? BigInt(cursor.lastBlock) + 1n : contracts.deployedBlock;
    if (from > latest) return [];
    const to = latest - from > BATCH_BLOCKS ? from + BATCH_BLOCKS : latest;

    const logs = await chain.client.getLogs({ address: contracts.rewards, fromBlock: from, toBlock: to });
    const events = parseEventLogs({ abi: RepoRewardsAbi, logs, strict: true });
    const outflows = events.filter((e) => OUTFLOW_EVENTS.has(e.eventName));
    // A queued outflow's execution is matched when it was queued: the transaction running it is anyone's.
    const executions = new Set(events.filter((e) => e.eventName === "OutflowExecuted").map((e) => e.transactionHash));
    const hashes = [...new Set(outflows.map((e) => e.transactionHash))].filter((h) => !executions.has(h));
    const known = new Set(
      hashes.length
        ? (await db.select({ txHash: chainTransactions.txHash }).from(chainTransactions).where(inArray(chainTransactions.txHash, hashes))).map((r) => r.txHash)
        : [],
    );

    const findings: WatcherFinding[] = [];
    for (const event of outflows) {
      if (executions.has(event.transactionHash) || known.has(event.transactionHash)) continue;
      const args = event.args as Record<string, unknown>;
      findings.push({
        kind: "unknown-outflow",
        txHash: event.transactionHash,
        detail: `${event.eventName} not sent by the platform: ${JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? v.toString() : v))} (tx ${event.transactionHash}, block ${event.blockNumber})`,
      });
    }
    const touched = new Map<string, { repoId: bigint; currency: number }>();
    for (const event of outflows) {
      const args = event.args as { repoId?: bigint; currency?: number };
      if (typeof args.repoId === "bigint" && typeof args.currency === "number") touched.set(`${args.repoId}:${args.currency}`, { repoId: args.repoId, currency: args.currency });
    }
    findings.push(...(await this.nearCaps([...touched.values()])));

    if (findings.length > 0) await this.raise(findings);
    await db
      .insert(chainCursors)
      .values({ name: this.cursorName, chainId: chain.config.chain.id, lastBlock: Number(to) })
      .onConflictDoUpdate({ target: chainCursors.name, set: { lastBlock: Number(to), updatedAt: new Date() } });
    return findings;
  }

  private async nearCaps(touched: { repoId: bigint; currency: number }[]): Promise<WatcherFinding[]> {
    const ratio = this.deps.nearCap ?? 0.8;
    const scaled = (cap: bigint) => (cap * BigInt(Math.round(ratio * 1_000_000))) / 1_000_000n;
    const findings: WatcherFinding[] = [];
    for (const { repoId, currency } of touched) {
      const [perRepo, total, repoUsed, totalUsed] = await this.deps.chain.client.readContract({
        address: this.deps.chain.config.contracts.rewards,
        abi: RepoRewardsAbi,
        functionName: "caps",
        args: [currency, repoId],
      });
      const name = CURRENCIES[currency] ?? String(currency);
      if (repoUsed >= scaled(perRepo)) findings.push({ kind: "near-cap", detail: `repository ${repoId}: ${repoUsed} of its ${perRepo} ${name} daily cap (smallest units) went out` });
      if (totalUsed >= scaled(total)) findings.push({ kind: "near-cap", detail: `in total: ${totalUsed} of the ${total} ${name} daily cap (smallest units) went out` });
    }
    return findings;
  }

  /** Pauses the contract (unless it already is) and sends one alert for the findings. */
  private async raise(findings: WatcherFinding[]): Promise<void> {
    const { chain, guardian, log, mailer, alertTo } = this.deps;
    const address = chain.config.contracts.rewards;
    let pauseNote: string;
    const paused = await chain.client.readContract({ address, abi: RepoRewardsAbi, functionName: "paused" });
    if (paused) {
      pauseNote = "The contract was already paused.";
    } else {
      try {
        const wallet = createWalletClient({ account: guardian, chain: chain.config.chain, transport: http(chain.config.rpcUrl) });
        const hash = await wallet.writeContract({ address, abi: RepoRewardsAbi, functionName: "pause", args: [], chain: chain.config.chain });
        const receipt = await chain.client.waitForTransactionReceipt({ hash, timeout: 60_000 });
        pauseNote = receipt.status === "success" ? `The guardian paused the contract (tx ${hash}).` : `The guardian's pause reverted (tx ${hash}): PAUSE BY HAND.`;
      } catch (err) {
        pauseNote = `The guardian could not pause the contract (${describeChainError(err)}): PAUSE BY HAND.`;
      }
    }
    log.error("escrow watcher: suspicious outflows", { findings: findings.map((f) => f.detail), pause: pauseNote });
    if (!mailer || alertTo.length === 0) return;
    const text = [
      "The escrow watcher found outflows it cannot account for, or outflows near a daily cap:",
      "",
      ...findings.map((f) => `- ${f.detail}`),
      "",
      pauseNote,
      "",
      "What to do: docs/contracts.md, \"Pause and recovery\". Queued outflows wait out their delay; the guardian can cancel them.",
    ].join("\n");
    for (const to of alertTo) {
      await mailer.send({ to, subject: `Issuepool escrow paused: ${findings[0]!.kind === "unknown-outflow" ? "an outflow the platform did not send" : "outflows near a daily cap"}`, text }).catch((err) =>
        log.warn("escrow watcher: alert mail failed", { to, err: (err as Error).message }),
      );
    }
  }

  start(intervalMs = this.deps.chain.config.pollingIntervalMs * 10): void {
    this.worker.start(intervalMs);
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }
}

/** The watcher for a server's context, when the guardian key is configured. */
export function watcherFor(ctx: { database: { db: Database }; chain: ChainAccess; log: Logger; mailer: Mailer; env: { GUARDIAN_PRIVATE_KEY?: string; ESCROW_ALERT_EMAILS?: string } }): EscrowWatcher | undefined {
  if (!ctx.env.GUARDIAN_PRIVATE_KEY) return undefined;
  return new EscrowWatcher({
    db: ctx.database.db,
    chain: ctx.chain,
    guardian: privateKeyToAccount(ctx.env.GUARDIAN_PRIVATE_KEY as Hex),
    log: ctx.log,
    mailer: ctx.mailer,
    alertTo: (ctx.env.ESCROW_ALERT_EMAILS ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  });
}

/**
 * The settings a watcher process reads: the chain, the contract, the
 * database, the guardian key and where alerts go. Nothing else: no operator
 * key, no GitHub or wallet secrets.
 */
const WatcherEnv = z.object({
  CHAIN: z.enum(["local", "xdc-apothem", "xdc-mainnet"]).default("local"),
  CHAIN_RPC_URL: z.url(),
  REWARDS_CONTRACT_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  CONTRACTS_DEPLOYED_BLOCK: z.coerce.number().int().min(0).default(0),
  DATABASE_URL: z.string().min(1),
  DATABASE_AUTH_TOKEN: z.string().optional(),
  GUARDIAN_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  SMTP_URL: z.string().regex(/^smtps?:\/\/\S+$/).optional(),
  MAIL_FROM: z.string().min(3).default("Issuepool <no-reply@issuepool.dev>"),
  ESCROW_ALERT_EMAILS: z.string().optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
});

if (import.meta.main) {
  const parsed = WatcherEnv.safeParse(process.env);
  if (!parsed.success) {
    console.error(`escrow watcher: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    process.exit(1);
  }
  const env = parsed.data;
  // The guardian's key is never logged, with or without its 0x (api/logger.ts).
  const log = createLogger(env.LOG_LEVEL, undefined, {}, "json", { redaction: { values: [env.GUARDIAN_PRIVATE_KEY, env.GUARDIAN_PRIVATE_KEY.slice(2)] } });
  const database = await openDatabase(env.DATABASE_URL, { authToken: env.DATABASE_AUTH_TOKEN });
  // The chain settings the server uses, built from the watcher's few variables (no operator key is read).
  const config = chainConfig({ ...env, USDC_TOKEN_ADDRESS: env.REWARDS_CONTRACT_ADDRESS, ROXN_TOKEN_ADDRESS: env.REWARDS_CONTRACT_ADDRESS } as unknown as Env);
  const client = createPublicClient({ chain: config.chain, transport: http(config.rpcUrl, { timeout: 10_000 }), pollingInterval: config.pollingIntervalMs }) as PublicClient;
  const mailer = env.SMTP_URL ? createMailer({ SMTP_URL: env.SMTP_URL, MAIL_FROM: env.MAIL_FROM } as Env, log) : undefined;
  const watcher = new EscrowWatcher({
    db: database.db,
    chain: { config, client, operator: undefined as never },
    guardian: privateKeyToAccount(env.GUARDIAN_PRIVATE_KEY as Hex),
    log,
    mailer,
    alertTo: (env.ESCROW_ALERT_EMAILS ?? "").split(",").map((a) => a.trim()).filter(Boolean),
  });
  watcher.start();
  log.info("escrow watcher started", { contract: env.REWARDS_CONTRACT_ADDRESS, guardian: privateKeyToAccount(env.GUARDIAN_PRIVATE_KEY as Hex).address });
  const stop = () => void watcher.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
