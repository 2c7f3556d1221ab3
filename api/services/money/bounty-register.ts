/**
 * Contribute: a contributor registers to work on an open issue of a registered repository, as an attempt in the
 * bounty's mode (api/services/attempts/: open, exclusive, application), in the database and on the contract.
 */
import type { AppContext } from "../../context.ts";
import type { User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { createGitHubClient } from "../../github/client.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { registeredRepository } from "./access.ts";
import { openIssue } from "./bounty-lookups.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { attemptStanding, startAttempt } from "../attempts/attempts.ts";

/**
 * POST /api/blockchain/register (Contribute): the contributor signs up to
 * work on an issue of a registered repository. Idempotent.
 */
export async function registerContribution(ctx: Pick<AppContext, "env" | "database" | "keyring" | "chain" | "outbox" | "changes" | "log" | "mailer">, input: { user: User; repoId: number; issueNumber: number; note?: string }) {
  if (input.user.role !== "contributor") {
    throw new DomainError({ code: ErrorCode.ROLE_REQUIRED, error: "Role Selection Required", message: "Please select your role as Pool Manager or Contributor" });
  }
  const repository = await registeredRepository(ctx, input.repoId);
  const wallet = await walletOfUser(ctx.database.db, input.user.id);
  if (!wallet) throw new DomainError({ code: ErrorCode.WALLET_REQUIRED, error: "No wallet", message: "No wallet is connected. Please check your profile settings." });
  // Only an open issue of this repository: a claim on any other number is junk, and would block cancelling a bounty set there later.
  const token = await userGitHubToken(ctx, input.user);
  await openIssue(createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token }), repository.fullName, input.issueNumber);
  // The bounty's mode (issue 39): open registers as before; exclusive holds or queues; application applies with the note.
  const outcome = await startAttempt(ctx, {
    repository,
    issueNumber: input.issueNumber,
    user: input.user,
    who: { githubUserId: input.user.githubId, login: input.user.username },
    note: input.note,
  });
  return {
    success: true as const,
    message: outcome.message,
    walletAddress: toXdcAddress(wallet.address),
    ...(outcome.status === "working" ? {} : { attempt: attemptStanding(outcome) }),
  };
}
