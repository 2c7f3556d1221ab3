import { and, desc, gte, inArray, isNull, lt, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { chainTransactions, type TxStatus } from "../../../db/schema/index.ts";
import type { Snapshot } from "../../ops/collector.ts";
import type { RecentEvent } from "../../ops/metrics.ts";
import { latestRestore } from "../../ops/restore-report.ts";

/**
 * The operator's page (/ops, issue 41): read-only, for the GitHub logins in
 * OPS_LOGINS. Everything on it is what /metrics and the log already say,
 * gathered for a person: the collection pass's last figures, the
 * reconciler's repairs and the indexer's rewinds this process made, the
 * transactions that are stuck or failed with what the platform does next,
 * the escrow's queued outflows, and the last restore's report. Nothing here
 * moves money, and the guardian's key never reaches the server.
 */
export function isOperator(env: Pick<AppContext["env"], "OPS_LOGINS">, login: string | null | undefined): boolean {
  return !!login && env.OPS_LOGINS.includes(login.toLowerCase());
}

/** A transaction an operator should look at, and what the platform does about it. */
export interface StuckTransaction {
  id: string;
  kind: string;
  status: TxStatus;
  from: string;
  nonce: number | null;
  txHash: string | null;
  error: string | null;
  ageSeconds: number;
  next: string;
}

export interface OpsOverview {
  snapshot: Snapshot;
  startupRepair: { state: string; since: string; detail?: string };
  recent: { repairs: RecentEvent[]; rewinds: RecentEvent[] };
  stuck: StuckTransaction[];
  restore: Awaited<ReturnType<typeof latestRestore>>;
  /** The guardian's runbook: OPS_RUNBOOK_URL when configured (where the operator keeps docs/contracts.md), else its place in the repository. */
  runbook: { title: string; url: string | null };
}

/** Unsettled this long, a row is shown as stuck (the local chain confirms in well under a second; XDC in seconds). */
const STUCK_AFTER_MS = 60_000;

const NEXT: Record<TxStatus, string> = {
  queued: "Waits to be signed: the outbox estimates its gas and signs it on its next pass (a refusal at estimation fails it without using a nonce).",
  signed: "Signed, not yet broadcast: the outbox broadcasts the stored transaction (same nonce, same hash: it can be mined only once).",
  sent: "Waiting for its receipt: confirmed once mined; if no node has it, the reconciler broadcasts the stored transaction again.",
  confirmed: "Nothing: confirmed.",
  reverted: "Nothing more: the contract refused it (no money moved, gas was spent). The request can be made again once its cause is fixed.",
  failed: "Nothing more: refused before signing (nothing was sent). The request can be made again.",
};

export async function opsOverview(ctx: Pick<AppContext, "env" | "database" | "ops" | "chain" | "startup">): Promise<OpsOverview> {
  const db = ctx.database.db;
  const now = Date.now();
  const live = and(eq(chainTransactions.chainId, ctx.chain.config.chain.id), isNull(chainTransactions.oldChain));
  const unsettled = await db
    .select()
    .from(chainTransactions)
    .where(and(live, inArray(chainTransactions.status, ["queued", "signed", "sent"]), lt(chainTransactions.createdAt, new Date(now - STUCK_AFTER_MS))))
    .orderBy(chainTransactions.createdAt)
    .limit(50);
  const failed = await db
    .select()
    .from(chainTransactions)
    .where(and(live, inArray(chainTransactions.status, ["failed", "reverted"]), gte(chainTransactions.updatedAt, new Date(now - 86_400_000))))
    .orderBy(desc(chainTransactions.updatedAt))
    .limit(50);
  const stuck = [...unsettled, ...failed].map((row) => ({
    id: row.id,
    kind: row.kind,
    status: row.status,
    from: row.fromAddress,
    nonce: row.nonce,
    txHash: row.txHash,
    error: row.error,
    ageSeconds: Math.round((now - row.createdAt.getTime()) / 1000),
    next: NEXT[row.status],
  }));
  const snapshot = ctx.ops.collector.snapshot.collectedAt ? ctx.ops.collector.snapshot : await ctx.ops.collector.runOnce();
  const repair = ctx.startup;
  return {
    snapshot,
    startupRepair: { state: repair.state, since: new Date(repair.since).toISOString(), ...(repair.detail ? { detail: repair.detail } : {}) },
    recent: ctx.ops.metrics.recent(),
    stuck,
    restore: await latestRestore(ctx.database),
    runbook: { title: "docs/contracts.md, \"Pause and recovery\"", url: ctx.env.OPS_RUNBOOK_URL ?? null },
  };
}
