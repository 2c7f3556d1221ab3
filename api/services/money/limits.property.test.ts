import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { formatEther, parseEther, type Address } from "viem";
import { startTestStack, type TestStack } from "../../../testing/stack.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { fixtureRepo } from "../../../testing/dev-tools.ts";
import { rateLimits, repositories } from "../../../db/schema/index.ts";

/**
 * The daily funding limits as a property (issue 37, item 2), over HTTP against the real stack (anvil, the
 * contracts, the GitHub emulator, the outbox): random sequences of XDC pool fundings (alice and dave, into
 * repositories they administer, one of them both), XDC boosts (alice, dave, bob) and XDC sends, with the
 * platform's clock moving (AppContext.clock, frozen and moved by the test: hours on, or to exactly a reset time or
 * 1 ms before it). After every step, for every user and repository:
 * - every figure the API shows (funding-status signed in and out with its two limits and which binds, the funding
 *   terms' funder figure the boost dialog shows, GET /api/wallet/limits) equals a model the test keeps of what it
 *   was accepted (the rule of docs/api.md, "Daily funding limits", written out independently);
 * - one wei more than each remaining figure (or the minimum, when less is left) is refused with 429
 *   `limit_exceeded`, naming the binding limit, what is left and when it grows;
 * and each step's answer is the model's: a funding or boost of exactly the figure shown is accepted, one above it
 * refused, sends count nowhere.
 * Balances are far above the limits, so a limit is the only thing that refuses. Rate-limit counters are cleared
 * after each step (the probes would exceed the boost route's 30 per user per 15 minutes; they are not under test).
 */
let stack: TestStack;
const XDC = 10n ** 18n;
const DAY = 24 * 3600_000;
const LIMIT = 1000n * XDC;
const ONE = XDC;

type Login = "alice" | "dave" | "bob";
const LOGINS: Login[] = ["alice", "dave", "bob"];
const REPOS = {
  kit: fixtureRepo("issuepool-demo/xdc-wallet-kit")!,
  audit: fixtureRepo("issuepool-demo/contract-audit-tools")!,
  hello: fixtureRepo("dave/hello-xdc")!,
};
type RepoKey = keyof typeof REPOS;
/** Who administers what (dave is made an admin of the kit too, so two funders share its limit). */
const MANAGES: Record<Login, RepoKey[]> = { alice: ["kit", "audit"], dave: ["kit", "hello"], bob: [] };
const users = {} as Record<Login, TestSession & { wallet: Address }>;
let boostIssue = 0;
let n = 0;
const key = () => `limits-prop-${n++}-${Date.now()}`;
const fullName = (r: RepoKey) => `${REPOS[r].owner}/${REPOS[r].name}`;
const STRANGER = "0x00000000000000000000000000000000000b0b0b";

// ---- the clock and the model ----

let clockNow = 0;
interface Entry { user: Login; repo: RepoKey | null; value: bigint; at: number }
const ledger: Entry[] = [];
interface Figure { used: bigint; remaining: bigint; resetsAt: number | null }
function figureOf(entries: Entry[]): Figure {
  const live = entries.filter((e) => e.at > clockNow - DAY);
  const used = live.reduce((sum, e) => sum + e.value, 0n);
  const oldest = live.reduce<number | null>((min, e) => (min === null || e.at < min ? e.at : min), null);
  return { used, remaining: used >= LIMIT ? 0n : LIMIT - used, resetsAt: oldest === null ? null : oldest + DAY };
}
const repoFigure = (r: RepoKey) => figureOf(ledger.filter((e) => e.repo === r));
const funderFigure = (u: Login) => figureOf(ledger.filter((e) => e.user === u));
/** A funding's binding figure: the smaller remaining; on a tie the one that grows last; then the repository's. */
function fundingFigure(u: Login, r: RepoKey): Figure & { scope: "repository" | "funder" } {
  const repo = { ...repoFigure(r), scope: "repository" as const };
  const funder = { ...funderFigure(u), scope: "funder" as const };
  const grows = (f: Figure) => f.resetsAt ?? Number.NEGATIVE_INFINITY;
  return funder.remaining < repo.remaining || (funder.remaining === repo.remaining && grows(funder) > grows(repo)) ? funder : repo;
}

// ---- requests ----

const get = async (path: string, as?: Login) => {
  const res = await call(stack.t, path, as ? { as: users[as] } : {});
  expect(res.status, path).toBe(200);
  return res.json();
};
const fund = (u: Login, r: RepoKey, amount: bigint) =>
  call(stack.t, `/api/blockchain/repository/${REPOS[r].id}/fund`, { as: users[u], body: { amountXdc: formatEther(amount), repositoryFullName: fullName(r) }, headers: { "Idempotency-Key": key() } });
const boost = (u: Login, amount: bigint) =>
  call(stack.t, `/api/funding/issues/${REPOS.kit.owner}/${REPOS.kit.name}/${boostIssue}/boosts`, { as: users[u], body: { currency: "XDC", amount: formatEther(amount) }, headers: { "Idempotency-Key": key() } });
const send = (u: Login, amount: bigint) =>
  call(stack.t, "/api/wallet/send", { as: users[u], body: { token: "XDC", to: STRANGER, amount: formatEther(amount) }, headers: { "Idempotency-Key": key() } });

/** A 429 `limit_exceeded` that names `figure` (what is left, when it grows, which limit). */
async function expectRefused(res: Response, figure: Figure & { scope: string }, what: string) {
  const body = await res.json();
  expect({ what, status: res.status, code: body.code }).toEqual({ what, status: 429, code: "limit_exceeded" });
  expect(body.error).toBe("Exceeds daily funding limit");
  expect(body.message).toMatch(/^Daily funding limit reached\. Remaining: [\d,]+\.\d{4} XDC\. Limit resets at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
  expect({ what, remaining: parseEther(body.details.remainingLimit), limit: body.details.limit, resets: Date.parse(body.details.limitResetTime) }).toEqual({
    what,
    remaining: figure.remaining,
    limit: figure.scope,
    resets: figure.resetsAt ?? clockNow + DAY,
  });
  expect(Number(res.headers.get("Retry-After"))).toBe(Math.max(1, Math.ceil(((figure.resetsAt ?? clockNow + DAY) - clockNow) / 1000)));
}

const figureJson = (f: Figure, scope: string) => ({
  scope,
  dailyLimitXdc: "1000",
  usedXdc: formatEther(f.used),
  remainingXdc: formatEther(f.remaining),
  resetsAt: f.resetsAt === null ? null : new Date(f.resetsAt).toISOString(),
});
/** The most the next request of a kind is refused at: one wei over what is left, or the minimum's first refusable amount. */
const justOver = (remaining: bigint, minimum: bigint) => (remaining + 1n > minimum ? remaining + 1n : minimum);

/** Every figure the API shows equals the model's, and one wei more than each is refused with limit_exceeded. */
async function checkEveryFigure(step: string) {
  for (const r of Object.keys(REPOS) as RepoKey[]) {
    const anonymous = await get(`/api/blockchain/repository/${REPOS[r].id}/funding-status`);
    const repo = repoFigure(r);
    expect({ step, repo: r, remaining: anonymous.remainingLimitXdc, used: anonymous.currentTotalXdc, limits: anonymous.limits }).toEqual({
      step,
      repo: r,
      remaining: formatEther(repo.remaining),
      used: formatEther(repo.used),
      limits: { repository: figureJson(repo, "repository"), funder: null, binding: "repository" },
    });
  }
  for (const u of LOGINS) {
    const funder = funderFigure(u);
    const terms = await get("/api/funding/terms", u);
    expect({ step, u, figure: terms.funderLimit }).toEqual({ step, u, figure: figureJson(funder, "funder") });
    const wallet = await get("/api/wallet/limits", u);
    expect({ step, u, wallet }).toEqual({
      step,
      u,
      wallet: { usedAmount: Number(formatEther(funder.used)), remainingLimit: Number(formatEther(funder.remaining)), dailyLimit: 1000, resetTime: funder.resetsAt },
    });
    await expectRefused(await boost(u, justOver(funder.remaining, ONE)), { ...funder, scope: "funder" }, `${step}: ${u} boosts one wei more`);
    for (const r of MANAGES[u]) {
      const status = await get(`/api/blockchain/repository/${REPOS[r].id}/funding-status`, u);
      const binding = fundingFigure(u, r);
      expect({ step, u, r, remaining: status.remainingLimitXdc, windowEndTime: status.windowEndTime, limits: status.limits }).toEqual({
        step,
        u,
        r,
        remaining: formatEther(binding.remaining),
        windowEndTime: binding.resetsAt === null ? null : new Date(binding.resetsAt).toISOString(),
        limits: { repository: figureJson(repoFigure(r), "repository"), funder: figureJson(funder, "funder"), binding: binding.scope },
      });
      await expectRefused(await fund(u, r, justOver(binding.remaining, ONE + 1n)), binding, `${step}: ${u} funds ${r} one wei more`);
    }
  }
}

// ---- steps ----

/** How a step picks its amount: exactly what is shown, one wei more, a part of it, or anything. */
const AmountMode = fc.oneof(
  fc.constant({ mode: "exact" as const }),
  fc.constant({ mode: "over" as const }),
  fc.record({ mode: fc.constant("part" as const), permille: fc.integer({ min: 1, max: 999 }), wei: fc.bigInt({ min: 0n, max: 10n ** 18n }) }),
  fc.record({ mode: fc.constant("any" as const), amount: fc.bigInt({ min: ONE, max: 1200n * XDC }) }),
);
type AmountMode = typeof AmountMode extends fc.Arbitrary<infer T> ? T : never;
const funder = fc.constantFrom<Login>("alice", "dave");
const Step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("fund" as const), user: funder, slot: fc.nat({ max: 1 }), amount: AmountMode }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("boost" as const), user: fc.constantFrom(...LOGINS), amount: AmountMode }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("send" as const), user: fc.constantFrom(...LOGINS), amount: fc.bigInt({ min: XDC / 10n, max: 40n * XDC }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 30 * 3600_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("toReset" as const), pick: fc.nat(), early: fc.boolean() }) },
);
type Step = typeof Step extends fc.Arbitrary<infer T> ? T : never;

const amountFor = (mode: AmountMode, shown: bigint) =>
  mode.mode === "exact" ? shown : mode.mode === "over" ? shown + 1n : mode.mode === "part" ? (shown * BigInt(mode.permille)) / 1000n + mode.wei : mode.amount;

const seen = new Set<string>();

async function run(step: Step): Promise<string> {
  switch (step.kind) {
    case "fund": {
      const r = MANAGES[step.user][step.slot]!;
      const binding = fundingFigure(step.user, r);
      const amount = amountFor(step.amount, binding.remaining);
      const label = `${step.user} funds ${r} ${formatEther(amount)} (${step.amount.mode}, ${formatEther(binding.remaining)} shown)`;
      const res = await fund(step.user, r, amount);
      if (amount <= ONE) {
        expect({ label, status: res.status }).toEqual({ label, status: 400 });
        seen.add("fund below the minimum");
      } else if (amount > binding.remaining) {
        await expectRefused(res, binding, label);
        seen.add(`fund refused by the ${binding.scope} limit`);
      } else {
        expect({ label, status: res.status, body: res.status === 200 ? null : await res.json() }).toEqual({ label, status: 200, body: null });
        ledger.push({ user: step.user, repo: r, value: amount, at: clockNow });
        seen.add(amount === binding.remaining ? `fund of exactly the ${binding.scope} figure` : "fund");
      }
      return label;
    }
    case "boost": {
      const figure = { ...funderFigure(step.user), scope: "funder" };
      const amount = amountFor(step.amount, figure.remaining);
      const label = `${step.user} boosts ${formatEther(amount)} (${step.amount.mode}, ${formatEther(figure.remaining)} shown)`;
      const res = await boost(step.user, amount);
      if (amount < ONE) {
        expect({ label, status: res.status }).toEqual({ label, status: 400 });
        seen.add("boost below the minimum");
      } else if (amount > figure.remaining) {
        await expectRefused(res, figure, label);
        seen.add("boost refused");
      } else {
        expect({ label, status: res.status, body: res.status === 200 ? null : await res.json() }).toEqual({ label, status: 200, body: null });
        ledger.push({ user: step.user, repo: null, value: amount, at: clockNow });
        seen.add(amount === figure.remaining ? "boost of exactly the figure" : "boost");
      }
      return label;
    }
    case "send": {
      const label = `${step.user} sends ${formatEther(step.amount)}`;
      const res = await send(step.user, step.amount);
      expect({ label, status: res.status, body: res.status === 200 ? null : await res.json() }).toEqual({ label, status: 200, body: null });
      seen.add("send");
      return label;
    }
    case "tick":
      clockNow += step.ms;
      return `the clock moves ${step.ms} ms`;
    case "toReset": {
      // Exactly when an amount leaves its window (or 1 ms before): the boundary the figures and the refusals name.
      const resets = [...new Set(ledger.map((e) => e.at + DAY))].filter((at) => at - (step.early ? 1 : 0) > clockNow).sort((a, b) => a - b);
      if (resets.length === 0) return "no reset ahead";
      clockNow = resets[step.pick % resets.length]! - (step.early ? 1 : 0);
      seen.add(step.early ? "1 ms before a reset" : "exactly at a reset");
      return `the clock moves to ${step.early ? "1 ms before " : ""}a reset`;
    }
  }
}

beforeAll(async () => {
  stack = await startTestStack({ workers: true });
  clockNow = Date.now();
  stack.t.ctx.clock = { now: () => clockNow };
  users.alice = await stack.signUp("alice", "poolmanager");
  users.dave = await stack.signUp("dave", "poolmanager");
  users.bob = await stack.signUp("bob", "contributor");
  await stack.github.controls.setCollaborator({ repo: fullName("kit"), login: "dave", permission: "admin" });
  for (const r of Object.keys(REPOS) as RepoKey[]) {
    const repo = REPOS[r];
    await stack.t.ctx.database.db
      .insert(repositories)
      .values({ githubRepoId: repo.id, fullName: fullName(r), fullNameKey: fullName(r).toLowerCase(), owner: repo.owner, name: repo.name, htmlUrl: `${stack.github.webUrl}/${fullName(r)}` })
      .onConflictDoNothing();
  }
  for (const u of LOGINS) await stack.chain.fund(users[u].wallet, { xdc: "200000" });
  const opened = await stack.github.controls.openIssue({ repo: fullName("kit"), title: "Limits: the issue everyone boosts", author: "alice" });
  boostIssue = Number((opened.issue as { number: number }).number);
}, 120_000);
afterAll(() => stack?.stop());

/**
 * A fixed start that reaches what random runs may miss: the repository's limit binding one funder (dave) while the
 * funder's own binds another (alice, after a boost), each funded to exactly its figure, a boost of exactly the
 * figure, a send, and the clock at 1 ms before and exactly at a reset.
 */
const PRELUDE: Step[] = [
  { kind: "fund", user: "dave", slot: 0, amount: { mode: "any", amount: 600n * XDC } },
  { kind: "boost", user: "alice", amount: { mode: "any", amount: 700n * XDC + 7n } },
  { kind: "fund", user: "alice", slot: 0, amount: { mode: "over" } }, // alice's own 300 − 7 wei binds, not the kit's 400
  { kind: "fund", user: "alice", slot: 0, amount: { mode: "exact" } },
  { kind: "tick", ms: 3_600_000 },
  { kind: "fund", user: "dave", slot: 0, amount: { mode: "over" } }, // the kit's 100 + 7 wei binds, not dave's 400
  { kind: "fund", user: "dave", slot: 0, amount: { mode: "exact" } },
  { kind: "fund", user: "dave", slot: 1, amount: { mode: "exact" } },
  { kind: "boost", user: "bob", amount: { mode: "exact" } },
  { kind: "send", user: "alice", amount: 5n * XDC },
  { kind: "toReset", pick: 0, early: true }, // 1 ms before the first amounts leave: everything still counts
  { kind: "boost", user: "alice", amount: { mode: "any", amount: XDC } }, // nothing left: the minimum boost is refused
  { kind: "toReset", pick: 0, early: false }, // they leave: the kit 900 − 7 wei left, dave 600, alice 1000
  { kind: "fund", user: "dave", slot: 0, amount: { mode: "exact" } },
];

test("every limit figure shown is the largest amount the next request is accepted with; one wei more is refused", async () => {
  let steps = 0;
  for (const step of PRELUDE) {
    const label = await run(step);
    await stack.t.ctx.database.db.delete(rateLimits);
    await checkEveryFigure(`prelude: ${label}`);
    steps++;
  }
  await fc.assert(
    fc.asyncProperty(fc.array(Step, { minLength: 3, maxLength: 10 }), async (run_) => {
      // Each run starts after every earlier amount has left its window.
      clockNow += DAY + 1;
      for (const step of run_) {
        const label = await run(step);
        await stack.t.ctx.database.db.delete(rateLimits);
        await checkEveryFigure(label);
        steps++;
      }
    }),
    { numRuns: 10, endOnFailure: true, ...(process.env.LIMITS_SEED ? { seed: Number(process.env.LIMITS_SEED) } : {}) },
  );
  console.log(`limits property: ${steps} steps, ${ledger.length} accepted; reached ${[...seen].sort().join(", ")}`);
  expect(steps).toBeGreaterThan(0);
  for (const reached of [
    "fund of exactly the repository figure",
    "fund of exactly the funder figure",
    "fund refused by the funder limit",
    "fund refused by the repository limit",
    "boost of exactly the figure",
    "boost refused",
    "send",
    "1 ms before a reset",
    "exactly at a reset",
  ]) {
    expect([...seen]).toContain(reached);
  }
}, 600_000);
