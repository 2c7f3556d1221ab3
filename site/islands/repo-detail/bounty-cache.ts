import { api, ApiRequestError } from "../../lib/api.ts";
import type { BountyInfo } from "../../lib/repo-detail-data.ts";

/** Bounty details are cached 60 s (spec section 7); null means none (the API's 404). */
export const BOUNTY_CACHE_MS = 60_000;

const cache = new Map<string, { at: number; value: Promise<BountyInfo | null> }>();

export function issueBounty(repoId: number, issueNumber: number, options: { fresh?: boolean } = {}): Promise<BountyInfo | null> {
  const key = `${repoId}/${issueNumber}`;
  const hit = cache.get(key);
  if (hit && !options.fresh && Date.now() - hit.at < BOUNTY_CACHE_MS) return hit.value;
  const value = options.fresh ? freshBounty(repoId, issueNumber) : bountyOfIssue(repoId, issueNumber);
  cache.set(key, { at: Date.now(), value });
  value.catch(() => cache.delete(key));
  return value;
}

function bountyOfIssue(repoId: number, issueNumber: number, query = ""): Promise<BountyInfo | null> {
  return api<BountyInfo>(`/api/blockchain/issue-bounty/${repoId}/${issueNumber}${query}`).catch((err) => {
    if (err instanceof ApiRequestError && err.status === 404) return null;
    throw err;
  });
}

/**
 * A fresh read (after setting, releasing or cancelling a bounty) asks pool-info, which is never cached and lists
 * every bounty of the repository, cancelled ones included: "none" is an answer there, not a 404 that the browser
 * logs as a failed request (issue 27: the console showed an error after every cancel, and while a new bounty was
 * being confirmed). Only if pool-info cannot be read does the issue's own endpoint answer, past the HTTP cache.
 */
function freshBounty(repoId: number, issueNumber: number): Promise<BountyInfo | null> {
  return api(`/api/blockchain/pool-info/${repoId}`).then(
    (info) => {
      const ofIssue = info.issues.filter((b) => b.issueId === issueNumber);
      return ofIssue.find((b) => b.status !== "cancelled") ?? ofIssue[0] ?? null;
    },
    () => bountyOfIssue(repoId, issueNumber, `?fresh=${Date.now()}`),
  );
}

/** What pool-info already told us, so rows need no request of their own. */
export function rememberBounty(repoId: number, issueNumber: number, bounty: BountyInfo | null): void {
  cache.set(`${repoId}/${issueNumber}`, { at: Date.now(), value: Promise.resolve(bounty) });
}
