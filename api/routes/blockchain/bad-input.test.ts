/**
 * Bad input on every money endpoint of issue 4 (wallet, token and blockchain
 * calls of spec section 7): wrong types, negative, huge, too many decimals,
 * malformed ids, unknown repositories and someone else's. Each answers 4xx
 * with the one error shape ({ error, message, code, requestId }), never a
 * 500, and changes nothing: the database digest is the same after every
 * case, and at the end no transaction was queued or sent (the outbox and
 * the on-chain nonces of every signer are unchanged).
 *
 * The cases are a table: one row per input, run against the in-process app
 * on a real chain and the GitHub emulator, with a valid request around the
 * bad part so each case fails for the reason it names.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Address } from "viem";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, databaseDigest, type TestSession } from "../../../testing/auth.ts";
import { chainTransactions, repositories, walletNonces, wallets } from "../../../db/schema/index.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";

let stack: TestStack;
let alice: TestSession; // pool manager, admin of issuepool-demo/*
let bob: TestSession; // contributor
let dave: TestSession; // pool manager, admin of dave/hello-xdc only
const walletOf: Record<string, Address> = {};
let keyN = 0;
const key = () => `bad-input-${Date.now()}-${keyN++}`;

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const DAVES = fixtureRepo("dave/hello-xdc")!;
const CAROLS = fixtureRepo("carol/private-notes")!;
const NAME = "issuepool-demo/xdc-wallet-kit";
const UNKNOWN_REPO = 99_999_999;
/** Issue 1 carries an open bounty (distribute cases); issue 3 is open with none (allocate cases); 6 is closed; 7 is a pull request. */
const BOUNTY_ISSUE = 1;
const FREE_ISSUE = 3;

const TWO_POW_256 = (2n ** 256n).toString();

/** Amounts no money endpoint may accept, whatever the token. */
const BAD_AMOUNTS: [string, unknown][] = [
  ["letters", "abc"],
  ["empty string", ""],
  ["blank", "   "],
  ["negative string", "-5"],
  ["negative number", -5],
  ["zero", "0"],
  ["zero number", 0],
  ["exponent string 1e30", "1e30"],
  ["number 1e30", 1e30],
  ["2^256 as digits", TWO_POW_256],
  ["2^256 as a JSON number", 2 ** 256],
  ["10^30 as digits (31 digits)", "1" + "0".repeat(30)],
  ["19 decimals (more than 18)", "5.0000000000000000001"],
  ["number below one wei", 1e-19],
  ["hex", "0x10"],
  ["comma decimal", "1,5"],
  ["two dots", "1.2.3"],
  ["leading plus", "+5"],
  ["unit suffix", "5 XDC"],
  ["NaN", "NaN"],
  ["Infinity", "Infinity"],
  ["over 80 characters", "1".repeat(81)],
  ["null", null],
  ["boolean", true],
  ["array", ["5"]],
  ["object", { value: "5" }],
];

/**
 * The same refused as JSON source text (issue 25): a JSON number keeps its exact text, so one that rounds (to 2, to
 * 1) is refused for its decimals as the string would be; exponents and padded strings are refused, not read.
 */
const RAW_BAD_AMOUNTS: [string, string][] = [
  ["JSON number with 19 decimals that rounds to 2", "1.9999999999999999999"],
  ["JSON number with 19 decimals that rounds to 1", "1.0000000000000000001"],
  ["JSON number with an exponent", "2e0"],
  ["JSON number with a capital exponent", "5E1"],
  ["JSON number past 2^256", "1" + "0".repeat(80)],
  ["string with leading spaces", '"  2"'],
  ["string with a trailing space", '"2 "'],
  ["string with a trailing newline", '"2\\n"'],
];

/** Path ids (repository ids, issue numbers, user ids) that are not positive safe integers. */
const BAD_IDS: [string, string][] = [
  ["letters", "abc"],
  ["negative", "-1"],
  ["zero", "0"],
  ["fraction", "1.5"],
  ["exponent 1e30", "1e30"],
  ["2^256", TWO_POW_256],
  ["beyond 2^53", "9007199254740993"],
  ["NaN", "NaN"],
  ["Infinity", "Infinity"],
  ["encoded space", "%20"],
  // Forms a number coercion would read as an id (issue 15, finding 3).
  ["trailing dot", "1."],
  ["exponent 1e2", "1e2"],
  ["hexadecimal", "0x10"],
  ["leading zero", "01"],
  ["a fraction that rounds to 1", "1.0000000000000000001"],
];

interface Case {
  name: string;
  method?: "GET" | "POST";
  path: () => string;
  body?: () => unknown;
  /** Raw body text (malformed JSON); sent with `contentType` (default application/json). */
  rawBody?: string;
  contentType?: string;
  as?: () => TestSession | undefined;
  /** Defaults to a fresh Idempotency-Key on every POST; null sends none. */
  idempotencyKey?: string | null;
  status: number;
  /** The message (or part of it) a person reads. */
  message?: string | RegExp;
}

const fund = (body: Record<string, unknown>) => ({ amountXdc: "5", repositoryFullName: NAME, ...body });
const fundRoxn = (body: Record<string, unknown>) => ({ roxnAmount: "5", repositoryFullName: NAME, ...body });
const allocate = (body: Record<string, unknown>) => ({ bountyAmount: "2", currency: "XDC", githubRepoFullName: NAME, ...body });
const distribute = (body: Record<string, unknown>) => ({ contributorAddress: walletOf.bob, githubRepoFullName: NAME, ...body });

function amountCases(endpoint: string, path: () => string, field: string, wrap: (body: Record<string, unknown>) => unknown): Case[] {
  return [
    ...BAD_AMOUNTS.map(([name, value]) => ({
      name: `${endpoint}: ${field} ${name}`,
      path,
      body: () => wrap({ [field]: value }),
      status: 400,
    })),
    ...RAW_BAD_AMOUNTS.map(([name, source]) => ({
      name: `${endpoint}: ${field} ${name}`,
      path,
      rawBody: JSON.stringify(wrap({ [field]: "@AMOUNT@" })).replace('"@AMOUNT@"', source),
      status: 400,
    })),
  ];
}

/** `{id}` of the user routes may also be a wallet address or a GitHub username: a bad id that is a possible login is someone else's (404). */
function userRefCases(endpoint: string, path: (id: string) => string): Case[] {
  return idCases(endpoint, "GET", path).map((c) => {
    const id = BAD_IDS.find(([name]) => c.name.endsWith(`id ${name}`))![1];
    return /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/.test(id) ? { ...c, status: 404, message: undefined } : c;
  });
}

function idCases(endpoint: string, method: "GET" | "POST", path: (id: string) => string, body?: () => unknown, as = () => alice): Case[] {
  return BAD_IDS.map(([name, id]) => ({ name: `${endpoint}: id ${name}`, method, path: () => path(id), body, as, status: 400, message: /must be|Invalid|expected/i }));
}

/** JSON bodies that are not the object the endpoint reads. */
function bodyCases(endpoint: string, path: () => string): Case[] {
  return [
    { name: `${endpoint}: malformed JSON`, path, rawBody: '{"amount": "5",', status: 400 },
    { name: `${endpoint}: a JSON array`, path, body: () => ["5"], status: 400 },
    { name: `${endpoint}: a JSON string`, path, body: () => "5", status: 400 },
    { name: `${endpoint}: an empty object`, path, body: () => ({}), status: 400 },
    { name: `${endpoint}: JSON sent as text/plain`, path, rawBody: '{"amount":"5"}', contentType: "text/plain", status: 400 },
    { name: `${endpoint}: a body over the size limit`, path, rawBody: JSON.stringify({ amount: "1".repeat(1_100_000) }), status: 413 },
  ];
}

function keyCases(endpoint: string, path: () => string, body: () => unknown): Case[] {
  return [
    { name: `${endpoint}: Idempotency-Key too short`, path, body, idempotencyKey: "abc", status: 400, message: /Idempotency-Key/ },
    { name: `${endpoint}: Idempotency-Key with spaces`, path, body, idempotencyKey: "not a valid key at all", status: 400, message: /Idempotency-Key/ },
    { name: `${endpoint}: Idempotency-Key of 129 characters`, path, body, idempotencyKey: "k".repeat(129), status: 400, message: /Idempotency-Key/ },
  ];
}

const fundPath = (repoId: string | number = REPO.id) => `/api/blockchain/repository/${repoId}/fund`;
const fundRoxnPath = (repoId: string | number = REPO.id) => `/api/blockchain/fund-roxn/${repoId}`;
const allocatePath = (repoId: string | number = REPO.id, issue: string | number = FREE_ISSUE) => `/api/blockchain/allocate-bounty/${repoId}/${issue}`;
const distributePath = (repoId: string | number = REPO.id, issue: string | number = BOUNTY_ISSUE) => `/api/blockchain/distribute-bounty/${repoId}/${issue}`;
const managerPath = (repoId: string | number = REPO.id) => `/api/blockchain/repository/${repoId}/manager`;

const CASES: Case[] = [
  // POST /api/blockchain/repository/{repoId}/fund
  ...amountCases("fund XDC", () => fundPath(), "amountXdc", fund),
  { name: "fund XDC: exactly 1 XDC (must be above)", path: () => fundPath(), body: () => fund({ amountXdc: "1" }), status: 400, message: "Minimum is > 1 XDC" },
  { name: "fund XDC: 30-digit amount, more than the wallet holds", path: () => fundPath(), body: () => fund({ amountXdc: "9".repeat(30) }), status: 400, message: /^Your XDC balance is [\d,]+\.\d{4} XDC\.$/ },
  { name: "fund XDC: above the daily limit (the wallet holds it)", path: () => fundPath(), body: () => fund({ amountXdc: "1001" }), status: 429, message: /^Daily funding limit reached/ },
  ...idCases("fund XDC", "POST", (id) => fundPath(id), () => fund({})),
  { name: "fund XDC: unknown repository", path: () => fundPath(UNKNOWN_REPO), body: () => fund({ repositoryFullName: "nobody/nothing" }), status: 404 },
  { name: "fund XDC: someone else's repository", path: () => fundPath(DAVES.id), body: () => fund({ repositoryFullName: "dave/hello-xdc" }), status: 403, message: "You need admin permissions to fund this repository." },
  { name: "fund XDC: someone else's private repository", path: () => fundPath(CAROLS.id), body: () => fund({ repositoryFullName: "carol/private-notes" }), status: 404 },
  { name: "fund XDC: another repository's name", path: () => fundPath(), body: () => fund({ repositoryFullName: "dave/hello-xdc" }), status: 400, message: "The repository name does not match this repository." },
  { name: "fund XDC: repository name missing", path: () => fundPath(), body: () => fund({ repositoryFullName: null }), status: 400, message: "Repository details missing." },
  { name: "fund XDC: repository name with a path in it", path: () => fundPath(), body: () => fund({ repositoryFullName: `${NAME}/../../dave/hello-xdc` }), status: 400 },
  { name: "fund XDC: repository name a number", path: () => fundPath(), body: () => fund({ repositoryFullName: 5001 }), status: 400 },
  { name: "fund XDC: repository name over 200 characters", path: () => fundPath(), body: () => fund({ repositoryFullName: "a/" + "b".repeat(200) }), status: 400 },
  { name: "fund XDC: a contributor", path: () => fundPath(), body: () => fund({}), as: () => bob, status: 403 },
  { name: "fund XDC: the owner of another repository", path: () => fundPath(), body: () => fund({}), as: () => dave, status: 403 },
  ...bodyCases("fund XDC", () => fundPath()),
  ...keyCases("fund XDC", () => fundPath(), () => fund({})),

  // POST /api/blockchain/fund-roxn/{repoId}
  ...amountCases("fund ROXN", () => fundRoxnPath(), "roxnAmount", fundRoxn),
  { name: "fund ROXN: more than the balance", path: () => fundRoxnPath(), body: () => fundRoxn({ roxnAmount: "1000000" }), status: 400, message: /^Your ROXN balance is/ },
  { name: "fund ROXN: without an allowance", path: () => fundRoxnPath(), body: () => fundRoxn({ roxnAmount: "5" }), status: 400, message: "Approve ROXN before adding it to the pool." },
  ...idCases("fund ROXN", "POST", (id) => fundRoxnPath(id), () => fundRoxn({})),
  { name: "fund ROXN: unknown repository", path: () => fundRoxnPath(UNKNOWN_REPO), body: () => fundRoxn({ repositoryFullName: "nobody/nothing" }), status: 404 },
  { name: "fund ROXN: someone else's repository", path: () => fundRoxnPath(DAVES.id), body: () => fundRoxn({ repositoryFullName: "dave/hello-xdc" }), status: 403 },
  ...bodyCases("fund ROXN", () => fundRoxnPath()),
  ...keyCases("fund ROXN", () => fundRoxnPath(), () => fundRoxn({})),

  // POST /api/blockchain/approve-roxn
  ...amountCases("approve ROXN", () => "/api/blockchain/approve-roxn", "amount", (body) => body),
  ...bodyCases("approve ROXN", () => "/api/blockchain/approve-roxn"),
  ...keyCases("approve ROXN", () => "/api/blockchain/approve-roxn", () => ({ amount: "5" })),

  // POST /api/blockchain/fund-usdc/{repoId}, approve-usdc, repository/{repoId}/withdraw
  ...amountCases("fund USDC", () => `/api/blockchain/fund-usdc/${REPO.id}`, "usdcAmount", (body) => ({ usdcAmount: "5", repositoryFullName: NAME, ...body })),
  ...amountCases("approve USDC", () => "/api/blockchain/approve-usdc", "amount", (body) => body),
  ...amountCases("withdraw", () => `/api/blockchain/repository/${REPO.id}/withdraw`, "amount", (body) => ({ currency: "XDC", amount: "1", repositoryFullName: NAME, ...body })),

  // POST /api/blockchain/allocate-bounty/{repoId}/{issueId}
  ...amountCases("allocate", () => allocatePath(), "bountyAmount", allocate),
  { name: "allocate: 7 decimals of USDC (it has 6)", path: () => allocatePath(), body: () => allocate({ bountyAmount: "1.0000001", currency: "USDC" }), status: 400 },
  { name: "allocate: 19 decimals of ROXN", path: () => allocatePath(), body: () => allocate({ bountyAmount: "1.0000000000000000001", isRoxn: true, currency: undefined }), status: 400 },
  { name: "allocate: below the XDC minimum", path: () => allocatePath(), body: () => allocate({ bountyAmount: "0.99" }), status: 400, message: "Minimum bounty must be at least 1 XDC" },
  { name: "allocate: more than the pool", path: () => allocatePath(), body: () => allocate({ bountyAmount: "999999" }), status: 400, message: /^Amount cannot exceed available XDC pool balance/ },
  { name: "allocate: unknown currency", path: () => allocatePath(), body: () => allocate({ currency: "BTC" }), status: 400 },
  { name: "allocate: isRoxn a string", path: () => allocatePath(), body: () => allocate({ isRoxn: "yes", currency: undefined }), status: 400 },
  { name: "allocate: on an issue that has a bounty", path: () => allocatePath(REPO.id, BOUNTY_ISSUE), body: () => allocate({}), status: 409, message: /is already assigned. You cannot change it\.$/ },
  { name: "allocate: on a closed issue", path: () => allocatePath(REPO.id, 6), body: () => allocate({}), status: 400, message: "Issue #6 is closed." },
  { name: "allocate: on a pull request", path: () => allocatePath(REPO.id, 7), body: () => allocate({}), status: 400, message: "#7 is a pull request, not an issue." },
  { name: "allocate: on an issue that does not exist", path: () => allocatePath(REPO.id, 9_007_199_254_740_991), body: () => allocate({}), status: 404 },
  ...idCases("allocate", "POST", (id) => allocatePath(id), () => allocate({})),
  ...idCases("allocate (issue)", "POST", (id) => allocatePath(REPO.id, id), () => allocate({})),
  { name: "allocate: unknown repository", path: () => allocatePath(UNKNOWN_REPO), body: () => allocate({ githubRepoFullName: "nobody/nothing" }), status: 404 },
  { name: "allocate: someone else's repository", path: () => allocatePath(DAVES.id, 1), body: () => allocate({ githubRepoFullName: "dave/hello-xdc" }), status: 403 },
  { name: "allocate: repository name a list", path: () => allocatePath(), body: () => allocate({ githubRepoFullName: [NAME] }), status: 400 },
  { name: "allocate: a contributor", path: () => allocatePath(), body: () => allocate({}), as: () => bob, status: 403 },
  ...bodyCases("allocate", () => allocatePath()),
  ...keyCases("allocate", () => allocatePath(), () => allocate({})),

  // POST /api/blockchain/distribute-bounty/{repoId}/{issueId}
  { name: "distribute: address a number", path: () => distributePath(), body: () => distribute({ contributorAddress: 123 }), status: 400 },
  { name: "distribute: address empty", path: () => distributePath(), body: () => distribute({ contributorAddress: "" }), status: 400, message: /address/ },
  { name: "distribute: address too short", path: () => distributePath(), body: () => distribute({ contributorAddress: "0x1234" }), status: 400, message: /address/ },
  { name: "distribute: xdc address with 39 hex digits", path: () => distributePath(), body: () => distribute({ contributorAddress: `xdc${"a".repeat(39)}` }), status: 400 },
  { name: "distribute: address with a bad checksum", path: () => distributePath(), body: () => distribute({ contributorAddress: badChecksum(walletOf.bob!) }), status: 400 },
  { name: "distribute: 2^256 as the address", path: () => distributePath(), body: () => distribute({ contributorAddress: TWO_POW_256 }), status: 400 },
  { name: "distribute: an address that is not a user's", path: () => distributePath(), body: () => distribute({ contributorAddress: "0x00000000000000000000000000000000000000ff" }), status: 400, message: "The contributor must be a registered Issuepool user." },
  { name: "distribute: an issue without a bounty", path: () => distributePath(REPO.id, FREE_ISSUE), body: () => distribute({}), status: 409 },
  { name: "distribute: an issue that does not exist", path: () => distributePath(REPO.id, 9_007_199_254_740_991), body: () => distribute({}), status: 409 },
  ...idCases("distribute", "POST", (id) => distributePath(id), () => distribute({})),
  ...idCases("distribute (issue)", "POST", (id) => distributePath(REPO.id, id), () => distribute({})),
  { name: "distribute: unknown repository", path: () => distributePath(UNKNOWN_REPO), body: () => distribute({}), status: 404 },
  { name: "distribute: someone else's repository", path: () => distributePath(DAVES.id, 1), body: () => distribute({ githubRepoFullName: "dave/hello-xdc" }), status: 403 },
  { name: "distribute: another repository's name", path: () => distributePath(), body: () => distribute({ githubRepoFullName: "dave/hello-xdc" }), status: 400 },
  { name: "distribute: a contributor paying himself", path: () => distributePath(), body: () => distribute({}), as: () => bob, status: 403 },
  { name: "distribute: the owner of another repository", path: () => distributePath(), body: () => distribute({}), as: () => dave, status: 403 },
  ...bodyCases("distribute", () => distributePath()),
  ...keyCases("distribute", () => distributePath(), () => distribute({})),

  // GET /api/blockchain/repository/{repoId}/funding-status, pool-info, issue-bounty
  ...idCases("funding-status", "GET", (id) => `/api/blockchain/repository/${id}/funding-status`),
  { name: "funding-status: unknown repository", method: "GET", path: () => `/api/blockchain/repository/${UNKNOWN_REPO}/funding-status`, status: 404 },
  ...idCases("pool-info", "GET", (id) => `/api/blockchain/pool-info/${id}`),
  { name: "pool-info: unknown repository", method: "GET", path: () => `/api/blockchain/pool-info/${UNKNOWN_REPO}`, status: 404 },
  ...idCases("issue-bounty", "GET", (id) => `/api/blockchain/issue-bounty/${id}/1`),
  ...idCases("issue-bounty (issue)", "GET", (id) => `/api/blockchain/issue-bounty/${REPO.id}/${id}`),
  { name: "issue-bounty: unknown repository", method: "GET", path: () => `/api/blockchain/issue-bounty/${UNKNOWN_REPO}/1`, status: 404 },
  // Anonymous writes are 401 before anything else is looked at (the body, the rate limit).
  { name: "fund XDC: anonymous, with a bad body", path: () => fundPath(), body: () => fund({ amountXdc: "abc" }), as: () => undefined, status: 401 },
  { name: "allocate: anonymous, with no body", path: () => allocatePath(), body: () => ({}), as: () => undefined, status: 401 },
  { name: "distribute: anonymous, without an Idempotency-Key", path: () => distributePath(), body: () => distribute({}), as: () => undefined, idempotencyKey: null, status: 401 },
  // A private repository's money is nobody's business but those who can see it on GitHub: the same 404 as an unknown one.
  ...(["funding-status", "pool-info", "issue-bounty"] as const).flatMap((endpoint): Case[] => {
    const path = () =>
      endpoint === "funding-status"
        ? `/api/blockchain/repository/${CAROLS.id}/funding-status`
        : endpoint === "pool-info"
          ? `/api/blockchain/pool-info/${CAROLS.id}`
          : `/api/blockchain/issue-bounty/${CAROLS.id}/1`;
    return [
      { name: `${endpoint}: a private repository, anonymous`, method: "GET", path, as: () => undefined, status: 404 },
      { name: `${endpoint}: a private repository, someone who cannot see it`, method: "GET", path, as: () => bob, status: 404 },
    ];
  }),

  // POST /api/blockchain/register
  { name: "register: issueId letters", path: () => "/api/blockchain/register", body: () => ({ issueId: "abc", repoId: REPO.id }), as: () => bob, status: 400 },
  { name: "register: issueId negative", path: () => "/api/blockchain/register", body: () => ({ issueId: -1, repoId: REPO.id }), as: () => bob, status: 400 },
  { name: "register: issueId 2^256", path: () => "/api/blockchain/register", body: () => ({ issueId: 2 ** 256, repoId: REPO.id }), as: () => bob, status: 400 },
  { name: "register: issueId a fraction", path: () => "/api/blockchain/register", body: () => ({ issueId: 1.5, repoId: REPO.id }), as: () => bob, status: 400 },
  // JSON ids are JSON integers or canonical decimal strings, nothing a coercion would turn into issue #1 (finding 3).
  ...([true, "1.", "1.0000000000000000001", "1e2", "0x10", "01", " 1", [1], "1 "] as unknown[]).map((issueId) => ({
    name: `register: issueId ${JSON.stringify(issueId)}`,
    path: () => "/api/blockchain/register",
    body: () => ({ issueId, repoId: REPO.id }),
    as: () => bob,
    status: 400,
  })),
  { name: "register: repoId true", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: true }), as: () => bob, status: 400 },
  { name: "register: repoId missing and the issue unknown", path: () => "/api/blockchain/register", body: () => ({ issueId: 987654321 }), as: () => bob, status: 400, message: /send repoId as well/ },
  { name: "register: repoId an object", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: { id: 1 } }), as: () => bob, status: 400 },
  { name: "register: unknown repository", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: UNKNOWN_REPO }), as: () => bob, status: 404 },
  { name: "register: walletAddress a number", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: REPO.id, walletAddress: 42 }), as: () => bob, status: 400 },
  { name: "register: someone else's wallet", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: REPO.id, walletAddress: walletOf.alice }), as: () => bob, status: 403 },
  { name: "register: a malformed wallet", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: REPO.id, walletAddress: "0xnothex" }), as: () => bob, status: 403 },
  { name: "register: an issue that does not exist", path: () => "/api/blockchain/register", body: () => ({ issueId: 9_007_199_254_740_991, repoId: REPO.id }), as: () => bob, status: 404, message: /^Issue #9007199254740991 was not found in / },
  { name: "register: a closed issue", path: () => "/api/blockchain/register", body: () => ({ issueId: 6, repoId: REPO.id }), as: () => bob, status: 400, message: "Issue #6 is closed." },
  { name: "register: a pull request", path: () => "/api/blockchain/register", body: () => ({ issueId: 7, repoId: REPO.id }), as: () => bob, status: 400, message: "#7 is a pull request, not an issue." },
  { name: "register: a pool manager", path: () => "/api/blockchain/register", body: () => ({ issueId: 1, repoId: REPO.id }), as: () => alice, status: 403, message: "Please select your role as Pool Manager or Contributor" },
  ...bodyCases("register", () => "/api/blockchain/register").map((c) => ({ ...c, as: () => bob })),

  // POST /api/blockchain/repository/{repoId}/manager
  { name: "manager: walletAddress a number", path: () => managerPath(), body: () => ({ walletAddress: 1 }), status: 400 },
  { name: "manager: walletAddress over 64 characters", path: () => managerPath(), body: () => ({ walletAddress: "0x" + "a".repeat(63) }), status: 400 },
  { name: "manager: someone else's wallet", path: () => managerPath(), body: () => ({ walletAddress: walletOf.bob }), status: 403, message: "That wallet is not yours." },
  { name: "manager: a malformed wallet", path: () => managerPath(), body: () => ({ walletAddress: "xdc-nonsense" }), status: 403 },
  { name: "manager: githubId letters", path: () => managerPath(), body: () => ({ walletAddress: walletOf.alice, githubId: "abc" }), status: 400 },
  { name: "manager: someone else's githubId", path: () => managerPath(), body: () => ({ walletAddress: walletOf.alice, githubId: 1005 }), status: 403 },
  { name: "manager: someone else's username", path: () => managerPath(), body: () => ({ walletAddress: walletOf.alice, username: "erin" }), status: 403 },
  ...idCases("manager", "POST", (id) => managerPath(id), () => ({ walletAddress: walletOf.alice })),
  { name: "manager: unknown repository", path: () => managerPath(UNKNOWN_REPO), body: () => ({ walletAddress: walletOf.alice }), status: 404 },
  { name: "manager: someone else's repository", path: () => managerPath(DAVES.id), body: () => ({ walletAddress: walletOf.alice }), status: 403 },
  ...bodyCases("manager", () => managerPath()),

  // GET /api/blockchain/user/{id}/type and /wallet, GET /api/wallet/usdc-balance/{userId}
  ...userRefCases("user type", (id) => `/api/blockchain/user/${id}/type`),
  { name: "user type: someone else's wallet address", method: "GET", path: () => `/api/blockchain/user/${walletOf.bob}/type`, status: 404 },
  { name: "user type: someone else's username", method: "GET", path: () => `/api/blockchain/user/${bob.user.username}/type`, status: 404 },
  { name: "user type: not an address (39 hex digits)", method: "GET", path: () => `/api/blockchain/user/0x${"a".repeat(39)}/type`, status: 400 },
  { name: "user type: someone else's id", method: "GET", path: () => `/api/blockchain/user/${bob.user.id}/type`, status: 404 },
  ...userRefCases("user wallet", (id) => `/api/blockchain/user/${id}/wallet`),
  { name: "user wallet: someone else's id", method: "GET", path: () => `/api/blockchain/user/${bob.user.id}/wallet`, status: 404 },
  ...idCases("usdc-balance", "GET", (id) => `/api/wallet/usdc-balance/${id}`),
  { name: "usdc-balance: someone else's id", method: "GET", path: () => `/api/wallet/usdc-balance/${bob.user.id}`, status: 404 },

  // POST /api/wallet
  { name: "wallet: address a number", path: () => "/api/wallet", body: () => ({ address: 5 }), status: 400 },
  { name: "wallet: address missing", path: () => "/api/wallet", body: () => ({}), status: 400 },
  { name: "wallet: address malformed", path: () => "/api/wallet", body: () => ({ address: "xdc123" }), status: 400, message: "Enter a valid XDC address (xdc… or 0x…)." },
  { name: "wallet: address 2^256", path: () => "/api/wallet", body: () => ({ address: TWO_POW_256 }), status: 400 },
  { name: "wallet: someone else's address", path: () => "/api/wallet", body: () => ({ address: walletOf.bob }), status: 409 },
  { name: "wallet: malformed JSON", path: () => "/api/wallet", rawBody: "{", status: 400 },

  // Reads that take no input but the session: a forged session is no session.
  { name: "token balance: forged session", method: "GET", path: () => "/api/token/balance", as: () => forged(), status: 401 },
  { name: "roxn-allowance: forged session", method: "GET", path: () => "/api/blockchain/roxn-allowance", as: () => forged(), status: 401 },
  { name: "usdc-balance: forged session", method: "GET", path: () => `/api/wallet/usdc-balance/${alice.user.id}`, as: () => forged(), status: 401 },
];

/** A checksummed address with one letter's case flipped: the same hex, a wrong checksum. */
function badChecksum(address: string): string {
  const i = [...address].findIndex((ch, n) => n > 1 && /[a-fA-F]/.test(ch));
  const ch = address[i]!;
  return address.slice(0, i) + (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) + address.slice(i + 1);
}

/** Alice's browser with a session cookie the server never issued. */
const forged = (): TestSession => ({ ...alice, cookie: alice.cookie.replace(/=.*/, "=forged-session-token-0123456789abcdef") });

async function send(c: Case): Promise<Response> {
  const method = c.method ?? "POST";
  const as = c.as ? c.as() : alice;
  const headers: Record<string, string> = {};
  const idempotencyKey = c.idempotencyKey === undefined ? key() : c.idempotencyKey;
  if (method === "POST" && idempotencyKey !== null) headers["Idempotency-Key"] = idempotencyKey;
  if (c.rawBody !== undefined) {
    // By hand: `call` would send its own Content-Type.
    Object.assign(headers, {
      Accept: "application/json",
      "Content-Type": c.contentType ?? "application/json",
      Origin: new URL(stack.t.env.PUBLIC_URL).origin,
      ...(as ? { Cookie: as.cookie, "X-CSRF-Token": as.csrfToken, "X-Forwarded-For": as.ip } : {}),
    });
    return stack.t.app.request(c.path(), { method, headers, body: c.rawBody });
  }
  return call(stack.t, c.path(), { method, as, headers, body: method === "POST" ? (c.body?.() ?? {}) : undefined });
}

const nonceOf = (address: Address) => stack.t.ctx.chain.client.getTransactionCount({ address, blockTag: "pending" });
let outboxBefore: string;
let noncesBefore: number[];
const signers = () => [stack.t.ctx.chain.operator.address, walletOf.alice!, walletOf.bob!, walletOf.dave!];
const outboxDigest = async () =>
  JSON.stringify([
    await stack.t.ctx.database.db.select().from(chainTransactions).orderBy(chainTransactions.id),
    await stack.t.ctx.database.db.select().from(walletNonces).orderBy(walletNonces.key),
  ], (_k, v) => (typeof v === "bigint" ? v.toString() : v));

beforeAll(async () => {
  stack = await startTestStack();
  const signUp = async (login: string, role: "poolmanager" | "contributor") => {
    const session = await stack.signIn(login);
    const res = await call(stack.t, "/api/auth/register", { as: session, body: { role, email: `${login}@example.com` } });
    expect(res.status).toBe(200);
    session.user.role = role;
    const [wallet] = await stack.t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, session.user.id));
    walletOf[login] = wallet!.address as Address;
    return session;
  };
  alice = await signUp("alice", "poolmanager");
  bob = await signUp("bob", "contributor");
  dave = await signUp("dave", "poolmanager");
  for (const repo of [REPO, DAVES, CAROLS]) {
    const fullName = `${repo.owner}/${repo.name}`;
    await stack.t.ctx.database.db
      .insert(repositories)
      .values({ githubRepoId: repo.id, fullName, fullNameKey: fullName.toLowerCase(), owner: repo.owner, name: repo.name, htmlUrl: `${stack.github.webUrl}/${fullName}`, isPrivate: repo.private })
      .onConflictDoNothing();
  }
  await stack.chain.fund(walletOf.alice!, { xdc: "2000", roxn: "100" });
  await stack.chain.fund(walletOf.dave!, { xdc: "10" });

  // A funded pool with one open bounty, so every check before the transaction can be reached.
  const funded = await call(stack.t, fundPath(), { as: alice, body: fund({ amountXdc: "50" }), headers: { "Idempotency-Key": key() } });
  expect(funded.status).toBe(200);
  await stack.t.ctx.outbox.waitForSettled((await stack.t.ctx.database.db.select().from(chainTransactions)).at(-1)!.id, 10_000);
  const bounty = await call(stack.t, allocatePath(REPO.id, BOUNTY_ISSUE), { as: alice, body: allocate({ bountyAmount: "3" }), headers: { "Idempotency-Key": key() } });
  expect(bounty.status).toBe(200);
  expect((await bounty.json()).status).toBe("confirmed");

  outboxBefore = await outboxDigest();
  noncesBefore = await Promise.all(signers().map(nonceOf));
}, 60_000);
afterAll(() => stack?.stop());

describe("bad input on every money endpoint: 4xx with a clear message, never 500, nothing sent", () => {
  test.each(CASES.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const before = await databaseDigest(stack.t);
    const res = await send(c);
    const body = await res.json();
    const shape = { status: res.status, error: typeof body.error, message: typeof body.message, code: typeof body.code, requestId: typeof body.requestId };
    expect(shape).toEqual({ status: c.status, error: "string", message: "string", code: "string", requestId: "string" });
    expect(body.message.trim()).not.toBe("");
    if (typeof c.message === "string") expect(body.message).toBe(c.message);
    else if (c.message) expect(body.message).toMatch(c.message);
    expect(await databaseDigest(stack.t)).toBe(before);
  });

  test("after all of them: no transaction was queued or sent, no nonce was used", async () => {
    expect(CASES.length).toBeGreaterThan(200);
    expect(await outboxDigest()).toBe(outboxBefore);
    expect(await Promise.all(signers().map(nonceOf))).toEqual(noncesBefore);
  });
});

describe("a private repository's money, for those who can see it", () => {
  test("its owner (the app installed on it) reads the pool and the funding status; the answers are not cacheable by others", async () => {
    await stack.github.controls.install({ account: "carol", repositories: "all", sender: "carol" });
    const carol = await stack.signIn("carol");
    const pool = await call(stack.t, `/api/blockchain/pool-info/${CAROLS.id}`, { as: carol });
    expect(pool.status).toBe(200);
    expect(pool.headers.get("Cache-Control")).toBe("no-store");
    expect((await pool.json()).xdcPoolRewards).toBe("0");
    expect((await call(stack.t, `/api/blockchain/repository/${CAROLS.id}/funding-status`, { as: carol })).status).toBe(200);
    const bounty = await call(stack.t, `/api/blockchain/issue-bounty/${CAROLS.id}/1`, { as: carol });
    expect(bounty.status).toBe(404);
    expect((await bounty.json()).message).toBe("No bounty is assigned to this issue.");
  });
});
