import { eq } from "drizzle-orm";
import type { AppContext } from "../context.ts";
import { payoutSplits } from "../../db/schema/index.ts";
import { listRegisteredBy } from "./repositories/list-public.ts";
import { publicListCacheFor } from "./repositories/public-list-cache.ts";
import { unifiedRepo } from "./repositories/public.ts";
import { movedAddress, MOVED_MAX_AGE_S } from "./repositories/former-names.ts";
import { exploreSearchParams, parseExploreSearch, searchOpenBounties, type ExploreSearch } from "./explore/search.ts";
import { reliabilityOf } from "./reliability/read.ts";
import { contributorStandings, projectStandings, type LeaderboardPeriod } from "./money/leaderboards.ts";
import { publicProfile } from "./users/public-profile.ts";
import { hasCode, isRefusal } from "../errors.ts";
import { isOperator, opsOverview } from "./ops/overview.ts";

/**
 * The domain services, bound to the application context once. Route handlers
 * and Astro pages (through `locals`) call these; neither touches tables
 * directly.
 */
export function createServices(ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain" | "changes" | "ops" | "startup">) {
  const db = ctx.database.db;
  return {
    repositories: {
      /** The listed repositories, newest first, from the list kept in memory (public-list-cache.ts). */
      listPublic: () => publicListCacheFor(db, ctx.changes).list(),
      listRegisteredBy: (userId: number) => listRegisteredBy(db, userId),
      /** Everything the public repository page shows (real figures, never private repositories). */
      unified: (owner: string, name: string) => unifiedRepo(ctx, owner, name),
      /**
       * A former name of a public registered repository (renamed or transferred): its current `owner/name`, where the
       * pages redirect (issue 39); undefined for any other name.
       */
      movedTo: async (owner: string, name: string) => (await movedAddress(ctx, owner, name, (r) => r.fullName)) ?? undefined,
    },
    /**
     * /explore (api/services/explore/search.ts): a search, or the sentence that says which parameter is wrong (the
     * page answers it with 400). The page never sees the error type: a refusal is data here, anything else throws.
     */
    explore: {
      parse: (params: URLSearchParams): { search: ExploreSearch; problem?: undefined } | { search?: undefined; problem: string } => {
        try {
          return { search: parseExploreSearch(params) };
        } catch (err) {
          if (isRefusal(err)) return { problem: err.message };
          throw err;
        }
      },
      params: exploreSearchParams,
      search: (search: ExploreSearch) => searchOpenBounties(ctx, search),
    },
    /** How long a redirect from a former name may be remembered (seconds). */
    movedMaxAge: MOVED_MAX_AGE_S,
    /** Whether a repository has shared rewards to show (its page mounts their island only then: no JavaScript for nothing). */
    hasSplits: async (repoId: number) =>
      (await db.select({ id: payoutSplits.githubRepoId }).from(payoutSplits).where(eq(payoutSplits.githubRepoId, repoId)).limit(1)).length > 0,
    /** Sponsors' records by repository id (api/services/reliability/read.ts). */
    reliability: (repoIds: number[]) => reliabilityOf(ctx, repoIds),
    leaderboards: {
      contributors: (period: LeaderboardPeriod) => contributorStandings(ctx, period),
      projects: (period: LeaderboardPeriod) => projectStandings(ctx, period),
    },
    contributors: {
      /** null for an unknown login (the page answers 404). */
      profile: (login: string) =>
        publicProfile(ctx, login).catch((err: unknown) => {
          if (hasCode(err, "not_found")) return null;
          throw err;
        }),
    },
    /** The operator's page (/ops): only for the logins in OPS_LOGINS (api/services/ops/overview.ts). */
    ops: {
      isOperator: (login: string | null | undefined) => isOperator(ctx.env, login),
      overview: () => opsOverview(ctx),
    },
  };
}

export type Services = ReturnType<typeof createServices>;
