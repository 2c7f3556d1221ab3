import type { AppContext } from "../context.ts";
import { listPublicRepositories, listRegisteredBy } from "./repositories/list-public.ts";
import { unifiedRepo } from "./repositories/public.ts";

/**
 * The domain services, bound to the application context once. Route handlers
 * and Astro pages (through `locals`) call these; neither touches tables
 * directly.
 */
export function createServices(ctx: Pick<AppContext, "env" | "database" | "log" | "keyring" | "chain">) {
  const db = ctx.database.db;
  return {
    repositories: {
      listPublic: () => listPublicRepositories(db, { activeOnly: true }),
      listRegisteredBy: (userId: number) => listRegisteredBy(db, userId),
      /** Everything the public repository page shows (real figures, never private repositories). */
      unified: (owner: string, name: string) => unifiedRepo(ctx, owner, name),
    },
  };
}

export type Services = ReturnType<typeof createServices>;
