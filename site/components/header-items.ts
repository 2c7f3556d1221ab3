/** The sign-in link of the header and the phone's menu: back to this page after signing in. */
export const signInHrefFor = (url: URL) => `/auth?returnTo=${encodeURIComponent(url.pathname + url.search)}`;

/** What the header's menus and the phone's menu (MobileNav.astro) both list. */
export const helpLinks = [
  { label: "FAQ", href: "/faq", icon: "help" },
  { label: "AI Project Scoping", href: "/ai-scoping-agent", icon: "sparkles" },
] as const;
/** The onboarding dialogs, reopened from the menus (site/lib/onboarding.ts); some by role. */
export const guideItems = [
  { label: "Welcome Tour", guide: "welcome", icon: "sparkles", role: undefined },
  { label: "Contribution Demo", guide: "contribution-demo", icon: "coins", role: "contributor" },
  { label: "Pool Manager Guide", guide: "pool-manager-guide", icon: "book", role: "poolmanager" },
  { label: "Funding Demo", guide: "funding-demo", icon: "wallet", role: "poolmanager" },
] as const;
export const navItems = [
  { label: "Chat", href: "/decentralized-chat", icon: "chat" },
  { label: "Explore", href: "/explore", icon: "compass" },
  { label: "Leaderboard", href: "/leaderboard", icon: "coins" },
] as const;
