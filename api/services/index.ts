import type { Database } from "../../db/client.ts";
import { listPublicRepositories } from "./repositories/list-public.ts";

/**
 * The domain services, bound to the database once. Route handlers and Astro
 * pages (through `locals`) call these; neither touches tables directly.
 */
export function createServices(db: Database) {
  return {
    repositories: {
      listPublic: () => listPublicRepositories(db),
    },
  };
}

export type Services = ReturnType<typeof createServices>;
