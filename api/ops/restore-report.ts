import { existsSync, readFileSync, unlinkSync } from "node:fs";
import { and, desc, eq, gt, isNull, like } from "drizzle-orm";
import type { Address } from "viem";
import { filePath, type DatabaseHandle } from "../../db/client.ts";
import { chainEvents, opsRestores, walletNonces, wallets, type OpsRestore } from "../../db/schema/index.ts";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import type { ChainAccess } from "../chain/clients.ts";
import type { Logger } from "../logger.ts";
import type { StartupRepair } from "../startup.ts";

/**
 * After a restore (restore-cli.ts), what the platform could not know
 * (issue 41). The start-up check against the chain repairs what the chain
 * knows better: the indexer reads the blocks after the backup's cursor again
 * (pools, bounties, payouts made since), the reconciler re-checks the outbox,
 * and the signer takes the chain's pending count when it is ahead of the
 * stored nonce (outbox-signing.ts). What the chain cannot give back is a key:
 * a custodial wallet created after the backup is gone with the database it
 * was in. So, once the start-up repair is done and the indexer has caught
 * up, this report names:
 *
 * - every address the chain's events since the backup name (a payout's
 *   recipient, a funder, a manager…) that no wallet of the restored database
 *   holds and that is not one of the platform's own: such a wallet's key was
 *   made after the backup and is lost (or the address was never the
 *   platform's: a funder from outside);
 * - the signers whose transactions since the backup are not in the outbox
 *   (the chain counts more than the stored next nonce);
 * - how many events since the backup the mirror took from the chain.
 *
 * It is logged (a warning) and kept in `ops_restores`, which the operator's
 * page shows. The restore leaves a note beside the database file
 * (`app.db.restored.json`); the first start turns it into a pending row.
 */
export const RESTORE_NOTE_SUFFIX = ".restored.json";

export interface RestoreNote {
  backupFile: string;
  sha256: string;
  takenAt: string | null;
  indexedBlock: number | null;
  restoredAt: string;
}

export interface LostWallet {
  address: string;
  /** The events since the backup that name it. */
  seenIn: { event: string; block: number; txHash: string; field: string }[];
}

export interface RestoreReport {
  backupTakenAt: string | null;
  /** The first block read again from the chain (the backup's cursor + 1). */
  fromBlock: number;
  eventsSinceBackup: number;
  lostWallets: LostWallet[];
  signersAhead: { address: string; storedNextNonce: number; chainCount: number }[];
  summary: string;
}

interface ReportDeps {
  database: DatabaseHandle;
  chain: ChainAccess;
  log: Logger;
  indexer: { catchUp(): Promise<void> };
  startup: Pick<StartupRepair, "wait">;
  env: { GUARDIAN_PRIVATE_KEY?: string };
}

/** Turns the note a restore left beside the database file into a pending row (once). */
export async function recordRestoreNote(database: DatabaseHandle): Promise<void> {
  if (!database.embedded || !database.url.startsWith("file:")) return;
  const notePath = `${filePath(database.url)}${RESTORE_NOTE_SUFFIX}`;
  if (!existsSync(notePath)) return;
  const note = JSON.parse(readFileSync(notePath, "utf8")) as RestoreNote;
  await database.db.insert(opsRestores).values({
    backupFile: note.backupFile,
    backupSha256: note.sha256,
    backupTakenAt: note.takenAt ? new Date(note.takenAt) : null,
    backupIndexedBlock: note.indexedBlock,
    restoredAt: new Date(note.restoredAt),
  });
  unlinkSync(notePath);
}

/** The report for one pending restore, from the database and the chain as they are now (after the repair). */
export async function buildRestoreReport(deps: Pick<ReportDeps, "database" | "chain" | "env">, restore: OpsRestore): Promise<RestoreReport> {
  const { database, chain } = deps;
  const db = database.db;
  const fromBlock = (restore.backupIndexedBlock ?? Number(chain.config.contracts.deployedBlock) - 1) + 1;
  const events = await db
    .select()
    .from(chainEvents)
    .where(and(eq(chainEvents.chainId, chain.config.chain.id), isNull(chainEvents.oldChain), gt(chainEvents.blockNumber, fromBlock - 1)));
  const own = new Set(
    [chain.operator.address, chain.config.contracts.rewards, chain.config.contracts.roxn, chain.config.contracts.usdc].map((a) => a.toLowerCase()),
  );
  const collector = await chain.client.readContract({ address: chain.config.contracts.rewards, abi: RepoRewardsAbi, functionName: "feeCollector" }).catch(() => undefined);
  if (collector) own.add(collector.toLowerCase());
  if (deps.env.GUARDIAN_PRIVATE_KEY) {
    const { privateKeyToAccount } = await import("viem/accounts");
    own.add(privateKeyToAccount(deps.env.GUARDIAN_PRIVATE_KEY as `0x${string}`).address.toLowerCase());
  }
  const known = new Set((await db.select({ address: wallets.address }).from(wallets)).map((w) => w.address.toLowerCase()));
  const lost = new Map<string, LostWallet>();
  for (const event of events) {
    const args = JSON.parse(event.args) as Record<string, unknown>;
    for (const [field, value] of Object.entries(args)) {
      if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value) || /^0x0{40}$/.test(value)) continue;
      const address = value.toLowerCase();
      if (own.has(address) || known.has(address)) continue;
      const entry = lost.get(address) ?? { address: value, seenIn: [] };
      entry.seenIn.push({ event: event.name, block: event.blockNumber, txHash: event.txHash, field });
      lost.set(address, entry);
    }
  }
  const signersAhead: RestoreReport["signersAhead"] = [];
  const nonces = await db.select().from(walletNonces).where(like(walletNonces.key, `${chain.config.chain.id}:%`)).limit(1000);
  for (const row of nonces) {
    const address = row.key.slice(row.key.indexOf(":") + 1) as Address;
    const count = await chain.client.getTransactionCount({ address, blockTag: "pending" }).catch(() => null);
    if (count !== null && count > row.nextNonce) signersAhead.push({ address, storedNextNonce: row.nextNonce, chainCount: count });
  }
  const lostWallets = [...lost.values()];
  const summary = [
    `Restored from a backup taken ${restore.backupTakenAt?.toISOString() ?? "at an unknown time"}; ${events.length} events since block ${fromBlock} were read again from the chain (pools, bounties and payouts are as the chain says).`,
    lostWallets.length
      ? `${lostWallets.length} address(es) the chain shows since the backup are held by no wallet of this database: ${lostWallets.map((w) => w.address).join(", ")}. A custodial wallet created after the backup lost its key with the database; its owner signs up again for a new wallet, and what that address holds cannot be moved by the platform.`
      : "Every address the chain shows since the backup is a wallet of this database or the platform's own: no key was lost.",
    signersAhead.length
      ? `${signersAhead.length} signer(s) sent transactions after the backup that the outbox no longer has (the chain's count is ahead of the stored nonce); their next transactions use the chain's count.`
      : "No signer sent a transaction after the backup that the outbox lacks.",
  ].join(" ");
  return { backupTakenAt: restore.backupTakenAt?.toISOString() ?? null, fromBlock, eventsSinceBackup: events.length, lostWallets, signersAhead, summary };
}

/**
 * At start: the restore's note becomes a pending row; once the start-up repair is done and the indexer has caught up,
 * each pending row gets its report. Runs in the background; `stop` ends the wait.
 */
export function finishRestoreReport(deps: ReportDeps): { stop(): Promise<void>; done: Promise<void> } {
  let stopped = false;
  const done = (async () => {
    await recordRestoreNote(deps.database);
    const pending = await deps.database.db.select().from(opsRestores).where(eq(opsRestores.status, "pending")).orderBy(desc(opsRestores.id));
    if (!pending.length) return;
    deps.log.warn("the database was restored from a backup: the report of what could not be known follows the start-up check against the chain", {
      backup: pending[0]!.backupFile,
    });
    while (!stopped && !(await deps.startup.wait(1_000)));
    if (stopped) return;
    await deps.indexer.catchUp();
    for (const restore of pending) {
      const report = await buildRestoreReport(deps, restore);
      await deps.database.db
        .update(opsRestores)
        .set({ status: "done", report: JSON.stringify(report), finishedAt: new Date() })
        .where(and(eq(opsRestores.id, restore.id), eq(opsRestores.status, "pending")));
      deps.log.warn(`restore report: ${report.summary}`, { lostWallets: report.lostWallets.map((w) => w.address), signersAhead: report.signersAhead.length });
    }
  })().catch((err) => deps.log.error("the restore report could not be made; it is tried again at the next start", { err }));
  return {
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** The newest restore and its report (the operator's page). */
export async function latestRestore(database: DatabaseHandle): Promise<(Omit<OpsRestore, "report"> & { report: RestoreReport | null }) | null> {
  const [row] = await database.db.select().from(opsRestores).orderBy(desc(opsRestores.id)).limit(1);
  return row ? { ...row, report: row.report ? (JSON.parse(row.report) as RestoreReport) : null } : null;
}
