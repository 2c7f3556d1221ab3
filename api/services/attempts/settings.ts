/**
 * The attempt settings of a repository and of its bounties (issue 39): what a bounty follows is its own choice where
 * it made one, else the repository's default, else DEFAULT_ATTEMPT_SETTINGS (open, agents allowed, 7 days). Only a
 * pool manager with admin rights on the repository changes them (checked with GitHub, as for money).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import { attemptFlags, attemptSettings, type AttemptSettingsRow, type User } from "../../../db/schema/index.ts";
import { DEFAULT_ATTEMPT_SETTINGS, type AttemptAudience, type AttemptMode, type AttemptSettings } from "../../../lib/attempt-rules.ts";
import { requireManagedRepository } from "../money/access.ts";

/** 0: the repository's own row. */
export const REPOSITORY_DEFAULT = 0;

export interface SettingsChoice {
  mode?: AttemptMode | null;
  audience?: AttemptAudience | null;
  lockMs?: number | null;
}

const apply = (base: AttemptSettings, row: AttemptSettingsRow | undefined): AttemptSettings => ({
  mode: row?.mode ?? base.mode,
  audience: row?.audience ?? base.audience,
  lockMs: row?.lockMs ?? base.lockMs,
});

/** The repository's default and each listed issue's own row. */
export async function settingsRows(ctx: DatabaseDeps, repoId: number, issueNumbers?: number[]): Promise<Map<number, AttemptSettingsRow>> {
  const rows = await ctx.database.db
    .select()
    .from(attemptSettings)
    .where(and(eq(attemptSettings.githubRepoId, repoId), issueNumbers ? inArray(attemptSettings.issueNumber, [REPOSITORY_DEFAULT, ...issueNumbers]) : undefined));
  return new Map(rows.map((r) => [r.issueNumber, r]));
}

export const repositoryDefaults = (rows: Map<number, AttemptSettingsRow>) => apply(DEFAULT_ATTEMPT_SETTINGS, rows.get(REPOSITORY_DEFAULT));
export const bountySettingsFrom = (rows: Map<number, AttemptSettingsRow>, issueNumber: number) => apply(repositoryDefaults(rows), rows.get(issueNumber));

/** What one bounty follows now. */
export async function effectiveSettings(ctx: DatabaseDeps, repoId: number, issueNumber: number): Promise<AttemptSettings> {
  return bountySettingsFrom(await settingsRows(ctx, repoId, [issueNumber]), issueNumber);
}

/**
 * The pool manager sets the repository's default (`issueNumber` 0) or one bounty's choice; a null field of a bounty
 * follows the repository again. Returns what the bounty (or repository) follows now.
 */
export async function chooseSettings(
  ctx: Pick<AppContext, "env" | "database" | "keyring" | "changes">,
  input: { user: User; repoId: number; issueNumber: number; choice: SettingsChoice },
): Promise<AttemptSettings> {
  await requireManagedRepository(ctx, input.user, { repoId: input.repoId, orRegisteredName: true, action: "manage" });
  const values = { mode: input.choice.mode ?? null, audience: input.choice.audience ?? null, lockMs: input.choice.lockMs ?? null, updatedAt: new Date(), updatedByUserId: input.user.id };
  await ctx.database.db
    .insert(attemptSettings)
    .values({ githubRepoId: input.repoId, issueNumber: input.issueNumber, ...values })
    .onConflictDoUpdate({ target: [attemptSettings.githubRepoId, attemptSettings.issueNumber], set: values });
  ctx.changes.publish([`repo:${input.repoId}`, ...(input.issueNumber === REPOSITORY_DEFAULT ? [] : [`bounty:${input.repoId}:${input.issueNumber}`])]);
  const rows = await settingsRows(ctx, input.repoId, input.issueNumber === REPOSITORY_DEFAULT ? [] : [input.issueNumber]);
  return input.issueNumber === REPOSITORY_DEFAULT ? repositoryDefaults(rows) : bountySettingsFrom(rows, input.issueNumber);
}

/** The accounts the pool manager marked as automated on this repository. */
export async function flaggedLogins(ctx: DatabaseDeps, repoId: number): Promise<string[]> {
  const rows = await ctx.database.db.select({ login: attemptFlags.login }).from(attemptFlags).where(eq(attemptFlags.githubRepoId, repoId)).orderBy(attemptFlags.loginKey);
  return rows.map((r) => r.login);
}

export async function isFlagged(ctx: DatabaseDeps, repoId: number, login: string): Promise<boolean> {
  const [row] = await ctx.database.db
    .select({ login: attemptFlags.login })
    .from(attemptFlags)
    .where(and(eq(attemptFlags.githubRepoId, repoId), eq(attemptFlags.loginKey, login.toLowerCase())))
    .limit(1);
  return Boolean(row);
}

/** The pool manager marks (or unmarks) an account as automated on the repository. */
export async function flagAccount(
  ctx: Pick<AppContext, "env" | "database" | "keyring" | "changes">,
  input: { user: User; repoId: number; login: string; flagged: boolean },
): Promise<string[]> {
  await requireManagedRepository(ctx, input.user, { repoId: input.repoId, orRegisteredName: true, action: "manage" });
  const loginKey = input.login.toLowerCase();
  if (input.flagged) {
    await ctx.database.db.insert(attemptFlags).values({ githubRepoId: input.repoId, loginKey, login: input.login, flaggedByUserId: input.user.id }).onConflictDoNothing();
  } else {
    await ctx.database.db.delete(attemptFlags).where(and(eq(attemptFlags.githubRepoId, input.repoId), eq(attemptFlags.loginKey, loginKey)));
  }
  ctx.changes.publish([`repo:${input.repoId}`]);
  return flaggedLogins(ctx, input.repoId);
}
