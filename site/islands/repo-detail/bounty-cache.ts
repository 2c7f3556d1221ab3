import { api, ApiRequestError } from "../../lib/api.ts";
import type { BountyInfo } from "../../lib/repo-detail-data.ts";

/** Bounty details are cached 60 s (spec section 7); null means none (the API's 404). */
export const BOUNTY_CACHE_MS = 60_000;

const cache = new Map<string, { at: number; value: Promise<BountyInfo | null> }>();

export function issueBounty(repoId: number, issueNumber: number, options: { fresh?: boolean } = {}): Promise<BountyInfo | null> {
  const key = `${repoId}/${issueNumber}`;
  const hit = cache.get(key);
  if (hit && !options.fresh && Date.now() - hit.at < BOUNTY_CACHE_MS) return hit.value;
  // A fresh read must not come from the browser's HTTP cache either (the API allows 60 s).
  const path = `/api/blockchain/issue-bounty/${repoId}/${issueNumber}${options.fresh ? `?fresh=${Date.now()}` : ""}`;
  const value = api<BountyInfo>(path).catch((err) => {
    if (err instanceof ApiRequestError && err.status === 404) return null;
    throw err;
  });
  cache.set(key, { at: Date.now(), value });
  value.catch(() => cache.delete(key));
  return value;
}

/** What pool-info already told us, so rows need no request of their own. */
export function rememberBounty(repoId: number, issueNumber: number, bounty: BountyInfo | null): void {
  cache.set(`${repoId}/${issueNumber}`, { at: Date.now(), value: Promise.resolve(bounty) });
}
