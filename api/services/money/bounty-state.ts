/**
 * A bounty's state as people see it (docs/design.md, "A bounty's life"):
 * the chain says open, paid or cancelled; the platform refines open into
 * open (nobody registered), claimed (someone works on it), awaiting (the
 * pool manager decides) and held (owed to a GitHub user without a wallet).
 * Public figures count open and claimed bounties only: an awaiting or held
 * bounty is not available to work on.
 */
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { bountyClaims, heldPayouts, type AwaitingReason, type Bounty } from "../../../db/schema/index.ts";
import { standingAwaiting } from "./awaiting.ts";

export const BOUNTY_STATES = ["open", "claimed", "awaiting", "held", "queued", "paid", "cancelled"] as const;
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

/** Registrations per issue, as a caller that has read them already passes them in. */
export type ClaimCounts = { repoId: number; issueNumber: number; n: number }[];

/**
 * The states of some bounties (rows of the mirror), read in three queries
 * (two when the caller already counted the registrations of these
 * repositories: `claims`, as the public repository view does).
 */
export async function bountyStates(
  ctx: AppContext,
  rows: Bounty[],
  claimsRead?: ClaimCounts,
): Promise<(issue: Pick<Bounty, "githubRepoId" | "issueNumber">) => BountyStateInfo> {
  const repoIds = [...new Set(rows.map((b) => b.githubRepoId))];
  const db = ctx.database.db;
  const anyOpen = rows.some((b) => b.status === "open");
  const [holds, awaiting, claims] = anyOpen
    ? await Promise.all([
        db
          .select({ repoId: heldPayouts.githubRepoId, issueNumber: heldPayouts.issueNumber, login: heldPayouts.githubLogin })
          .from(heldPayouts)
          .where(and(inArray(heldPayouts.githubRepoId, repoIds), isNull(heldPayouts.releasedAt))),
        standingAwaiting(ctx, repoIds),
        claimsRead ??
          db
            .select({ repoId: bountyClaims.githubRepoId, issueNumber: bountyClaims.issueNumber, n: count() })
            .from(bountyClaims)
            .where(inArray(bountyClaims.githubRepoId, repoIds))
            .groupBy(bountyClaims.githubRepoId, bountyClaims.issueNumber),
      ])
    : [[], [], claimsRead ?? []];
  const heldBy = new Map(holds.map((h) => [key(h.repoId, h.issueNumber), h.login]));
  const awaitingBy = new Map(awaiting.map((a) => [key(a.decision.githubRepoId, a.decision.issueNumber), a.decision.reason]));
  const claimsBy = new Map(claims.map((c) => [key(c.repoId, c.issueNumber), c.n]));
  const statusBy = new Map(rows.map((b) => [key(b.githubRepoId, b.issueNumber), b.status]));
  return (issue) => {
    const k = key(issue.githubRepoId, issue.issueNumber);
    const status = statusBy.get(k) ?? "open";
    const claimants = claimsBy.get(k) ?? 0;
    if (status !== "open") return { state: status, claimants };
    const held = heldBy.get(k);
    if (held) return { state: "held", heldFor: held, claimants };
    const reason = awaitingBy.get(k);
    if (reason) return { state: "awaiting", awaitingReason: reason, claimants };
    return { state: claimants > 0 ? "claimed" : "open", claimants };
  };
}
