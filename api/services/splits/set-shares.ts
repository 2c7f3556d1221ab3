import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { payoutSplits, payoutSplitShares, type PayoutSplit, type User } from "../../../db/schema/index.ts";
import { conflict, DomainError, ErrorCode, notFound } from "../../errors.ts";
import { installationClient } from "../../github/app-auth.ts";
import { githubUnavailable } from "../../github/repositories.ts";
import { requireManagedRepository } from "../money/access.ts";
import { withBountyLock } from "../money/pool-guard.ts";
import { splitPayoutKey } from "./release.ts";
import type { GitHubLookup, GitHubPerson } from "./co-authors.ts";
import { splitOf, splitView, type SplitView } from "./open.ts";
import { githubLookup } from "./pull-people.ts";
import { percentToBps } from "./shares.ts";
import { validateSplit, type SplitEntry } from "./split-command.ts";

type Deps = Pick<AppContext, "database" | "env" | "log" | "changes" | "chain" | "outbox">;

const invalidSplit = (message: string) => new DomainError({ code: ErrorCode.INVALID_SPLIT, error: "Invalid split", message });

/**
 * Sets the shares of a split during its release window. Who: the pool
 * manager of the repository (the caller checked: `setSplitSharesAsManager`
 * for the API, the `/split` command for comments). Whom: any GitHub person
 * (not an organisation or a bot), like a bounty the pool manager releases by
 * hand, so a reviewer who is not in the trailers can be credited; people
 * already in the split are known, others are asked of GitHub. Percentages
 * sum to exactly 100. Refused (409) once the payout has gone (or the
 * window is over and nobody is waiting for a wallet): the payout is then
 * fixed, whatever arrives late.
 */
export async function setSplitShares(
  deps: Deps,
  input: { userId: number; repoId: number; issueNumber: number; entries: SplitEntry[]; lookup: GitHubLookup; now?: number },
): Promise<SplitView> {
  const checked = validateSplit(input.entries);
  if (checked.kind === "invalid") throw invalidSplit(checked.reason);
  const split = await splitOf(deps, input.repoId, input.issueNumber);
  if (!split) throw notFound("This issue's bounty is not split.");
  const now = input.now ?? Date.now();
  if (!changeable(split, now)) throw closedWindow(split);

  const current = await deps.database.db
    .select()
    .from(payoutSplitShares)
    .where(and(eq(payoutSplitShares.githubRepoId, input.repoId), eq(payoutSplitShares.issueNumber, input.issueNumber)));
  const people: GitHubPerson[] = [];
  for (const entry of checked.entries) {
    const known = current.find((s) => s.githubLogin.toLowerCase() === entry.login.toLowerCase());
    if (known) {
      people.push({ id: known.githubUserId, login: known.githubLogin });
      continue;
    }
    let found: Awaited<ReturnType<GitHubLookup["userByLogin"]>>;
    try {
      found = await input.lookup.userByLogin(entry.login);
    } catch {
      throw githubUnavailable();
    }
    if (!found) throw notFound(`GitHub user @${entry.login} was not found.`);
    if ((found.type && found.type !== "User") || found.login.endsWith("[bot]")) throw invalidSplit(`@${found.login} is not a person: choose a person's GitHub login.`);
    if (people.some((p) => p.id === found!.id)) throw invalidSplit(`@${found.login} is named twice.`);
    people.push({ id: found.id, login: found.login });
  }

  // Under the bounty's lock, which the release pass takes to pay (release.ts): either these shares are paid, or
  // the payout has gone and this change is refused.
  await withBountyLock(deps, input.repoId, input.issueNumber, async (lock) => {
    const [fresh] = await deps.database.db.select().from(payoutSplits).where(and(eq(payoutSplits.githubRepoId, input.repoId), eq(payoutSplits.issueNumber, input.issueNumber)));
    if (!fresh || !changeable(fresh, now) || (fresh.status === "releasing" && (await deps.outbox.findByKey(null, splitPayoutKey(input.repoId, input.issueNumber))))) {
      throw closedWindow(fresh ?? split);
    }
    // Fenced like an outbox row: written only while this change still holds the bounty's lock (pool-guard.ts).
    await deps.database.db.transaction(async (tx) => {
      await lock.fence(tx);
      await tx.update(payoutSplits).set({ setBy: input.userId, updatedAt: new Date(now) }).where(and(eq(payoutSplits.githubRepoId, input.repoId), eq(payoutSplits.issueNumber, input.issueNumber)));
      await tx.delete(payoutSplitShares).where(and(eq(payoutSplitShares.githubRepoId, input.repoId), eq(payoutSplitShares.issueNumber, input.issueNumber)));
      await tx.insert(payoutSplitShares).values(
        people.map((p, position) => ({
          githubRepoId: input.repoId,
          issueNumber: input.issueNumber,
          githubUserId: p.id,
          githubLogin: p.login,
          position,
          weight: Number(checked.entries[position]!.bps),
        })),
      );
    }, { behavior: "immediate" });
  });
  deps.log.info("split shares set by the pool manager", { repoId: input.repoId, issue: input.issueNumber, userId: input.userId, shares: people.map((p, i) => `${p.login}:${checked.entries[i]!.bps}`) });
  deps.changes.publish(["repositories", `repo:${input.repoId}`, `bounty:${input.repoId}:${input.issueNumber}`]);
  return splitView(deps, (await splitOf(deps, input.repoId, input.issueNumber))!);
}

/**
 * While the window is open; and after it while the split waits whole (nobody with a share has a wallet yet, so
 * nothing was paid). A split that paid its people with a wallet holds the others' shares in the escrow for them.
 */
const changeable = (split: PayoutSplit, now: number) => (split.status === "window" && split.releaseAt.getTime() > now) || split.status === "releasing";

const closedWindow = (split: PayoutSplit) =>
  conflict(
    split.status === "superseded" ? "This bounty was paid or cancelled another way: the split no longer applies." : "The release window is over: the shares are fixed and being paid.",
    "Release window over",
    ErrorCode.SPLIT_CLOSED,
  );

/** PUT /api/splits/{repoId}/{issueNumber}: the pool manager of the repository (admin on GitHub, checked now). */
export async function setSplitSharesAsManager(
  ctx: Deps & Pick<AppContext, "keyring">,
  input: { user: User; repoId: number; issueNumber: number; shares: { login: string; percent: string }[] },
): Promise<SplitView> {
  const { repository } = await requireManagedRepository(ctx, input.user, { repoId: input.repoId, orRegisteredName: true, action: "payBounty" });
  const entries: SplitEntry[] = [];
  for (const s of input.shares) {
    const bps = percentToBps(s.percent);
    if (bps === undefined) throw invalidSplit(`${s.percent} is not a percentage between 0.01 and 100 (at most two decimals).`);
    entries.push({ login: s.login.replace(/^@/, ""), bps });
  }
  if (!repository.installationId) throw invalidSplit("The repository's GitHub App is not installed.");
  const lookup = githubLookup(await installationClient(ctx, repository.installationId));
  return setSplitShares(ctx, { userId: input.user.id, repoId: input.repoId, issueNumber: input.issueNumber, entries, lookup });
}
