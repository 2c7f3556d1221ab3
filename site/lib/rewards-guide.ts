import { hasSeen, markSeen } from "./onboarding-flags.ts";

export const REWARDS_GUIDE_FLAG = "rewards-guide";

/**
 * The Rewards Guide banners until one is dismissed with 'Got it'. They are in the page's first paint; <html
 * data-guide-seen> (set by the head's boot script when dismissed, and here on dismissal) leaves them out.
 */
export function setupRewardsGuide(root: ParentNode = document): void {
  const guides = Array.from(root.querySelectorAll<HTMLElement>("[data-rewards-guide]"));
  if (hasSeen(REWARDS_GUIDE_FLAG)) {
    document.documentElement.setAttribute("data-guide-seen", "");
    return;
  }
  for (const guide of guides) {
    guide.querySelector("[data-dismiss-guide]")?.addEventListener("click", () => {
      markSeen(REWARDS_GUIDE_FLAG);
      document.documentElement.setAttribute("data-guide-seen", "");
    });
  }
}
