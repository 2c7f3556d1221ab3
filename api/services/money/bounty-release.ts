/**
 * Releasing a bounty by hand (the pool manager's Distribute): to a registered user's wallet, or to a GitHub login
 * (held for them when they have no wallet), decided by the one payout decision under the bounty's lock.
 */
import { eq, sql } from "drizzle-orm";
import { preparedQuery } from "../../../db/prepared.ts";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { users, wallets, type ChainTransaction, type User } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import { parseAddress } from "../../chain/address.ts";
import { createGitHubClient, GitHubApiError } from "../../github/client.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { userGitHubToken } from "../auth/github-sign-in.ts";
import { requireManagedRepository } from "./access.ts";
import { withQueuedOutflow, transactionResult, type TransactionResult } from "./transaction-result.ts";
import { holdPayout } from "../github-events/holds.ts";
import { decide } from "../payouts/decision.ts";
import { bountyFacts } from "../payouts/facts.ts";
import type { FixFacts } from "../payouts/fixes.ts";
import { payBounty } from "../payouts/pay.ts";
import { fixesBesideAdminCheck, recordCommitment, settleMergedFix } from "../payouts/settle.ts";
import { withBountyLock } from "./pool-guard.ts";
import { BOUNTY_WAIT_MS } from "./bounty-lookups.ts";

const walletOwner = preparedQuery((db) => db.select({ userId: wallets.userId }).from(wallets).where(eq(wallets.address, sql.placeholder("address"))).limit(1).prepare());

/** A bounty released to a GitHub user without a wallet: held for them, paid when they register. */
export interface HeldResult {
  status: "held";
  heldFor: string;
  message: string;
  transactionHash: null;
  explorerUrl: null;
}

/**
 * POST /api/blockchain/distribute-bounty/{repoId}/{issueId}: the pool
 * manager releases an open bounty by hand (also one awaiting their
 * decision), to `contributorAddress` (a registered user's wallet) or to
 * `contributorLogin` (any GitHub user: their wallet when they have one, else
 * the bounty is held for them and paid when they register). Once: the
 * contract refuses a second payment, the outbox holds at most one live
 * payout per issue, and a bounty held for someone is not paid to another.
 */
export async function distributeBounty(
  ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "outbox" | "indexer" | "changes">,
  input: {
    user: User;
    repoId: number;
    issueNumber: number;
    contributorAddress?: string | null;
    contributorLogin?: string | null;
    githubRepoFullName?: string | null;
    idempotencyKey: string;
  },
): Promise<TransactionResult | HeldResult> {
  const request = {
    route: "distribute_bounty",
    repoId: input.repoId,
    issueNumber: input.issueNumber,
    ...(input.contributorLogin ? { contributorLogin: input.contributorLogin.toLowerCase() } : { contributorAddress: input.contributorAddress }),
  };
  const messages = { pending: "Bounty payment submitted", confirmed: "Bounty paid", failedTitle: "Failed to distribute bounty" };
  let tx = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
  if (!tx) {
    let address: Address | null = null;
    let login: { id: number; login: string } | null = null;
    if (input.contributorLogin) {
      if (!/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(input.contributorLogin)) {
        throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Invalid login", message: "Enter the contributor's GitHub login." });
      }
    } else {
      address = parseAddress(input.contributorAddress ?? "") ?? null;
      if (!address) throw new DomainError({ code: ErrorCode.INVALID_ADDRESS, error: "Invalid address", message: "Enter the contributor's XDC address (xdc… or 0x…)." });
    }
    // A merged fix whose webhook was lost (an outage) is not overtaken by a release: asked of GitHub first, beside the
    // admin check (both GitHub round trips; for pool managers only, and its answer used only once that check passed).
    const fixesAsked = fixesBesideAdminCheck(ctx, input.user, input.repoId, input.issueNumber);
    await requireManagedRepository(ctx, input.user, { repoId: input.repoId, fullName: input.githubRepoFullName, orRegisteredName: true, action: "payBounty" });
    // Who is paid, as a GitHub person: the user the address or login belongs to, else the GitHub user by that login.
    let recipient: { id: number; login: string };
    if (input.contributorLogin) {
      const [known] = await ctx.database.db
        .select({ address: wallets.address, githubId: users.githubId, username: users.username })
        .from(users)
        .innerJoin(wallets, eq(wallets.userId, users.id))
        .where(sql`lower(${users.username}) = ${input.contributorLogin.toLowerCase()}`)
        .limit(1);
      if (known) {
        address = known.address as Address;
        recipient = { id: known.githubId, login: known.username };
      } else {
        login = await githubUser(ctx, input.user, input.contributorLogin);
        recipient = login;
      }
    } else {
      const owner = await walletOwner(ctx.database.db).get({ address: address! });
      if (!owner) throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Unknown contributor", message: "The contributor must be a registered Issuepool user." });
      const [person] = await ctx.database.db.select({ githubId: users.githubId, username: users.username }).from(users).where(eq(users.id, owner.userId)).limit(1);
      recipient = { id: person!.githubId, login: person!.username };
    }
    const known = await fixesAsked;
    // Decided under the bounty's lock with any payout or cancellation of this bounty on its way: of a Release and a
    // Cancel (or two Releases) sent at once, one goes to the chain and the other gets the platform's 409 (issue 25).
    let unpaid: FixFacts | undefined;
    const decided = await withBountyLock(ctx, input.repoId, input.issueNumber, async (lock): Promise<ChainTransaction | HeldResult | undefined> => {
      const earlier = await ctx.outbox.replay(input.user.id, input.idempotencyKey, request);
      if (earlier) return earlier;
      const decision = decide(await bountyFacts(ctx, input.repoId, input.issueNumber, { withMoney: known.fixes.length > 0 }), { kind: "release", recipient, fixes: known.fixes });
      if (!decision.ok) {
        if (decision.unpaidFix) {
          unpaid = decision.unpaidFix;
          return undefined;
        }
        throw decision.refusal;
      }
      if (decision.commitment && !decision.again) await recordCommitment(ctx, input.repoId, input.issueNumber, decision.commitment);
      if (login) {
        await holdPayout(ctx, { repoId: input.repoId, issueNumber: input.issueNumber, author: login, pullNumber: null });
        return {
          status: "held",
          heldFor: login.login,
          message: `Held for @${login.login}: paid to their Issuepool wallet as soon as they sign in and register.`,
          transactionHash: null,
          explorerUrl: null,
        };
      }
      return payBounty(ctx, { userId: input.user.id, idempotencyKey: input.idempotencyKey, request, repoId: input.repoId, issueNumber: input.issueNumber, to: address!, reason: "manual", replayChecked: true, queueOnly: true, fence: lock.fence });
    });
    if (!decided) {
      // The fix's own payout, carried out now (the lock is free again); the pool manager is told why theirs is refused.
      const fix = unpaid!;
      if (known.repository && known.appClient) await settleMergedFix(ctx, { repository: known.repository, issueNumber: input.issueNumber, pullNumber: fix.number, client: known.appClient });
      throw new DomainError({ code: ErrorCode.BOUNTY_COMMITTED, error: "Bounty committed", message: `Pull request #${fix.number} by @${fix.author.login} fixed this issue after the bounty was set: it is paid to its author(s), not released by hand.` });
    }
    if ("heldFor" in decided) return decided;
    tx = decided;
  }
  const settled = await ctx.outbox.waitForSettled(tx, BOUNTY_WAIT_MS);
  if (settled.status === "confirmed") await ctx.indexer.catchUp();
  return withQueuedOutflow(ctx, settled, transactionResult(ctx, settled, messages), "Bounty payment");
}

/** A GitHub user (not an organization) by login, as GitHub spells it, asked with the pool manager's token. */
async function githubUser(ctx: Pick<AppContext, "env" | "keyring">, manager: User, login: string): Promise<{ id: number; login: string }> {
  const client = createGitHubClient({ apiUrl: ctx.env.GITHUB_API_URL, token: await userGitHubToken(ctx, manager) });
  let found: { id: number; login: string; type?: string };
  try {
    found = await client.get<{ id: number; login: string; type?: string }>(`/users/${encodeURIComponent(login)}`);
  } catch (err) {
    if (err instanceof GitHubApiError && err.status === 404) throw notFound(`GitHub user @${login} was not found.`);
    throw githubUnavailable();
  }
  if (found.type && found.type !== "User") {
    throw new DomainError({ code: ErrorCode.INVALID_RECIPIENT, error: "Not a person", message: `@${found.login} is an organization: choose a person's GitHub login.` });
  }
  return { id: found.id, login: found.login };
}
