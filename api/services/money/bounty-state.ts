/**
 * A bounty's state as people see it (docs/design.md, "A bounty's life"):
 * the chain says open, paid or cancelled; the platform refines open into
 * open (nobody registered), claimed (someone works on it), awaiting (the
 * pool manager decides), held (owed to a GitHub user without a wallet),
 * releasing (shared among a merged fix's people) and paying (its payout is
 * on its way: sent, not yet mirrored as paid).
 * Public figures, Explore, its feeds and saved-search alerts count open and
 * claimed bounties only (`isAdvertised`): any other is not available to work on.
 */
import { and, count, eq, inArray, isNull, notInArray, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import type { DatabaseDeps } from "../../context.ts";
import { awaitingDecisions, bounties, bountyClaims, chainTransactions, heldPayouts, payoutSplits, type AwaitingReason, type Bounty } from "../../../db/schema/index.ts";
import { DECISION_OF_BOUNTY } from "./awaiting.ts";

/**
 * releasing: earned by a co-authored pull request, shared among its people after a release window (splits/);
 * paying: a payout of it is sent or being sent (the outbox's live pay_bounty row), the mirror not yet paid.
 */
export const BOUNTY_STATES = ["open", "claimed", "awaiting", "held", "releasing", "paying", "queued", "paid", "cancelled"] as const;
export type BountyState = (typeof BOUNTY_STATES)[number];

export interface BountyStateInfo {
  state: BountyState;
  /** GitHub login the bounty is held for. */
  heldFor?: string;
  awaitingReason?: AwaitingReason;
  claimants: number;
}

const key = (repoId: number, issueNumber: number) => `${repoId}:${issueNumber}`;

/** Advertised to contributors (public figures, embed, badges, value locked). */
export const isAdvertised = (state: BountyState) => state === "open" || state === "claimed";

/**
 * What refines the mirror's open into claimed, held or awaiting, for some
 * repositories: registrations per issue, payouts held for a GitHub user, and
 * decisions the pool manager owes. One statement (a UNION ALL of three
 * indexed reads): this runs on every uncached render of a public repository.
 */
export interface StateInputs {
  claims: { repoId: number; issueNumber: number; n: number }[];
  holds: { repoId: number; issueNumber: number; login: string }[];
  /** Awaiting decisions of bounties still open on the mirror, before the check for a payout on its way. */
  awaiting: { repoId: number; issueNumber: number; reason: AwaitingReason }[];
  /** Bounties being shared among a merged pull request's people (window open or shares being paid). */
  splits?: { repoId: number; issueNumber: number }[];
  /** Open bounties with a payout sent or being sent (awaiting.ts, hasLivePayout): on their way to someone. */
  paying?: { repoId: number; issueNumber: number }[];
}

export async function stateInputs(ctx: DatabaseDeps, repoIds: number[]): Promise<StateInputs> {
  const out: StateInputs = { claims: [], holds: [], awaiting: [], splits: [], paying: [] };
  if (repoIds.length === 0) return out;
  const db = ctx.database.db;
  const rows = await unionAll(
    db
      .select({ kind: sql<string>`'claim'`.as("kind"), repoId: bountyClaims.githubRepoId, issueNumber: bountyClaims.issueNumber, detail: sql<string | null>`null`.as("detail"), n: count().as("n") })
      .from(bountyClaims)
      .where(inArray(bountyClaims.githubRepoId, repoIds))
      .groupBy(bountyClaims.githubRepoId, bountyClaims.issueNumber),
    db
      .select({ kind: sql<string>`'held'`.as("kind"), repoId: heldPayouts.githubRepoId, issueNumber: heldPayouts.issueNumber, detail: heldPayouts.githubLogin, n: sql<number>`0`.as("n") })
      .from(heldPayouts)
      .where(and(inArray(heldPayouts.githubRepoId, repoIds), isNull(heldPayouts.releasedAt))),
    db
      .select({ kind: sql<string>`'awaiting'`.as("kind"), repoId: awaitingDecisions.githubRepoId, issueNumber: awaitingDecisions.issueNumber, detail: awaitingDecisions.reason, n: sql<number>`0`.as("n") })
      .from(awaitingDecisions)
      .innerJoin(bounties, DECISION_OF_BOUNTY)
      .where(and(eq(bounties.status, "open"), inArray(awaitingDecisions.githubRepoId, repoIds))),
    db
      .select({ kind: sql<string>`'split'`.as("kind"), repoId: payoutSplits.githubRepoId, issueNumber: payoutSplits.issueNumber, detail: payoutSplits.authorLogin, n: sql<number>`0`.as("n") })
      .from(payoutSplits)
      .where(and(inArray(payoutSplits.githubRepoId, repoIds), inArray(payoutSplits.status, ["window", "releasing"]))),
    // The live payout of a bounty still open on the mirror (read by chain_tx_one_payout_idx: its terms are the index's).
    db
      .select({ kind: sql<string>`'paying'`.as("kind"), repoId: sql<number>`${chainTransactions.githubRepoId}`, issueNumber: sql<number>`${chainTransactions.issueNumber}`, detail: sql<string | null>`null`.as("detail"), n: sql<number>`0`.as("n") })
      .from(chainTransactions)
      .innerJoin(bounties, and(eq(bounties.githubRepoId, chainTransactions.githubRepoId), eq(bounties.issueNumber, chainTransactions.issueNumber)))
      .where(
        and(
          eq(chainTransactions.kind, "pay_bounty"),
          notInArray(chainTransactions.status, ["failed", "reverted"]),
          isNull(chainTransactions.oldChain),
          inArray(chainTransactions.githubRepoId, repoIds),
          eq(bounties.status, "open"),
        ),
      ),
  );
  for (const r of rows) {
    if (r.kind === "claim") out.claims.push({ repoId: r.repoId, issueNumber: r.issueNumber, n: Number(r.n) });
    else if (r.kind === "held") out.holds.push({ repoId: r.repoId, issueNumber: r.issueNumber, login: r.detail! });
    else if (r.kind === "split") out.splits!.push({ repoId: r.repoId, issueNumber: r.issueNumber });
    else if (r.kind === "paying") out.paying!.push({ repoId: r.repoId, issueNumber: r.issueNumber });
    else out.awaiting.push({ repoId: r.repoId, issueNumber: r.issueNumber, reason: r.detail as AwaitingReason });
  }
  return out;
}

/**
 * The states of some bounties (rows of the mirror), from their state inputs
 * (read here in one statement, unless the caller read them already, as the
 * public repository view does for its registration counts).
 */
export async function bountyStates(
  ctx: DatabaseDeps,
  rows: Bounty[],
  inputsRead?: StateInputs,
): Promise<(issue: Pick<Bounty, "githubRepoId" | "issueNumber">) => BountyStateInfo> {
  const repoIds = [...new Set(rows.map((b) => b.githubRepoId))];
  const anyOpen = rows.some((b) => b.status === "open");
  const { holds, claims, awaiting: decisions, splits = [], paying = [] } = inputsRead ?? (anyOpen ? await stateInputs(ctx, repoIds) : { holds: [], claims: [], awaiting: [] });
  const splitting = new Set(splits.map((s) => key(s.repoId, s.issueNumber)));
  const payingNow = new Set(paying.map((p) => key(p.repoId, p.issueNumber)));
  // A decision stands while no payout is on its way (awaiting.ts, standingAwaiting); a hold is told apart below.
  const awaiting = decisions.filter((a) => !payingNow.has(key(a.repoId, a.issueNumber)));
  const heldBy = new Map(holds.map((h) => [key(h.repoId, h.issueNumber), h.login]));
  const awaitingBy = new Map(awaiting.map((a) => [key(a.repoId, a.issueNumber), a.reason]));
  const claimsBy = new Map(claims.map((c) => [key(c.repoId, c.issueNumber), c.n]));
  const statusBy = new Map(rows.map((b) => [key(b.githubRepoId, b.issueNumber), b.status]));
  return (issue) => {
    const k = key(issue.githubRepoId, issue.issueNumber);
    const status = statusBy.get(k) ?? "open";
    const claimants = claimsBy.get(k) ?? 0;
    if (status !== "open") return { state: status, claimants };
    if (splitting.has(k)) return { state: "releasing", claimants };
    const held = heldBy.get(k);
    if (held) return { state: "held", heldFor: held, claimants };
    // Being paid (a held bounty's payout is its own story above): not on offer any more.
    if (payingNow.has(k)) return { state: "paying", claimants };
    const reason = awaitingBy.get(k);
    if (reason) return { state: "awaiting", awaitingReason: reason, claimants };
    return { state: claimants > 0 ? "claimed" : "open", claimants };
  };
}
