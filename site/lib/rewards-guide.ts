import { hasSeen, markSeen } from "./onboarding-flags.ts";

export const REWARDS_GUIDE_FLAG = "rewards-guide";

/** Shows the Rewards Guide banners until one is dismissed with 'Got it'. */
export function setupRewardsGuide(root: ParentNode = document): void {
  if (hasSeen(REWARDS_GUIDE_FLAG)) return;
  const guides = Array.from(root.querySelectorAll<HTMLElement>("[data-rewards-guide]"));
  for (const guide of guides) {
    guide.hidden = false;
    guide.querySelector("[data-dismiss-guide]")?.addEventListener("click", () => {
      markSeen(REWARDS_GUIDE_FLAG);
      guides.forEach((g) => (g.hidden = true));
    });
  }
}
