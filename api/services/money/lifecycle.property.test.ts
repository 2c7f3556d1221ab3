import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { and, eq, inArray } from "drizzle-orm";
import { erc20Abi, parseEventLogs, type Address } from "viem";
import { untilQuiet, eventually, startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { bounties, bountyAttempts, bountyBoosts, bountyClaims, cashouts, chainEvents, chainTransactions, confirmedUpiIds, LIVE_ATTEMPT_STATUSES, repositories, repositoryPools, webhookDeliveries, type Currency } from "../../../db/schema/index.ts";
import { anvilPrivateKey, startOnrampSimulator, type OnrampSimulator } from "../../../testing/dev-tools.ts";
import { startCashoutPasses, type CashoutPasses } from "../cashout/schedule.ts";
import { OPEN_STATUSES } from "../cashout/progress.ts";
import { RepoRewardsAbi } from "../../../contracts/artifacts/index.ts";
import { onChainPool } from "./bounty-lookups.ts";
import { refundDueBoosts } from "../funding/boost-refunds.ts";
import { settleBoosts } from "../funding/boost-mirror.ts";
import { releaseDueSplits } from "../splits/release.ts";
import { bountyStates } from "./bounty-state.ts";
import { expireLocks } from "../attempts/attempts.ts";
import { movedRepository } from "../repositories/former-names.ts";

/**
 * The money lifecycle as a property (issue 11), driven through the HTTP API
 * and the GitHub webhooks the emulator sends, never the contract directly:
 * random sequences of fund / allocate / register / close / reopen / merge /
 * release / cancel / withdraw / sign up, and (issue 29) boosts by two funders
 * (bob with an expiry, dave without) and the hourly refund pass after their
 * expiry, merges co-authored through `Co-authored-by:` trailers (the split's
 * release window, then its payout or its shares held for newcomers), and tips
 * (held in escrow for newcomers, paid when they sign up), in XDC, ROXN and
 * USDC, (issue 39) attempts on bounties made exclusive (held, queued, dropped, locks expired by the pass a week
 * on), and (issue 40) cash-outs to UPI through the on-ramp simulator, some
 * of whose payouts fail and are refunded. After each step, once the platform has
 * settled (webhooks processed, outbox empty, indexer caught up):
 * - the contract holds exactly the pools plus every bounty's pool share and
 *   funders' shares still owed (open: the whole bounty; cancelled: the
 *   funders' shares not yet refunded) and the escrowed tips, which is the
 *   contract's own `owed`;
 *   the platform's states split the open bounties into open, claimed,
 *   awaiting, held and community (funders' shares alone), nothing left over;
 * - nothing is paid twice (one BountyPaid per issue, one live payout row),
 *   and each funder got back exactly what their refunded boosts hold; a split
 *   payout's shares sum to the bounty paid, one each; a tip is paid once;
 * - the database's mirror (pools with their locked pool's shares, bounties as
 *   docs/design.md defines their amount, the funders' active shares) equals
 *   the chain.
 * Runs are kept small (a loaded 2-core machine, ~1-2 minutes).
 */
let stack: TestStack;
let alice: TestSession & { wallet: Address };
let bob: TestSession & { wallet: Address };
let dave: TestSession & { wallet: Address };
/** How far the runs moved the chain's clock ahead of this machine's (expiries are on the chain's clock). */
let chainAheadMs = 0;
const DAY = 24 * 3600_000;
/** The split release window (short, so a run's "release" command can pass it). */
const WINDOW_MS = 60_000;
/** The emulator's GitHub ids, for co-authors' no-reply addresses. */
const GITHUB_IDS: Record<string, number> = { carol: 1003, dave: 1004, erin: 1005, frank: 1006 };
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };
/** The names a "rename" command moves the repository between on GitHub (issue 39: bounties survive renames). */
const NAMES = [LITE.fullName, "alice/xdc-explorer-renamed"] as const;
/** The repository's name on GitHub now: every command uses it, as a client that reloaded the page would. */
let repoName: string = LITE.fullName;
const CURRENCIES: Currency[] = ["XDC", "ROXN", "USDC"];
/** GitHub users with no Issuepool account at the start: merges and releases to them are held until they sign up. */
const NEWCOMERS = ["frank", "erin", "carol"];
const signedUp = new Set<string>();
/** What the runs reached (states, answers): printed, so a run that exercised little shows. */
const seen = new Set<string>();
/** Every issue a run created: the invariants cover all of them. */
const issues: number[] = [];
let n = 0;
const key = () => `lifecycle-${n++}-${Date.now()}`;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": key() } });

let simulator: OnrampSimulator;
let cashoutPasses: CashoutPasses;
const ONRAMP_SECRET = "lifecycle-onramp-secret-0123456789";

beforeAll(async () => {
  stack = await startTestStack({
    workers: true,
    env: async (url, chain) => {
      // The on-ramp simulator's sell side, for cash-outs to UPI (issue 40).
      simulator = await startOnrampSimulator({ appId: "lifecycle", appSecret: ONRAMP_SECRET, webhookUrl: `${url}/api/webhooks/onramp`, rpcUrl: chain.anvil.rpcUrl, providerKey: anvilPrivateKey(9), usdcAddress: chain.deployment.usdc });
      return { SPLIT_RELEASE_WINDOW_MS: String(WINDOW_MS), ONRAMP_APP_ID: "lifecycle", ONRAMP_APP_SECRET: ONRAMP_SECRET, ONRAMP_URL: simulator.url, ONRAMP_API_URL: simulator.url, CASHOUT_POLL_INTERVAL_MS: "500" };
    },
  });
  cashoutPasses = startCashoutPasses(stack.t.ctx, { pollIntervalMs: 500, minAgeMs: 500 });
  alice = await stack.signUp("alice", "poolmanager");
  bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "5000", roxn: "5000", usdc: "5000" });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  const installationId = (installed.installation as { id: number }).id;
  expect((await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId } })).status).toBe(200);
  expect((await (await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: repoName } })).json()).success).toBe(true);
  for (const token of ["roxn", "usdc"]) {
    expect((await money(alice, `/api/blockchain/approve-${token}`, { amount: "5000" })).status).toBe(200);
  }
  // The funders: bob (also the contributor) and dave, in all three currencies.
  dave = await stack.signUp("dave", "contributor");
  // Their cash-outs' UPI ids were confirmed with an e-mailed code before (the codes: api/routes/wallet/cashout-codes.test.ts).
  for (const funder of [bob, dave]) {
    for (const upiId of ["payee@upi", "failure@upi"]) await stack.t.ctx.database.db.insert(confirmedUpiIds).values({ userId: funder.user.id, upiId, via: "cashout" });
  }
  for (const funder of [bob, dave]) {
    await stack.chain.fund(funder.wallet, { xdc: "500", roxn: "500", usdc: "500" });
    for (const token of ["roxn", "usdc"]) expect((await money(funder, `/api/blockchain/approve-${token}`, { amount: "500" })).status).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await cashoutPasses?.stop();
  await stack?.stop();
  await simulator?.stop();
});

// ---- commands ----
const currency = fc.constantFrom<Currency>(...CURRENCIES);
const slot = fc.nat({ max: 1 }); // which of the run's two issues: few, so commands meet the same bounty
const Command = fc.oneof(
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fund" as const), currency, amount: fc.constantFrom("2", "5.5") as fc.Arbitrary<string> }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("allocate" as const), slot, currency, amount: fc.constantFrom("1", "1.5", "3") }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("register" as const), slot }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("close" as const), slot, reason: fc.constantFrom("completed" as const, "not_planned" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reopen" as const), slot }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("merge" as const), slot, author: fc.constantFrom("bob", ...NEWCOMERS), coAuthor: fc.constantFrom(null, null, "dave", "erin", "carol") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("releaseSplits" as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tip" as const), from: fc.constantFrom("bob" as const, "dave" as const), to: fc.constantFrom("alice", ...NEWCOMERS), currency, amount: fc.constantFrom("1", "2") }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), slot, to: fc.constantFrom("bob", ...NEWCOMERS) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), slot }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("withdraw" as const), currency, amount: fc.constantFrom("0.5", "1") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("signUp" as const), login: fc.constantFrom(...NEWCOMERS) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("boost" as const), slot, funder: fc.constantFrom("bob" as const, "dave" as const), currency, amount: fc.constantFrom("1", "2.5") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("expire" as const) }) },
  // Attempts (issue 39): the bounty made exclusive, attempts that hold or queue, dropped ones, locks past their time.
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("exclusive" as const), slot }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("attempt" as const), slot, who: fc.constantFrom("bob" as const, "dave" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("unattempt" as const), slot, who: fc.constantFrom("bob" as const, "dave" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("expireLocks" as const) }) },
  // The repository renamed on GitHub between the other steps (issue 39): nothing of its money may notice.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("rename" as const) }) },
  // Issue 40: a funder cashes out to UPI; the simulator's sandbox fails the payout to `failure@upi` (refunded).
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cashout" as const), from: fc.constantFrom("bob" as const, "dave" as const), currency: fc.constantFrom("XDC" as const, "USDC" as const), amount: fc.constantFrom("1", "2"), upiId: fc.constantFrom("payee@upi", "failure@upi") }) },
);
type Command = typeof Command extends fc.Arbitrary<infer T> ? T : never;

async function run(command: Command, runIssues: number[]): Promise<void> {
  const issueAt = async (i: number) => {
    while (runIssues.length <= i) {
      const opened = await stack.github.controls.openIssue({ repo: repoName, title: `Lifecycle ${runIssues.length} ${Date.now()}`, author: "alice" });
      const number = (opened.issue as { number: number }).number;
      runIssues.push(number);
      issues.push(number);
    }
    return runIssues[i]!;
  };
  switch (command.kind) {
    case "fund": {
      const res =
        command.currency === "XDC"
          ? await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: command.amount, repositoryFullName: repoName })
          : await money(alice, `/api/blockchain/fund-${command.currency.toLowerCase()}/${LITE.id}`, {
              [`${command.currency.toLowerCase()}Amount`]: command.amount,
              repositoryFullName: repoName,
            });
      expect(res.status, await res.clone().text()).toBe(200);
      return;
    }
    case "allocate": {
      const res = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${await issueAt(command.slot)}`, {
        bountyAmount: command.amount,
        currency: command.currency,
        githubRepoFullName: repoName,
      });
      // Refused when the pool is short, the issue closed or a bounty already set: never a 5xx.
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`allocate ${res.status}`);
      return;
    }
    case "register": {
      const res = await call(stack.t, "/api/blockchain/register", { as: bob, body: { issueId: await issueAt(command.slot), repoId: LITE.id } });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`register ${res.status}`);
      return;
    }
    case "close":
    case "reopen": {
      const number = await issueAt(command.slot);
      const issue = await (await fetch(`${stack.github.apiUrl}/repos/${repoName}/issues/${number}`)).json();
      if (command.kind === "close" && issue.state === "open") await stack.github.controls.closeIssue({ repo: repoName, number, reason: command.reason, actor: "alice" });
      if (command.kind === "reopen" && issue.state === "closed") await stack.github.controls.reopenIssue({ repo: repoName, number, actor: "alice" });
      return;
    }
    case "merge": {
      const number = await issueAt(command.slot);
      const coAuthor = "coAuthor" in command ? command.coAuthor : null;
      const commits = coAuthor ? [{ message: `Fix\n\nCo-authored-by: ${coAuthor} <${GITHUB_IDS[coAuthor]}+${coAuthor}@users.noreply.github.com>` }] : undefined;
      const pr = await stack.github.controls.openPullRequest({ repo: repoName, author: command.author, title: `Fix #${number}`, body: `Fixes #${number}`, head: `${command.author}:fix-${key()}`, ...(commits ? { commits } : {}) });
      await stack.github.controls.mergePullRequest({ repo: repoName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
      return;
    }
    case "release": {
      const res = await money(alice, `/api/blockchain/distribute-bounty/${LITE.id}/${await issueAt(command.slot)}`, { contributorLogin: command.to, githubRepoFullName: repoName });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`release ${res.status}`);
      return;
    }
    case "cancel": {
      const res = await money(alice, `/api/blockchain/cancel-bounty/${LITE.id}/${await issueAt(command.slot)}`, { githubRepoFullName: repoName });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`cancel ${res.status}`);
      return;
    }
    case "withdraw": {
      const res = await money(alice, `/api/blockchain/repository/${LITE.id}/withdraw`, { currency: command.currency, amount: command.amount, repositoryFullName: repoName });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`withdraw ${res.status}`);
      return;
    }
    case "boost": {
      // bob's boosts expire two days on (a later one extends his share's expiry); dave's never do.
      const expiresAt = command.funder === "bob" ? new Date(Date.now() + chainAheadMs + 2 * DAY).toISOString() : undefined;
      const res = await call(stack.t, `/api/funding/issues/alice/xdc-explorer-lite/${await issueAt(command.slot)}/boosts`, {
        as: command.funder === "bob" ? bob : dave,
        body: { currency: command.currency, amount: command.amount, ...(expiresAt ? { expiresAt } : {}) },
        headers: { "Idempotency-Key": key() },
      });
      // Refused when the issue is closed, the bounty paid or in another currency: never a 5xx.
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`boost ${res.status}`);
      return;
    }
    case "expire": {
      // Three days on, by the chain's clock; then the hourly pass.
      await stack.chain.rpc("evm_increaseTime", [3 * 24 * 3600]);
      await stack.chain.rpc("evm_mine");
      chainAheadMs += 3 * DAY;
      seen.add(`expiry refunds ${await refundDueBoosts(stack.t.ctx, Date.now() + chainAheadMs)}`);
      return;
    }
    case "releaseSplits": {
      // The release pass once every open window has passed.
      seen.add(`splits released ${await releaseDueSplits(stack.t.ctx, { now: Date.now() + WINDOW_MS + 1000, owner: "test" })}`);
      return;
    }
    case "tip": {
      const res = await call(stack.t, "/api/tips", { as: command.from === "bob" ? bob : dave, body: { login: command.to, amount: command.amount, currency: command.currency }, headers: { "Idempotency-Key": key() } });
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`tip ${res.status}${res.ok ? ` ${(await res.json()).status}` : ""}`);
      return;
    }
    case "exclusive": {
      const res = await call(stack.t, `/api/attempts/${LITE.id}/issues/${await issueAt(command.slot)}/settings`, { method: "PUT", as: alice, body: { mode: "exclusive", audience: null, lockDays: 7 } });
      expect(res.status, await res.clone().text()).toBe(200);
      return;
    }
    case "attempt": {
      const res = await call(stack.t, "/api/blockchain/register", { as: command.who === "bob" ? bob : dave, body: { issueId: await issueAt(command.slot), repoId: LITE.id } });
      // Refused at a limit or on a closed issue: never a 5xx.
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      seen.add(`attempt ${res.status}${res.ok ? ` ${(await res.json()).attempt?.status ?? "working"}` : ""}`);
      return;
    }
    case "unattempt": {
      const res = await call(stack.t, `/api/attempts/${LITE.id}/issues/${await issueAt(command.slot)}`, { method: "DELETE", as: command.who === "bob" ? bob : dave });
      expect([200, 404]).toContain(res.status);
      seen.add(`unattempt ${res.status}`);
      return;
    }
    case "rename": {
      const next = repoName === NAMES[0] ? NAMES[1] : NAMES[0];
      await stack.github.controls.renameRepository({ repo: repoName, name: next.split("/")[1]! });
      repoName = next;
      seen.add("renamed");
      return;
    }
    case "expireLocks": {
      // A week and a day on, by the platform's clock: every lock without a linked pull request is released.
      const moved = await expireLocks(stack.t.ctx, Date.now() + 8 * DAY);
      seen.add(`locks expired ${moved.expired} kept ${moved.kept}`);
      return;
    }
    case "cashout": {
      const as = command.from === "bob" ? bob : dave;
      const quoted = await call(stack.t, "/api/wallet/cashout/quote", { as, body: { currency: command.currency, amount: command.amount } });
      expect(quoted.status, await quoted.clone().text()).toBeLessThan(500);
      if (!quoted.ok) return void seen.add(`cashout quote ${quoted.status}`);
      const confirmed = await call(stack.t, "/api/wallet/cashout", { as, body: { quoteId: (await quoted.json()).id, upiId: command.upiId } });
      expect(confirmed.status, await confirmed.clone().text()).toBeLessThan(500);
      seen.add(`cashout ${confirmed.status}`);
      return;
    }
    case "signUp": {
      if (signedUp.has(command.login)) return;
      signedUp.add(command.login);
      await stack.signUp(command.login, "contributor");
      return;
    }
  }
}

/** Webhooks processed, the outbox empty, the indexer caught up: the state every check reads. */
async function settle() {
  const db = stack.t.ctx.database.db;
  await untilQuiet(stack).then(() =>
    // Cash-outs run to their end: completed, refunded (the crypto back), or cancelled (nothing sent); never open.
    eventually(async () => {
      await cashoutPasses.runOnce();
      return (await db.select({ id: cashouts.id }).from(cashouts).where(inArray(cashouts.status, OPEN_STATUSES))).length === 0 ? true : undefined;
    }, 60_000, "cash-outs ended"),
  ).catch(async (err) => {
    // Say what is stuck.
    const stuckTxs = await db.select().from(chainTransactions).where(inArray(chainTransactions.status, ["queued", "signed", "sent"]));
    const stuckDeliveries = await db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.status, ["pending", "processing"]));
    throw new Error(`${(err as Error).message}: ${JSON.stringify({ txs: stuckTxs.map((t) => ({ kind: t.kind, status: t.status, issue: t.issueNumber, intent: t.intent })), deliveries: stuckDeliveries.map((d) => ({ event: d.event, status: d.status, error: (d as { lastError?: string }).lastError })) })}`);
  });
  await stack.t.ctx.indexer.catchUp();
}

const STATUS = ["none", "open", "paid", "cancelled", "queued"] as const;

async function checkInvariants() {
  const { ctx } = stack.t;
  const db = ctx.database.db;
  const contract = ctx.chain.config.contracts.rewards;
  await settleBoosts(ctx);
  const held: Record<Currency, bigint> = {
    XDC: await ctx.chain.client.getBalance({ address: contract }),
    ROXN: await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.roxn, abi: erc20Abi, functionName: "balanceOf", args: [contract] }),
    USDC: await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.usdc, abi: erc20Abi, functionName: "balanceOf", args: [contract] }),
  };
  const pool = await onChainPool(ctx, LITE.id);
  /** Open and queued bounties (pool's share + funders' shares), and cancelled bounties' funders' shares not yet refunded. */
  const owedByBounties: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
  const openOnChain: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
  const lockedOfPool: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
  const byState: Record<string, Record<Currency, bigint>> = {};
  const mirrorRows = await db.select().from(bounties).where(eq(bounties.githubRepoId, LITE.id));
  const boostRows = await db.select().from(bountyBoosts).where(eq(bountyBoosts.githubRepoId, LITE.id));
  const stateOf = await bountyStates(ctx, mirrorRows);
  for (const number of issues) {
    const d = await ctx.chain.client.readContract({ address: contract, abi: RepoRewardsAbi, functionName: "getBountyDetails", args: [BigInt(LITE.id), BigInt(number)] });
    const status = STATUS[d.status]!;
    const currency = CURRENCIES[d.currency]!;
    const mirror = mirrorRows.find((b) => b.issueNumber === number);
    // The mirror equals the chain (bounties.amount: the pool's share while open, the whole payout once paid). A
    // bounty the pool has no share in this round (boosts alone, or a round after the pool's bounty ended) has no
    // row, or the row of the pool's ended bounty.
    const pooledRound = mirror && !(mirror.status === "cancelled" && status !== "cancelled");
    if (status === "none") expect(mirror).toBeUndefined();
    else if (!pooledRound) expect({ number, poolShare: d.poolShare }).toEqual({ number, poolShare: 0n });
    else {
      const amount = status === "open" ? d.poolShare : status === "cancelled" ? mirror!.amount : d.amount;
      expect({ number, status: mirror!.status, amount: mirror!.amount, currency: mirror!.currency }).toEqual({ number, status, amount, currency });
    }
    if (status === "open" || status === "queued") {
      owedByBounties[currency] += d.amount;
      lockedOfPool[currency] += d.poolShare;
    }
    if (status === "cancelled") owedByBounties[currency] += d.boosted;
    if (status === "open") {
      openOnChain[currency] += d.amount;
      const state = pooledRound && mirror!.status === "open" ? stateOf(mirror!).state : "community";
      expect(["open", "claimed", "awaiting", "held", "releasing", "community"]).toContain(state);
      (byState[state] ??= { XDC: 0n, ROXN: 0n, USDC: 0n })[currency] += d.amount;
      seen.add(state);
    } else seen.add(status);
    // The funders' mirror: the active (or refunding) shares are what the contract still holds for them.
    const mine = boostRows.filter((b) => b.issueNumber === number);
    const live = mine.filter((b) => b.status === "active" || b.status === "refunding").reduce((sum, b) => sum + b.amount, 0n);
    if (status === "open" || status === "queued" || status === "cancelled") expect({ number, funders: live }).toEqual({ number, funders: d.boosted });
    if (status === "paid") expect({ number, funders: live }).toEqual({ number, funders: 0n });
    // Nothing paid twice.
    const paid = await db.select().from(chainEvents).where(and(eq(chainEvents.name, "BountyPaid"), eq(chainEvents.repoId, LITE.id), eq(chainEvents.issueNumber, number)));
    expect(paid.length).toBeLessThanOrEqual(1);
    const livePayouts = await db
      .select()
      .from(chainTransactions)
      .where(and(eq(chainTransactions.kind, "pay_bounty"), eq(chainTransactions.githubRepoId, LITE.id), eq(chainTransactions.issueNumber, number), eq(chainTransactions.status, "confirmed")));
    expect(livePayouts.length).toBeLessThanOrEqual(1);
    // A split payout: one share per recipient (paid, or held in escrow for a newcomer's GitHub id), summing to the bounty paid.
    const shares = await db.select().from(chainEvents).where(and(inArray(chainEvents.name, ["BountySharePaid", "BountyShareHeld"]), eq(chainEvents.repoId, LITE.id), eq(chainEvents.issueNumber, number)));
    if (shares.length) {
      const args = shares.map((e) => JSON.parse(e.args) as { recipient?: string; githubUserId?: string; amount: string });
      expect(new Set(args.map((a) => a.recipient?.toLowerCase() ?? `github:${a.githubUserId}`)).size).toBe(args.length);
      expect(args.reduce((sum, a) => sum + BigInt(a.amount), 0n)).toBe(BigInt((JSON.parse(paid[0]!.args) as { amount: string }).amount));
      seen.add(shares.some((e) => e.name === "BountyShareHeld") ? "split paid with a held share" : "split paid");
    }
    // Each funder got back exactly what their refunded boosts hold, never more.
    const refunds = await db.select().from(chainEvents).where(and(eq(chainEvents.name, "BoostRefunded"), eq(chainEvents.repoId, LITE.id), eq(chainEvents.issueNumber, number)));
    for (const funder of new Set(mine.map((b) => b.funderAddress.toLowerCase()))) {
      const back = refunds.filter((e) => (JSON.parse(e.args) as { funder: string }).funder.toLowerCase() === funder).reduce((sum, e) => sum + BigInt((JSON.parse(e.args) as { amount: string }).amount), 0n);
      const refunded = mine.filter((b) => b.funderAddress.toLowerCase() === funder && b.status === "refunded").reduce((sum, b) => sum + b.amount, 0n);
      expect({ number, funder, back }).toEqual({ number, funder, back: refunded });
    }
  }
  // Cash-outs (issue 40): each ended completed or refunded (or cancelled with nothing sent), sent once; a completed one's
  // exact amount sits at its deposit address, a refunded one's came back to the wallet in its refund transaction.
  for (const row of await db.select().from(cashouts)) {
    expect(["completed", "refunded", "cancelled"]).toContain(row.status);
    seen.add(`cashout ${row.status}`);
    const sends = await db.select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `cashout:${row.id}`));
    expect(sends.length).toBeLessThanOrEqual(1);
    if (row.status !== "cancelled") expect(sends[0]?.status).toBe("confirmed");
    const deposit = row.depositAddress as Address | null;
    if (row.status === "completed") {
      const at = row.currency === "XDC"
        ? await ctx.chain.client.getBalance({ address: deposit! })
        : await ctx.chain.client.readContract({ address: ctx.chain.config.contracts.usdc, abi: erc20Abi, functionName: "balanceOf", args: [deposit!] });
      expect({ id: row.id, at }).toEqual({ id: row.id, at: row.amount });
    }
    if (row.status === "refunded") {
      const receipt = await ctx.chain.client.getTransactionReceipt({ hash: row.refundTxHash as `0x${string}` });
      const back = row.currency === "XDC"
        ? (await ctx.chain.client.getTransaction({ hash: row.refundTxHash as `0x${string}` })).value
        : parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter((l) => l.args.to.toLowerCase() === row.walletAddress.toLowerCase()).reduce((sum, l) => sum + l.args.value, 0n);
      expect({ id: row.id, back }).toEqual({ id: row.id, back: row.amount });
    }
  }
  // Escrowed tips (held for a GitHub user, or queued to their wallet); each paid at most once.
  const escrowedTips: Record<Currency, bigint> = { XDC: 0n, ROXN: 0n, USDC: 0n };
  const tipCount = (await ctx.chain.client.readContract({ address: contract, abi: RepoRewardsAbi, functionName: "nextTipId" })) as bigint;
  for (let id = 1n; id <= tipCount; id++) {
    const tip = await ctx.chain.client.readContract({ address: contract, abi: RepoRewardsAbi, functionName: "getTip", args: [id] });
    if (tip.status === 1 || tip.status === 2) escrowedTips[CURRENCIES[tip.currency]!] += tip.amount;
    seen.add(`tip status ${tip.status}`);
  }
  // Renames (issue 39): the stored repository follows GitHub's name, and the other name (once it was one) means it.
  const [stored] = await db.select({ fullName: repositories.fullName }).from(repositories).where(eq(repositories.githubRepoId, LITE.id));
  expect(stored?.fullName).toBe(repoName);
  if (seen.has("renamed")) expect((await movedRepository(ctx, NAMES.find((name) => name !== repoName)!))?.githubRepoId).toBe(LITE.id);
  // Attempts (issue 39): one holder at most per issue, nobody queued behind no holder, one live attempt per person and
  // issue, every holder and open-mode worker in bounty_claims, nobody over the limit of places.
  const liveAttempts = await db.select().from(bountyAttempts).where(and(eq(bountyAttempts.githubRepoId, LITE.id), inArray(bountyAttempts.status, [...LIVE_ATTEMPT_STATUSES])));
  const claims = await db.select().from(bountyClaims).where(eq(bountyClaims.githubRepoId, LITE.id));
  for (const number of new Set(liveAttempts.map((a) => a.issueNumber))) {
    const on = liveAttempts.filter((a) => a.issueNumber === number);
    const holders = on.filter((a) => a.status === "holding");
    expect({ number, holders: holders.length }).toEqual({ number, holders: Math.min(holders.length, 1) });
    if (on.some((a) => a.status === "queued")) expect({ number, queuedBehind: holders.length }).toEqual({ number, queuedBehind: 1 });
    expect(new Set(on.map((a) => a.userId)).size).toBe(on.length);
    for (const a of on.filter((x) => x.status === "holding" || x.status === "working")) {
      expect({ number, user: a.userId, claimed: claims.some((c) => c.issueNumber === number && c.userId === a.userId) }).toEqual({ number, user: a.userId, claimed: true });
    }
    seen.add(holders.length ? (on.some((a) => a.status === "queued") ? "held with a queue" : "held") : "attempted");
  }
  for (const userId of new Set(liveAttempts.map((a) => a.userId))) {
    expect(liveAttempts.filter((a) => a.userId === userId && a.status !== "working").length).toBeLessThanOrEqual(3);
  }
  const tipsPaid = (await db.select().from(chainEvents).where(eq(chainEvents.name, "TipPaid"))).map((e) => (JSON.parse(e.args) as { tipId: string }).tipId);
  expect(new Set(tipsPaid).size).toBe(tipsPaid.length);
  for (const c of CURRENCIES) {
    // The contract holds the pools, the bounties and the funders' shares it owes, the escrowed tips, and nothing else (fees left at funding time).
    expect({ c, held: held[c] }).toEqual({ c, held: pool[c] + owedByBounties[c] + escrowedTips[c] });
    const owed = await ctx.chain.client.readContract({ address: contract, abi: RepoRewardsAbi, functionName: "owed", args: [CURRENCIES.indexOf(c)] });
    expect({ c, owed }).toEqual({ c, owed: held[c] });
    // The platform's states account for every open bounty, each in one state.
    const split = Object.values(byState).reduce((sum, s) => sum + s[c], 0n);
    expect(split).toBe(openOnChain[c]);
    const [mirrorPool] = await db.select().from(repositoryPools).where(and(eq(repositoryPools.githubRepoId, LITE.id), eq(repositoryPools.currency, c)));
    expect(mirrorPool?.balance ?? 0n).toBe(pool[c]);
    expect({ c, locked: mirrorPool?.allocated ?? 0n }).toEqual({ c, locked: lockedOfPool[c] });
  }
}

test("any sequence of fund, allocate, register, close, reopen, merge (co-authored or not), release, cancel, withdraw, sign-up, boosts, expiries, split releases, tips, cash-outs, attempts (exclusive locks, queues, drops, expiries) and renames keeps the money accounted for and one holder per bounty", async () => {
  // Some money in each pool to start, so allocations are not all refused.
  for (const [c, amount] of [["XDC", "20"], ["ROXN", "20"], ["USDC", "20"]] as const) await run({ kind: "fund", currency: c, amount }, []);
  await settle();
  await checkInvariants();
  // One sequence every run goes through: the pool manager cancels the pool's part of a boosted bounty (the funders'
  // shares stay: a community bounty on the pool's row), another funder adds to it, a merged fix pays it all.
  const prelude: Command[] = [
    { kind: "allocate", slot: 0, currency: "XDC", amount: "1.5" },
    { kind: "boost", slot: 0, funder: "bob", currency: "XDC", amount: "1" },
    { kind: "cancel", slot: 0 },
    { kind: "boost", slot: 0, funder: "dave", currency: "XDC", amount: "2.5" },
    { kind: "merge", slot: 0, author: "bob", coAuthor: null },
    // An exclusive bounty (issue 39): bob holds it, dave queues, bob's lock expires and dave holds it, dave drops it.
    { kind: "allocate", slot: 1, currency: "XDC", amount: "1" },
    { kind: "exclusive", slot: 1 },
    { kind: "attempt", slot: 1, who: "bob" },
    { kind: "attempt", slot: 1, who: "dave" },
    { kind: "expireLocks" },
    { kind: "unattempt", slot: 1, who: "dave" },
    // Renamed on GitHub, then a bounty set and a fix merged under the new name: paid as before the rename.
    { kind: "rename" },
    { kind: "allocate", slot: 2, currency: "XDC", amount: "1" },
    { kind: "merge", slot: 2, author: "bob", coAuthor: null },
  ];
  const preludeIssues: number[] = [];
  for (const command of prelude) {
    await run(command, preludeIssues);
    await settle();
    await checkInvariants();
  }
  for (const reached of ["attempt 200 holding", "attempt 200 queued", "held with a queue", "locks expired 1 kept 0", "unattempt 200", "renamed"]) expect([...seen]).toContain(reached);
  const [afterRename] = await stack.t.ctx.database.db.select().from(bounties).where(and(eq(bounties.githubRepoId, LITE.id), eq(bounties.issueNumber, preludeIssues[2]!)));
  expect({ status: afterRename?.status, repository: repoName }).toEqual({ status: "paid", repository: NAMES[1] });
  const [preludeRow] = await stack.t.ctx.database.db.select().from(bounties).where(and(eq(bounties.githubRepoId, LITE.id), eq(bounties.issueNumber, preludeIssues[0]!)));
  // Paid the whole: bob's and dave's shares (the pool's share went back to the pool).
  expect({ status: preludeRow?.status, amount: preludeRow?.amount }).toEqual({ status: "paid", amount: 995_000_000_000_000_000n + 2_487_500_000_000_000_000n });
  let steps = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(Command, { minLength: 4, maxLength: 12 }), async (commands) => {
      const runIssues: number[] = [];
      for (const command of commands) {
        await run(command, runIssues);
        await settle();
        await checkInvariants();
        steps++;
      }
    }),
    { numRuns: 25, endOnFailure: true, ...(process.env.LIFECYCLE_SEED ? { seed: Number(process.env.LIFECYCLE_SEED) } : {}) },
  );
  console.log(`lifecycle property: ${steps} steps over ${issues.length} issues; reached ${[...seen].sort().join(", ")}`);
  expect(steps).toBeGreaterThan(0);
}, 300_000);
