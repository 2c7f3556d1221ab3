/**
 * Bounties as the API shows them, read from the mirror: one issue's bounty, a repository's pools and bounties, the
 * funders beside a bounty, and the contributors registered on an issue.
 */
import { and, asc, eq } from "drizzle-orm";
import type { DatabaseDeps } from "../../context.ts";
import { bounties, bountyClaims, repositoryPools, users, wallets, type Bounty, type Currency } from "../../../db/schema/index.ts";
import { notFound } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { registeredRepository } from "./access.ts";
import { bountyStates, type BountyStateInfo } from "./bounty-state.ts";
import { fundersOfIssues, type IssueFunders } from "../funding/funders-read.ts";



/** GET /api/blockchain/issue-bounty/{repoId}/{issueId}: from the mirror; 404 when there is none. */
export async function issueBounty(ctx: DatabaseDeps, repoId: number, issueNumber: number) {
  const [bounty] = await ctx.database.db
    .select()
    .from(bounties)
    .where(and(eq(bounties.githubRepoId, repoId), eq(bounties.issueNumber, issueNumber)))
    .limit(1);
  if (!bounty || bounty.status === "cancelled") throw notFound("No bounty is assigned to this issue.");
  const funded = await fundersOfIssues(ctx.database.db, repoId, [issueNumber]);
  return bountyObject(bounty, (await bountyStates(ctx, [bounty]))(bounty), funded.get(issueNumber));
}

/**
 * A bounty as the API shows it: `status` is the chain's (open, paid,
 * cancelled), `state` the platform's refinement (bounty-state.ts); the
 * amounts are the pool's share, `boosted` the funders' active shares and
 * `total` the two together, the one figure every page shows (issue 38).
 */
export function bountyObject(bounty: Bounty, info?: BountyStateInfo, funding?: IssueFunders) {
  const amount = toDecimalString(bounty.amount, DECIMALS[bounty.currency]);
  return {
    issueId: bounty.issueNumber,
    isRoxn: bounty.currency === "ROXN",
    currency: bounty.currency,
    xdcAmount: bounty.currency === "XDC" ? amount : "0",
    roxnAmount: bounty.currency === "ROXN" ? amount : "0",
    usdcAmount: bounty.currency === "USDC" ? amount : "0",
    status: bounty.status,
    recipient: bounty.recipient ? toXdcAddress(bounty.recipient) : null,
    transactionHash: bounty.paidTx ?? bounty.allocatedTx,
    state: info?.state ?? bounty.status,
    heldFor: info?.heldFor ?? null,
    awaitingReason: info?.awaitingReason ?? null,
    issueTitle: bounty.issueTitle,
    issueUrl: bounty.issueUrl,
    ...fundersOf(funding, bounty),
  };
}

/** GET /api/blockchain/pool-info/{repoId}: pools and the issues' bounties, from the mirror. */
export async function poolInfo(ctx: DatabaseDeps, repoId: number) {
  await registeredRepository(ctx, repoId);
  const db = ctx.database.db;
  const [pools, rows] = await Promise.all([
    db.select().from(repositoryPools).where(eq(repositoryPools.githubRepoId, repoId)),
    db.select().from(bounties).where(eq(bounties.githubRepoId, repoId)).orderBy(asc(bounties.issueNumber)),
  ]);
  const pool = (c: Currency) => pools.find((p) => p.currency === c)?.balance ?? 0n;
  const stateOf = await bountyStates(ctx, rows);
  const funded = await fundersOfIssues(db, repoId);
  return {
    xdcPoolRewards: toDecimalString(pool("XDC"), 18),
    roxnPoolRewards: toDecimalString(pool("ROXN"), 18),
    usdcPoolRewards: toDecimalString(pool("USDC"), 6),
    issues: rows.filter((b) => b.status !== "cancelled").map((b) => bountyObject(b, stateOf(b), funded.get(b.issueNumber))),
  };
}

/**
 * The funders beside a bounty (issue 29): their active shares and who they are (anonymous ones without a login), and
 * the bounty's total: the pool's share and the funders' active shares (a paid bounty's shares are paid, not active: its
 * amount is the whole payout).
 */
export function fundersOf(funding: IssueFunders | undefined, bounty: Pick<Bounty, "currency" | "amount">) {
  const currency = bounty.currency;
  return {
    total: toDecimalString(bounty.amount + (funding?.boosted ?? 0n), DECIMALS[currency]),
    boosted: toDecimalString(funding?.boosted ?? 0n, DECIMALS[currency]),
    funders: (funding?.funders ?? []).map((f) => ({ funder: f.funder, amount: f.amount, fundedAt: f.fundedAt, expiresAt: f.expiresAt })),
  };
}

/** Registered contributors of an issue (for the bot comment and the manual payout form). */
export async function issueContributors(ctx: DatabaseDeps, repoId: number, issueNumber: number) {
  return ctx.database.db
    .select({ userId: users.id, username: users.username, address: wallets.address, since: bountyClaims.createdAt })
    .from(bountyClaims)
    .innerJoin(users, eq(users.id, bountyClaims.userId))
    .leftJoin(wallets, eq(wallets.userId, users.id))
    .where(and(eq(bountyClaims.githubRepoId, repoId), eq(bountyClaims.issueNumber, issueNumber)))
    .orderBy(asc(bountyClaims.createdAt));
}
