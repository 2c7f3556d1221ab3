/**
 * Where the repository detail page sends people (spec sections 5 and 6), as
 * pure functions: Contribute without a session goes to the code host's
 * sign-in and comes back with the issue remembered (`?contribute=`), and the
 * 'Role Selection Required' buttons lead to the two registration pages.
 */
import { githubSignInUrl } from "./auth-flow.ts";

export const CONTRIBUTE_PARAM = "contribute";

export function repoDetailPath(owner: string, name: string): string {
  return `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}`;
}

/** The page again, remembering which issue the person wanted to work on. */
export function contributeReturnTo(owner: string, name: string, issueNumber: number): string {
  return `${repoDetailPath(owner, name)}?${CONTRIBUTE_PARAM}=${issueNumber}`;
}

/** Contribute while signed out: the code host's sign-in, then back here. */
export function contributeSignInUrl(owner: string, name: string, issueNumber: number): string {
  return githubSignInUrl({ returnTo: contributeReturnTo(owner, name, issueNumber) });
}

/**
 * The two buttons of 'Role Selection Required': /register/pool-manager and
 * /register/contributor with ?issueId= (the issue number, as everywhere in
 * the API). A new contributor comes back to finish contributing.
 */
export function roleSelectionLinks(owner: string, name: string, issueNumber: number): { poolManager: string; contributor: string } {
  const back = (path: string) => `&returnTo=${encodeURIComponent(path)}`;
  return {
    poolManager: `/register/pool-manager?issueId=${issueNumber}${back(repoDetailPath(owner, name))}`,
    contributor: `/register/contributor?issueId=${issueNumber}${back(contributeReturnTo(owner, name, issueNumber))}`,
  };
}

/** The issue number remembered in the URL, if it is a plausible one. */
export function pendingContribution(search: string): number | null {
  const value = new URLSearchParams(search).get(CONTRIBUTE_PARAM);
  if (!value || !/^\d{1,9}$/.test(value)) return null;
  const number = Number(value);
  return number > 0 ? number : null;
}

/** The URL without the remembered issue (once handled, a reload must not contribute again). */
export function withoutPendingContribution(href: string): string {
  const url = new URL(href);
  url.searchParams.delete(CONTRIBUTE_PARAM);
  return url.pathname + url.search + url.hash;
}

/** Issue numbers must be positive whole numbers; anything else shows 'Error' ('Invalid issue number'). */
export function isValidIssueNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

/** An explorer page for a transaction, when the network has an explorer. */
export function explorerTxLink(explorerUrl: string | null | undefined, hash: string | null | undefined): string | null {
  if (!explorerUrl || !hash || !/^https?:\/\//.test(explorerUrl)) return null;
  return `${explorerUrl.replace(/\/+$/, "")}/tx/${hash}`;
}

/** 0x1234abcd…9f8e7d6c: enough to recognise a transaction in a toast. */
export function shortHash(hash: string): string {
  return hash.length > 20 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
}
