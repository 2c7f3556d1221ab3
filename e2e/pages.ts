/**
 * Every page of the demo site, as the journeys that visit them all read them
 * (console.e2e.ts: no console error; narrow.e2e.ts: fits a 375 px phone).
 * A new page goes here once and both check it. Pages are only read.
 */
export const NOT_FOUND = "/no/such/page/here";

/**
 * The time a journey that visits `pages` (each loaded, scrolled, twice waited for the network to be quiet) may
 * take: up to 8.3 s a page here with the other worker busy (/profile; 70 s for bob's 22 signed-in pages, over
 * Playwright's 60 s default), more beside a CI run's busy cores.
 */
export const visitingTime = (pages: readonly string[]) => 30_000 + pages.length * 20_000;

export const SIGNED_OUT_PAGES = [
  "/",
  "/repos",
  "/faq",
  "/auth",
  "/auth?source=vscode",
  "/register/contributor",
  "/register/pool-manager",
  "/issuepool-demo/xdc-wallet-kit",
  "/alice/xdc-explorer-lite",
  "/issuepool-demo/roxn-sdk",
  "/issuepool-demo/tool-library",
  "/someone/not-registered",
  "/repos/issuepool-demo/xdc-wallet-kit",
  "/embed/issuepool-demo/xdc-wallet-kit",
  "/ai-scoping-agent",
  "/decentralized-chat",
  "/provider-hub",
  "/vscode/wallet",
  "/explore",
  "/explore?currency=XDC&min=20",
  "/leaderboard",
  "/leaderboard?tab=projects&period=30d",
  "/@bob",
  NOT_FOUND,
];

export const SIGNED_IN_PAGES = [
  "/repos",
  "/profile",
  "/wallet",
  "/vscode/wallet",
  "/my-repos",
  "/repos/register",
  "/repos/issuepool-demo/xdc-wallet-kit",
  "/repos/issuepool-demo/xdc-wallet-kit#rewards",
  "/repos/alice/xdc-explorer-lite",
  "/issuepool-demo/xdc-wallet-kit",
  "/alice/xdc-explorer-lite",
  "/ai-scoping-agent",
  "/decentralized-chat",
  "/provider-hub",
  "/settings/alerts",
  "/settings/alerts?repositoryId=5003&repository=alice/xdc-explorer-lite",
  "/faq",
  "/auth",
  "/explore",
  "/leaderboard",
  "/@bob",
  NOT_FOUND,
];
