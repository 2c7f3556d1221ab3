import { and, asc, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import { preparedQuery } from "../../db/prepared.ts";
import { parseEventLogs } from "viem";
import type { Database } from "../../db/client.ts";
import { chainBlocks, chainCursors, chainEvents, repositories } from "../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import type { Logger } from "../logger.ts";
import { randomToken } from "../crypto/tokens.ts";
import { LeaseHolder } from "../workers/lease.ts";
import { NextRun } from "../workers/next-run.ts";
import { Periodic } from "../workers/periodic.ts";
import { blockAt, highestIntact } from "./block-check.ts";
import type { ChainAccess } from "./clients.ts";
import { describeChainError } from "./errors.ts";
import { CURRENCY_BY_INDEX, parsedFromStored, writeBounty, writePaidHeldShares, writePool, writeReturnedHeldShares } from "./indexer-mirror.ts";
import { CHAIN_EVENT_TYPES, recordBountyEvent } from "../services/notify/events.ts";

export { CURRENCY_BY_INDEX } from "./indexer-mirror.ts";

/**
 * Mirrors the rewards contract into the database so pages and lists read the
 * database, not the chain. Reads confirmed blocks in batches from where it
 * stopped (chain_cursors), records every event once (chain_events), and
 * refreshes the pools those events touched from the contract's own view at
 * the batch's last block, so the mirror equals the contract rather than a
 * sum of deltas that could drift. A bounty is the state its last event
 * states (each bounty event carries the whole of it).
 *
 * A reorganisation (or a chain that lost its last blocks) is noticed before
 * every batch: the hash of the cursor's block, recorded when it was read
 * (chain_blocks, with the blocks that had events), is looked up again beside
 * the head. On a mismatch, or a head below the cursor, the indexer rewinds to
 * the highest recorded block the chain still has (the common ancestor),
 * deletes the events of the orphaned blocks, rebuilds the bounties they
 * touched from the events that remain and those pools from the contract at
 * the ancestor, and reads on from there: the mirror is again what the
 * contract says.
 */
const BATCH_BLOCKS = 2000n;
const LEASE_MS = 15_000;

export interface IndexerDeps {
  db: Database;
  chain: ChainAccess;
  log: Logger;
  /** Told which data changed (page cache tags): "repositories", "repo:<id>". */
  onChange?: (tags: string[]) => void;
  /** Told of every rewind (the metrics and the operator's page: api/ops/metrics.ts). */
  onRewind?: (detail: { from: number; to: number; events: number; repositories: number }) => void;
}

/** What a service asks of the indexer (AppContext's `indexer`): catch up now, or where it stands. Its background passes stay with the composition root (`RootContext`). */
export type IndexerPort = Pick<RewardsIndexer, "catchUp" | "lastIndexedBlock">;

export class RewardsIndexer {
  private readonly owner = `idx-${randomToken(6)}`;
  /**
   * The background passes: one process at a time holds the indexer lease and
   * catches up, sharing its runs with the requests' catch-ups (so the same
   * blocks are never indexed twice side by side in one process).
   */
  private readonly worker = new Periodic(
    "indexer",
    async () => {
      if (!(await this.lease.hold("indexer"))) return;
      await this.catchUp();
    },
    (err) => this.deps.log.warn("indexer pass failed", { err: describeChainError(err) }),
  );
  private stopping = false;

  /** Renewed when half spent, not on every pass (a pass every few hundred ms locally). */
  private readonly lease: LeaseHolder;

  constructor(private readonly deps: IndexerDeps) {
    this.lease = new LeaseHolder(deps.db, this.owner, LEASE_MS);
  }

  get cursorName(): string {
    return `rewards:${this.deps.chain.config.contracts.rewards.toLowerCase()}`;
  }

  async lastIndexedBlock(): Promise<bigint | null> {
    const row = await cursorByName(this.deps.db).get({ name: this.cursorName });
    return row ? BigInt(row.lastBlock) : null;
  }

  /** Indexes one batch; returns how many events it recorded (0 when caught up). */
  async runOnce(): Promise<number> {
    return (await this.indexBatch()).events;
  }

  /** One batch from the cursor, up to the latest confirmed block or the batch size; `caughtUp` when nothing confirmed is left. */
  private async indexBatch(): Promise<{ events: number; caughtUp: boolean }> {
    const { db, chain } = this.deps;
    const { confirmations, contracts } = chain.config;
    const last = await this.lastIndexedBlock();
    const recorded = last === null ? undefined : await blockHashAt(db).get({ cursor: this.cursorName, number: Number(last) });
    // Fresh, not viem's cached figure: a catch-up must cover the block its caller's transaction was just mined in.
    // The cursor's block is looked up beside it (no extra wait): is it still the chain's?
    const [latest, cursorBlock] = await Promise.all([
      chain.client.getBlockNumber({ cacheTime: 0 }),
      recorded ? blockAt(chain.client, recorded.number) : undefined,
    ]);
    if (recorded && (cursorBlock === null || cursorBlock!.hash.toLowerCase() !== recorded.hash.toLowerCase())) {
      await this.rewind(Number(last));
      return { events: 0, caughtUp: false };
    }
    const safe = latest - BigInt(Math.max(0, confirmations - 1));
    const from = last === null ? contracts.deployedBlock : last + 1n;
    if (from > safe) return { events: 0, caughtUp: true };
    const to = safe - from > BATCH_BLOCKS ? from + BATCH_BLOCKS : safe;

    const [logs, toBlock] = await Promise.all([
      chain.client.getLogs({ address: contracts.rewards, fromBlock: from, toBlock: to }),
      blockAt(chain.client, Number(to)),
    ]);
    // The chain moved under the batch (its last block is gone, or the logs come from another branch): read again.
    if (!toBlock) return { events: 0, caughtUp: false };
    if (logs.some((log) => log.blockNumber === to && log.blockHash?.toLowerCase() !== toBlock.hash.toLowerCase())) return { events: 0, caughtUp: false };
    const seenBlocks = new Map<number, string>([[Number(to), toBlock.hash]]);
    for (const log of logs) if (log.blockHash) seenBlocks.set(Number(log.blockNumber), log.blockHash);
    const events = parseEventLogs({ abi: RepoRewardsAbi, logs, strict: true });
    const repoIds = new Set<bigint>();
    const issues = new Map<string, { repoId: bigint; issueNumber: bigint }>();
    for (const event of events) {
      const args = event.args as Record<string, unknown>;
      if (typeof args.repoId === "bigint") repoIds.add(args.repoId);
      if (typeof args.repoId === "bigint" && typeof args.issueNumber === "bigint" && args.issueNumber > 0n) {
        issues.set(`${args.repoId}:${args.issueNumber}`, { repoId: args.repoId, issueNumber: args.issueNumber });
      }
    }

    // Some nodes (anvil among them) give each log its block's time; otherwise the blocks are read, side by side: on
    // a chain that mines a block per transaction, a batch spans many blocks.
    const blockTimes = new Map<bigint, Date>();
    for (const log of logs) {
      const time = (log as { blockTimestamp?: bigint | null }).blockTimestamp;
      if (typeof time === "bigint") blockTimes.set(log.blockNumber, new Date(Number(time) * 1000));
    }
    await Promise.all(
      [...new Set(events.map((e) => e.blockNumber))]
        .filter((blockNumber) => !blockTimes.has(blockNumber))
        .map(async (blockNumber) => blockTimes.set(blockNumber, new Date(Number((await chain.client.getBlock({ blockNumber })).timestamp) * 1000))),
    );
    const pools = await Promise.all(
      [...repoIds].map(async (repoId) => ({
        repoId,
        balances: await chain.client.readContract({ address: contracts.rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [repoId], blockNumber: to }),
      })),
    );
    // Only registered repositories are mirrored (anyone can fund any id on the contract).
    const touched = [...repoIds].map(Number);
    const registered = new Set(
      touched.length
        ? (await db.select({ id: repositories.githubRepoId }).from(repositories).where(inArray(repositories.githubRepoId, touched))).map((r) => BigInt(r.id))
        : [],
    );

    await db.transaction(
      async (tx) => {
        // One statement per 100 events (SQLite's bound-parameter limit leaves room for that many rows).
        const rows = events.map((event) => {
          const args = event.args as Record<string, unknown>;
          return {
            chainId: chain.config.chain.id,
            blockNumber: Number(event.blockNumber),
            blockTime: blockTimes.get(event.blockNumber),
            txHash: event.transactionHash,
            logIndex: event.logIndex,
            name: event.eventName,
            repoId: typeof args.repoId === "bigint" ? Number(args.repoId) : null,
            issueNumber: typeof args.issueNumber === "bigint" ? Number(args.issueNumber) : null,
            args: JSON.stringify(args, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
          };
        });
        for (let i = 0; i < rows.length; i += 100) await tx.insert(chainEvents).values(rows.slice(i, i + 100)).onConflictDoNothing();
        for (const { repoId, issueNumber } of issues.values()) {
          if (!registered.has(repoId)) continue;
          await writeBounty(tx as unknown as Database, events, blockTimes, repoId, issueNumber, Number(to));
        }
        // A held split share paid later (its TipPaid names no repository): its bounty's shares credit its wallet now.
        await writePaidHeldShares(tx as unknown as Database, events);
        // A held split share nobody claimed, returned to its pool: its share row says so now.
        await writeReturnedHeldShares(tx as unknown as Database, events);
        // What integrators hear of (issue 30): one event row each, in this transaction; delivery runs apart.
        for (const event of events) {
          const type = CHAIN_EVENT_TYPES[event.eventName];
          const args = event.args as { repoId?: bigint; issueNumber?: bigint; currency?: number; amount?: bigint; contributor?: string };
          if (!type || args.repoId === undefined || args.issueNumber === undefined || !registered.has(args.repoId)) continue;
          await recordBountyEvent(tx, {
            type,
            key: `chain:${event.transactionHash}:${event.logIndex}`,
            repoId: Number(args.repoId),
            issueNumber: Number(args.issueNumber),
            occurredAt: blockTimes.get(event.blockNumber),
            data: {
              currency: CURRENCY_BY_INDEX[args.currency ?? -1] ?? null,
              amount: args.amount?.toString() ?? null,
              transactionHash: event.transactionHash,
              contributor: args.contributor ?? null,
            },
          });
        }
        for (const { repoId, balances } of pools) {
          if (!registered.has(repoId)) continue;
          await writePool(tx as unknown as Database, repoId, balances as readonly [bigint, bigint, bigint]);
        }
        await tx
          .insert(chainBlocks)
          .values([...seenBlocks].map(([number, hash]) => ({ cursor: this.cursorName, number, hash })))
          .onConflictDoUpdate({ target: [chainBlocks.cursor, chainBlocks.number], set: { hash: sql`excluded.hash` } });
        // Heights further back than the reorganisation window are not looked at again.
        await tx.delete(chainBlocks).where(and(eq(chainBlocks.cursor, this.cursorName), lt(chainBlocks.number, Number(to) - chain.config.reorgWindowBlocks)));
        await tx
          .insert(chainCursors)
          .values({ name: this.cursorName, chainId: chain.config.chain.id, lastBlock: Number(to) })
          .onConflictDoUpdate({ target: chainCursors.name, set: { lastBlock: Number(to), updatedAt: new Date() } });
      },
      { behavior: "immediate" },
    );

    if (repoIds.size > 0) {
      this.deps.onChange?.([
        "repositories",
        ...[...repoIds].map((id) => `repo:${id}`),
        ...[...issues.values()].map(({ repoId, issueNumber }) => `bounty:${repoId}:${issueNumber}`),
      ]);
    }
    return { events: events.length, caughtUp: to >= safe };
  }

  /**
   * The chain no longer has the cursor's block (another hash there, or a head below it): back to the highest
   * recorded block it still has. The orphaned blocks' events go; the bounties they touched are rebuilt from the
   * events that remain, their pools from the contract at the ancestor; the batches after this read on from there.
   */
  private async rewind(cursor: number): Promise<void> {
    const { db, chain, log } = this.deps;
    const chainId = chain.config.chain.id;
    const seen = await db
      .select({ number: chainBlocks.number, hash: chainBlocks.hash })
      .from(chainBlocks)
      .where(eq(chainBlocks.cursor, this.cursorName));
    const deployed = Number(chain.config.contracts.deployedBlock);
    const intact = await highestIntact(chain.client, seen);
    const ancestor = intact ?? deployed - 1;
    const live = and(eq(chainEvents.chainId, chainId), isNull(chainEvents.oldChain));
    const orphaned = await db
      .select({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber })
      .from(chainEvents)
      .where(and(live, gt(chainEvents.blockNumber, ancestor)));
    // An orphaned payment of a held split share (TipPaid names no repository) takes its credit back: its bounty is rebuilt too.
    const orphanedTipIds = (
      await db.select({ args: chainEvents.args }).from(chainEvents).where(and(live, gt(chainEvents.blockNumber, ancestor), eq(chainEvents.name, "TipPaid")))
    ).map((e) => (JSON.parse(e.args) as { tipId: string }).tipId);
    const heldShares = orphanedTipIds.length
      ? await db
          .select({ repoId: chainEvents.repoId, issueNumber: chainEvents.issueNumber })
          .from(chainEvents)
          .where(and(live, eq(chainEvents.name, "BountyShareHeld"), inArray(sql`json_extract(${chainEvents.args}, '$.tipId')`, orphanedTipIds)))
      : [];
    const touchedIssues = [...orphaned, ...heldShares];
    const repoIds = [...new Set(touchedIssues.flatMap((e) => (e.repoId === null ? [] : [e.repoId])))];
    const issues = new Map<string, { repoId: number; issueNumber: number }>();
    for (const e of touchedIssues) if (e.repoId !== null && e.issueNumber) issues.set(`${e.repoId}:${e.issueNumber}`, { repoId: e.repoId, issueNumber: e.issueNumber });
    const registered = new Set(
      repoIds.length ? (await db.select({ id: repositories.githubRepoId }).from(repositories).where(inArray(repositories.githubRepoId, repoIds))).map((r) => r.id) : [],
    );
    // The pools as the contract held them at the ancestor (nothing before the deployment).
    const pools = await Promise.all(
      [...registered].map(async (repoId) => ({
        repoId,
        balances:
          ancestor < deployed
            ? ([0n, 0n, 0n] as const)
            : await chain.client.readContract({ address: chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(repoId)], blockNumber: BigInt(ancestor) }),
      })),
    );
    await db.transaction(
      async (tx) => {
        await tx.delete(chainEvents).where(and(live, gt(chainEvents.blockNumber, ancestor)));
        await tx.delete(chainBlocks).where(and(eq(chainBlocks.cursor, this.cursorName), gt(chainBlocks.number, ancestor)));
        if (ancestor < deployed) await tx.delete(chainCursors).where(eq(chainCursors.name, this.cursorName));
        else await tx.update(chainCursors).set({ lastBlock: ancestor, updatedAt: new Date() }).where(eq(chainCursors.name, this.cursorName));
        for (const { repoId, issueNumber } of issues.values()) {
          if (!registered.has(repoId)) continue;
          const stored = await tx
            .select()
            .from(chainEvents)
            .where(and(live, eq(chainEvents.repoId, repoId), eq(chainEvents.issueNumber, issueNumber)))
            .orderBy(asc(chainEvents.blockNumber), asc(chainEvents.logIndex));
          // From the issue's last allocation on: an earlier, cancelled bounty says nothing about the current one.
          const lastAllocation = stored.findLastIndex((e) => e.name === "BountyAllocated");
          const events = stored.slice(Math.max(0, lastAllocation)).map(parsedFromStored);
          const blockTimes = new Map(stored.map((e) => [BigInt(e.blockNumber), e.blockTime ?? new Date()]));
          await writeBounty(tx as unknown as Database, events, blockTimes, BigInt(repoId), BigInt(issueNumber), ancestor, { removeWhenNone: true });
        }
        for (const { repoId, balances } of pools) await writePool(tx as unknown as Database, BigInt(repoId), balances as readonly [bigint, bigint, bigint]);
      },
      { behavior: "immediate" },
    );
    log.warn(
      `indexer: the chain no longer has block ${cursor} as it was read (a reorganisation, or a chain that lost its last blocks); rewound to block ${ancestor}, ${orphaned.length} events of the orphaned blocks removed, the mirror of ${registered.size} repositories rebuilt, reading again from there`,
      { from: cursor, to: ancestor, events: orphaned.length, repositories: [...registered] },
    );
    this.deps.onRewind?.({ from: cursor, to: ancestor, events: orphaned.length, repositories: registered.size });
    if (repoIds.length) {
      this.deps.onChange?.([
        "repositories",
        ...repoIds.map((id) => `repo:${id}`),
        ...[...issues.values()].map(({ repoId, issueNumber }) => `bounty:${repoId}:${issueNumber}`),
      ]);
    }
  }

  /** The check every batch makes, and a catch-up after it: for the reconciler's pass (api/chain/outbox-reconciling.ts). */
  checkForReorg(): Promise<void> {
    return this.catchUp();
  }

  private readonly catchUps = new NextRun(() => this.runCatchUp());

  /**
   * Keeps indexing until caught up with the blocks mined before the call
   * (money requests wait for their event to be mirrored). Concurrent callers
   * share one catch-up instead of indexing the same blocks side by side.
   */
  catchUp(): Promise<void> {
    return this.catchUps.request();
  }

  private async runCatchUp(): Promise<void> {
    // Each batch starts from a fresh look at the chain, so the first covers every block mined before the call.
    for (let i = 0; i < 1000 && !this.stopping; i++) {
      if ((await this.indexBatch()).caughtUp) return;
    }
  }

  start(intervalMs = this.deps.chain.config.pollingIntervalMs * 4): void {
    this.stopping = false;
    this.worker.start(intervalMs);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.worker.stop();
    await this.lease.releaseAll();
  }
}

const blockHashAt = preparedQuery((db) =>
  db
    .select({ number: chainBlocks.number, hash: chainBlocks.hash })
    .from(chainBlocks)
    .where(and(eq(chainBlocks.cursor, sql.placeholder("cursor")), eq(chainBlocks.number, sql.placeholder("number"))))
    .prepare(),
);

const cursorByName = preparedQuery((db) => db.select().from(chainCursors).where(eq(chainCursors.name, sql.placeholder("name"))).prepare());

