import { expect, test } from "bun:test";
import {
  contributeSignInUrl,
  explorerTxLink,
  isValidIssueNumber,
  pendingContribution,
  roleSelectionLinks,
  shortHash,
  withoutPendingContribution,
} from "./repo-detail-links.ts";
import { errorTooltip, initialFromUnified, bountyLabel, isBountySet, sortedBounties } from "./repo-detail-data.ts";

test("Contribute while signed out goes to the code host's sign-in and comes back to the issue", () => {
  const url = new URL(contributeSignInUrl("issuepool-demo", "xdc-wallet-kit", 3), "http://site");
  expect(url.pathname).toBe("/api/auth/github");
  expect(url.searchParams.get("returnTo")).toBe("/repos/issuepool-demo/xdc-wallet-kit?contribute=3");
});

test("'Role Selection Required' leads to both registration pages with the issue", () => {
  const links = roleSelectionLinks("o", "r", 7);
  expect(links.poolManager).toStartWith("/register/pool-manager?issueId=7&");
  expect(links.contributor).toStartWith("/register/contributor?issueId=7&");
  expect(new URL(links.contributor, "http://site").searchParams.get("returnTo")).toBe("/repos/o/r?contribute=7");
  expect(new URL(links.poolManager, "http://site").searchParams.get("returnTo")).toBe("/repos/o/r");
});

test("the remembered issue is read once and removed from the URL", () => {
  expect(pendingContribution("?contribute=12")).toBe(12);
  for (const search of ["", "?contribute=", "?contribute=0", "?contribute=-1", "?contribute=1e3", "?contribute=abc"]) expect(pendingContribution(search)).toBeNull();
  expect(withoutPendingContribution("http://site/repos/o/r?contribute=3&x=1#rewards")).toBe("/repos/o/r?x=1#rewards");
  expect(withoutPendingContribution("http://site/repos/o/r?contribute=3")).toBe("/repos/o/r");
});

test("issue numbers must be positive whole numbers", () => {
  expect(isValidIssueNumber(4)).toBe(true);
  for (const value of [0, -1, 1.5, "4", NaN, null]) expect(isValidIssueNumber(value)).toBe(false);
});

test("explorer links only for a configured explorer; hashes are shortened for toasts", () => {
  expect(explorerTxLink("https://xdcscan.com/", "0xabc")).toBe("https://xdcscan.com/tx/0xabc");
  expect(explorerTxLink("", "0xabc")).toBeNull();
  expect(explorerTxLink("__IP_RUNTIME_explorerUrl__", "0xabc")).toBeNull();
  expect(shortHash(`0x${"a".repeat(56)}12345678`)).toBe("0xaaaaaaaa…12345678");
});

test("the reward cell's tooltip holds the first 100 characters of the failure", () => {
  expect(errorTooltip("x".repeat(150))).toHaveLength(100);
});

test("the public view starts the page for registered public repositories only", () => {
  const base = { githubRepoFullName: "o/r", issues: [], bounties: [], blockchain: null, stale: false };
  expect(initialFromUnified({ ...base, registered: false, repoId: null, github: null })).toBeNull();
  const data = initialFromUnified({
    ...base,
    registered: true,
    repoId: 5,
    github: { name: "r", full_name: "o/r", description: null, html_url: "https://gh/o/r", private: false },
    issues: [{ id: 1, number: 2, title: "t", html_url: "u", labels: [], body: "long" } as never],
    bounties: [{ issueNumber: 2, currency: "ROXN", amount: "150", total: "150", boosted: "0", funders: [] }],
    blockchain: { poolRewards: { XDC: "1", ROXN: "2", USDC: "0" } },
  })!;
  expect(data.repo.repoId).toBe(5);
  expect(data.repo.issues[0]).toEqual({ id: 1, number: 2, title: "t", html_url: "u", labels: [] });
  expect(bountyLabel(data.pool!.issues[0])).toBe("150.00 ROXN");
  expect(isBountySet(data.pool!.issues[0])).toBe(true);
  expect(bountyLabel(null)).toBe("N/A");
});

test("active bounties are sorted by issue number", () => {
  const b = (issueId: number) => ({ issueId, isRoxn: false, currency: "XDC" as const, xdcAmount: "1", roxnAmount: "0", usdcAmount: "0", status: "open" as const, recipient: null, transactionHash: null, state: "open" as const, heldFor: null, awaitingReason: null, issueTitle: null, issueUrl: null, total: "1", boosted: "0", funders: [] });
  expect(sortedBounties({ xdcPoolRewards: "0", roxnPoolRewards: "0", usdcPoolRewards: "0", issues: [b(4), b(1), b(2)] }).map((x) => x.issueId)).toEqual([1, 2, 4]);
});
