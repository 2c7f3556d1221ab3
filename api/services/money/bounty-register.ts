/**
 * Contribute: a contributor registers to work on an open issue of a registered repository, in the database and on
 * the contract (claims.ts).
 */
import { recordClaimEvent } from "../notify/events.ts";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { bountyClaims, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { recordClaimOnChain } from "./claims.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { createGitHubClient } from "../../github/client.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { registeredRepository } from "./access.ts";
import { openIssue } from "./bounty-lookups.ts";
import { walletOfUser } from "../wallets/custodial.ts";

/**
 * POST /api/blockchain/register (Contribute): the contributor signs up to
 * work on an issue of a registered repository. Idempotent.
 */
export async function registerContribution(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "changes">, input: { user: User; repoId: number; issueNumber: number }) {
  if (input.user.role !== "contributor") {
    throw new DomainError({ code: ErrorCode.ROLE_REQUIRED, error: "Role Selection Required", message: "Please select your role as Pool Manager or Contributor" });
  }
  const repository = await registeredRepository(ctx, input.repoId);
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
  // Only an open issue of this repository: a claim on any other number is junk, and would block cancelling a bounty set there later.
  const token = await userGitHubToken(ctx, input.user);
  await openIssue(createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token }), repository.fullName, input.issueNumber);
  const claimed = await ctx.database.db
    .insert(bountyClaims)
    .values({ githubRepoId: input.repoId, issueNumber: input.issueNumber, userId: input.user.id })
    .onConflictDoNothing()
    .returning({ userId: bountyClaims.userId });
  if (claimed.length) await recordClaimEvent(ctx.database.db, { repoId: input.repoId, issueNumber: input.issueNumber, userId: input.user.id, login: input.user.username });
  await recordClaimOnChain(ctx, { repoId: input.repoId, issueNumber: input.issueNumber, contributor: wallet.address as Address });
  ctx.changes.publish(["claims", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  return { success: true, message: "You're now registered to contribute to this issue.", walletAddress: toXdcAddress(wallet.address) };
}
