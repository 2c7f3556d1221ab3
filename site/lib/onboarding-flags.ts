/**
 * Seen flags of the onboarding dialogs and guides (spec section 2): kept in
 * localStorage under one prefix, so "show the guides again" clears them all.
 */
/** The dialogs and guides (lib/onboarding.ts opens them, islands/onboarding shows them). */
export type GuideName = "welcome" | "contribution-demo" | "pool-manager-guide" | "funding-demo";

export const ONBOARDING_PREFIX = "ip-onboarding:";

export function hasSeen(name: string): boolean {
  try {
    return localStorage.getItem(ONBOARDING_PREFIX + name) === "seen";
  } catch {
    return false;
  }
}

export function markSeen(name: string): void {
  try {
    localStorage.setItem(ONBOARDING_PREFIX + name, "seen");
  } catch {
    // private mode: the guide may show again next time
  }
}

export function resetAllSeen(): void {
  try {
    for (const key of Object.keys(localStorage)) if (key.startsWith(ONBOARDING_PREFIX)) localStorage.removeItem(key);
  } catch {
    // nothing stored
  }
}
