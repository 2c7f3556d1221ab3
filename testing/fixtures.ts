import type { Database } from "../db/client.ts";
import { repositories, repositoryPools, type Currency } from "../db/schema/index.ts";
import { FIXTURE_REPOS } from "../scripts/github-emulator/fixture.ts";

const DAY_MS = 24 * 3600 * 1000;
const XDC = 10n ** 18n;

/** Which fixture repositories are registered, and their pools. */
export const TEST_REGISTRATIONS: { fullName: string; registeredDaysAgo: number; pools: Partial<Record<Currency, bigint>> }[] = [
  { fullName: "issuepool-demo/xdc-wallet-kit", registeredDaysAgo: 30, pools: { XDC: 1250n * XDC, ROXN: 5000n * XDC } },
  { fullName: "issuepool-demo/contract-audit-tools", registeredDaysAgo: 20, pools: { ROXN: 800n * XDC } },
  { fullName: "alice/xdc-explorer-lite", registeredDaysAgo: 7, pools: { XDC: 300n * XDC } },
  { fullName: "issuepool-demo/roxn-sdk", registeredDaysAgo: 2, pools: {} },
];

/**
 * Registered repositories with pool figures written straight into the
 * mirror, for tests of pages and lists that need no chain (the embedded
 * default puts real pools on the chain: scripts/seed-demo.ts). Idempotent.
 */
export async function insertTestRepositories(db: Database, options: { githubUrl: string; now?: number }): Promise<void> {
  const now = options.now ?? Date.now();
  for (const reg of TEST_REGISTRATIONS) {
    const repo = FIXTURE_REPOS.find((r) => `${r.owner}/${r.name}` === reg.fullName);
    if (!repo) throw new Error(`test registration ${reg.fullName} is not in the fixture`);
    const registeredAt = new Date(now - reg.registeredDaysAgo * DAY_MS);
    await db
      .insert(repositories)
      .values({
        githubRepoId: repo.id,
        fullName: reg.fullName,
        fullNameKey: reg.fullName.toLowerCase(),
        owner: repo.owner,
        name: repo.name,
        description: repo.description,
        htmlUrl: `${options.githubUrl}/${reg.fullName}`,
        isPrivate: repo.private,
        stars: repo.stars,
        forks: repo.forks,
        registeredAt,
        updatedAt: registeredAt,
      })
      .onConflictDoNothing();
    for (const [currency, balance] of Object.entries(reg.pools) as [Currency, bigint][]) {
      await db
        .insert(repositoryPools)
        .values({ githubRepoId: repo.id, currency, balance })
        .onConflictDoNothing();
    }
  }
}
