/**
 * The demo world: GitHub users, an organisation, repositories (public and
 * private, admin and non-admin collaborators), issues with labels and pull
 * requests. The GitHub emulator serves it; the seed registers some of these
 * repositories with the platform. Ids are stable so restarts line up.
 */
export interface FixtureUser {
  id: number;
  login: string;
  name: string;
  email: string;
  bio?: string;
  location?: string;
  blog?: string;
  /** What the demo user is for, shown on the emulator's sign-in page. */
  persona: string;
  /** An account GitHub marks as a bot (an app's or an agent's): it comments, it never signs in. */
  type?: "Bot";
}

export interface FixtureLabel {
  name: string;
  color: string;
  description?: string;
}

export interface FixtureIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  author: string;
  labels: string[];
  /** Present for pull requests. */
  pull?: { head: string; merged: boolean; closes: number[] };
  createdDaysAgo: number;
}

export interface FixtureRepo {
  id: number;
  owner: string;
  name: string;
  description: string;
  private: boolean;
  /** login → permission */
  collaborators: Record<string, "admin" | "maintain" | "write" | "triage" | "read">;
  stars: number;
  forks: number;
  language: string;
  createdDaysAgo: number;
  issues: FixtureIssue[];
}

export const FIXTURE_USERS: FixtureUser[] = [
  { id: 1001, login: "alice", name: "Alice Maintainer", email: "alice@example.com", bio: "Maintainer of XDC developer tools.", location: "Bengaluru, India", blog: "https://alice.example.com", persona: "Pool manager: admin of issuepool-demo repositories" },
  { id: 1002, login: "bob", name: "Bob Contributor", email: "bob@example.com", bio: "Open-source contributor. TypeScript and Solidity.", location: "Berlin, Germany", persona: "Contributor with a registered wallet" },
  { id: 1003, login: "carol", name: "Carol Private", email: "carol@example.com", bio: "Keeps some repositories private.", location: "Lisbon, Portugal", persona: "Owner of a private repository" },
  { id: 1004, login: "dave", name: "Dave Newcomer", email: "dave@example.com", bio: "Just arrived.", persona: "New user, not registered yet; admin of dave/hello-xdc" },
  { id: 1005, login: "erin", name: "Erin Reviewer", email: "erin@example.com", persona: "Write access to issuepool-demo, not an admin" },
  { id: 1006, login: "frank", name: "Frank Fresh", email: "frank@example.com", persona: "New user, not registered yet; no repositories" },
  { id: 1007, login: "grace", name: "Grace Visitor", email: "grace@example.com", persona: "New user, not registered yet; wants to contribute" },
  { id: 1008, login: "heidi", name: "Heidi Tipped", email: "heidi@example.com", persona: "New user, not registered yet; tipped before she has a wallet (e2e/held-tip.e2e.ts)" },
  { id: 1010, login: "autofix-agent[bot]", name: "Autofix Agent", email: "autofix-agent@example.invalid", persona: "A bot account (GitHub type Bot): refused on humans-only bounties (e2e/attempts.e2e.ts)", type: "Bot" },
  { id: 1009, login: "ivan", name: "Ivan Away", email: "ivan@example.com", persona: "Never registers; co-author whose held share goes back to the pool (e2e/held-share-return.e2e.ts)" },
  { id: 1011, login: "judy", name: "Judy Coauthor", email: "judy@example.com", persona: "Never registers; co-author whose share is held (e2e/attempts.e2e.ts)" },
];

export const FIXTURE_ORGS = [{ id: 2001, login: "issuepool-demo", name: "Issuepool Demo", members: { alice: "admin", bob: "member", erin: "member" } }] as const;

export const FIXTURE_LABELS: FixtureLabel[] = [
  { name: "bug", color: "d73a4a", description: "Something isn't working" },
  { name: "enhancement", color: "a2eeef", description: "New feature or request" },
  { name: "documentation", color: "0075ca", description: "Improvements or additions to documentation" },
  { name: "good first issue", color: "7057ff", description: "Good for newcomers" },
  { name: "help wanted", color: "008672", description: "Extra attention is needed" },
  { name: "bounty", color: "fbca04", description: "Has a reward on Issuepool" },
  { name: "performance", color: "f9d0c4" },
  { name: "security", color: "b60205" },
];

const issue = (
  number: number,
  title: string,
  labels: string[],
  createdDaysAgo: number,
  body = `${title}.\n\nSteps and context are in the discussion below.`,
  author = "erin",
  state: "open" | "closed" = "open",
): FixtureIssue => ({ number, title, body, state, author, labels, createdDaysAgo });

export const FIXTURE_REPOS: FixtureRepo[] = [
  {
    id: 5001,
    owner: "issuepool-demo",
    name: "xdc-wallet-kit",
    description: "TypeScript toolkit for XDC wallets: addresses, signing and transaction helpers.",
    private: false,
    collaborators: { alice: "admin", bob: "write", erin: "write" },
    stars: 342,
    forks: 57,
    language: "TypeScript",
    createdDaysAgo: 420,
    issues: [
      issue(1, "Support xdc-prefixed addresses in the address parser", ["enhancement", "good first issue"], 40),
      issue(2, "Nonce manager skips a nonce after a dropped transaction", ["bug"], 33),
      issue(3, "Document the signing helpers", ["documentation"], 30),
      issue(4, "Gas estimation is off by one block on Apothem", ["bug", "help wanted"], 21),
      issue(5, "Add EIP-712 typed data signing", ["enhancement"], 14),
      issue(6, "Old README badge points to a dead CI", ["documentation"], 60, undefined, "bob", "closed"),
      {
        ...issue(7, "Fix xdc prefix parsing", [], 12, "Fixes #1\n\nAccepts both xdc and 0x forms.", "bob"),
        pull: { head: "bob:xdc-prefix", merged: false, closes: [1] },
      },
      issue(8, "Batch balance reads into one multicall", ["performance"], 6),
    ],
  },
  {
    id: 5002,
    owner: "issuepool-demo",
    name: "contract-audit-tools",
    description: "Static checks for Solidity contracts deployed on the XDC Network.",
    private: false,
    collaborators: { alice: "admin", erin: "write" },
    stars: 128,
    forks: 19,
    language: "Solidity",
    createdDaysAgo: 300,
    issues: [
      issue(1, "Detect unchecked low-level calls", ["enhancement", "security"], 25),
      issue(2, "False positive on reentrancy guard modifiers", ["bug"], 18),
      issue(3, "Export findings as SARIF", ["enhancement", "help wanted"], 9),
      issue(4, "Write a rule-authoring guide", ["documentation", "good first issue"], 5),
    ],
  },
  {
    id: 5003,
    owner: "alice",
    name: "xdc-explorer-lite",
    description: "A fast, minimal block explorer for XDC nodes.",
    private: false,
    collaborators: { alice: "admin" },
    stars: 76,
    forks: 8,
    language: "Go",
    createdDaysAgo: 200,
    issues: [
      issue(1, "Paginate the address transaction list", ["enhancement"], 15),
      issue(2, "Dark mode contrast on token pages", ["bug", "good first issue"], 11),
      issue(3, "Cache block headers in memory", ["performance"], 4),
    ],
  },
  {
    id: 5004,
    owner: "carol",
    name: "private-notes",
    description: "Carol's private notes. Never public.",
    private: true,
    collaborators: { carol: "admin" },
    stars: 0,
    forks: 0,
    language: "Markdown",
    createdDaysAgo: 90,
    issues: [issue(1, "Private issue that must never appear publicly", ["bug"], 3, undefined, "carol")],
  },
  {
    id: 5005,
    owner: "issuepool-demo",
    name: "roxn-sdk",
    description: "SDK for the ROXN token: balances, approvals and transfers.",
    private: false,
    collaborators: { alice: "admin", bob: "read" },
    stars: 41,
    forks: 6,
    language: "TypeScript",
    createdDaysAgo: 120,
    issues: [
      issue(1, "Publish typed ABI for ROXN", ["enhancement"], 8),
      issue(2, "Allowance helper ignores decimals", ["bug"], 2),
    ],
  },
  {
    // Where the AI scoping journey opens issues from a plan and funds them (e2e/scoping.e2e.ts); nothing else reads it.
    id: 5007,
    owner: "issuepool-demo",
    name: "tool-library",
    description: "A neighbourhood tool library: lend and borrow tools instead of buying them.",
    private: false,
    collaborators: { alice: "admin" },
    stars: 5,
    forks: 1,
    language: "TypeScript",
    createdDaysAgo: 8,
    issues: [issue(1, "Write down the requirements", ["documentation"], 7, undefined, "alice")],
  },
  {
    id: 5006,
    owner: "dave",
    name: "hello-xdc",
    description: "Dave's first XDC dApp.",
    private: false,
    collaborators: { dave: "admin" },
    stars: 3,
    forks: 0,
    language: "JavaScript",
    createdDaysAgo: 10,
    issues: [issue(1, "Add a README", ["documentation", "good first issue"], 2, undefined, "dave")],
  },
];

export function fixtureRepo(fullName: string): FixtureRepo | undefined {
  const key = fullName.toLowerCase();
  return FIXTURE_REPOS.find((r) => `${r.owner}/${r.name}`.toLowerCase() === key);
}
