/**
 * Demo data for the embedded default, put on the chain the way users would:
 * demo users register (custodial wallets), their wallets get test XDC, ROXN
 * and USDC, the GitHub App is installed on the demo accounts, repositories
 * are registered, and pools are funded and bounties set through the real
 * contracts and the transaction outbox. Idempotent: users, wallets and
 * repositories are found again, transactions are keyed, so a restart on the
 * same data adds nothing.
 */
import { eq } from "drizzle-orm";
import { encodeFunctionData, erc20Abi, parseUnits, type Address } from "viem";
import type { AppContext } from "../api/context.ts";
import { bountyClaims, githubInstallations, repositories, users, type Currency, type Role } from "../db/schema/index.ts";
import { RepoRewardsAbi } from "../contracts/artifacts/index.ts";
import { DECIMALS } from "../lib/money.ts";
import { registerUser } from "../api/services/users/register.ts";
import { walletOfUser } from "../api/services/wallets/custodial.ts";
import { ensurePoolManager } from "../api/services/money/access.ts";
import { CURRENCY_INDEX, MAX_FUNDING_FEE_BPS } from "../api/services/money/rules.ts";
import type { GitHubEmulator } from "./github-emulator/index.ts";
import { FIXTURE_REPOS, FIXTURE_USERS, fixtureRepo } from "./github-emulator/fixture.ts";

const DAY_MS = 24 * 3600 * 1000;

/** Who is registered, with which role and starting funds (spec: the demo wallet starts at 2000 XDC). */
export const DEMO_USERS: { login: string; role: Role; funds: { xdc: string; roxn?: string; usdc?: string } }[] = [
  { login: "alice", role: "poolmanager", funds: { xdc: "2000", roxn: "10000", usdc: "500" } },
  { login: "erin", role: "poolmanager", funds: { xdc: "25" } },
  { login: "bob", role: "contributor", funds: { xdc: "10" } },
  { login: "carol", role: "contributor", funds: { xdc: "10" } },
];

/** Registered repositories and what their pools and bounties start with. */
export const DEMO_REPOSITORIES: {
  fullName: string;
  registeredDaysAgo: number;
  funding: { currency: Currency; amount: string }[];
  bounties: { issue: number; currency: Currency; amount: string }[];
}[] = [
  {
    fullName: "issuepool-demo/xdc-wallet-kit",
    registeredDaysAgo: 30,
    funding: [
      { currency: "XDC", amount: "500" },
      { currency: "ROXN", amount: "5000" },
    ],
    bounties: [
      { issue: 1, currency: "XDC", amount: "25" },
      { issue: 2, currency: "XDC", amount: "50" },
      { issue: 4, currency: "ROXN", amount: "150" },
    ],
  },
  {
    fullName: "issuepool-demo/contract-audit-tools",
    registeredDaysAgo: 20,
    funding: [{ currency: "ROXN", amount: "800" }],
    bounties: [{ issue: 1, currency: "ROXN", amount: "200" }],
  },
  {
    fullName: "alice/xdc-explorer-lite",
    registeredDaysAgo: 7,
    funding: [{ currency: "XDC", amount: "300" }],
    bounties: [{ issue: 2, currency: "XDC", amount: "15" }],
  },
  { fullName: "issuepool-demo/roxn-sdk", registeredDaysAgo: 2, funding: [], bounties: [] },
  // Plans from the AI scoping agent become funded issues here (e2e/scoping.e2e.ts).
  { fullName: "issuepool-demo/tool-library", registeredDaysAgo: 1, funding: [{ currency: "USDC", amount: "100" }], bounties: [] },
];

export interface SeedChain {
  /** Gives a wallet test XDC, ROXN and USDC (anvil_setBalance and minting). */
  fund(address: Address, amounts: { xdc?: string; roxn?: string; usdc?: string }): Promise<void>;
}

export async function seedDemo(ctx: AppContext, deps: { github: GitHubEmulator; chain: SeedChain; log?: (m: string) => void }): Promise<void> {
  const log = deps.log ?? (() => {});
  const db = ctx.database.db;

  // 1. Users and their custodial wallets; test funds only when the wallet is created.
  const ids = new Map<string, number>();
  for (const demo of DEMO_USERS) {
    const fixture = FIXTURE_USERS.find((u) => u.login === demo.login)!;
    const [existing] = await db.select().from(users).where(eq(users.githubId, fixture.id));
    const user =
      existing ??
      (
        await db
          .insert(users)
          .values({
            githubId: fixture.id,
            username: fixture.login,
            name: fixture.name,
            email: fixture.email,
            bio: fixture.bio ?? null,
            location: fixture.location ?? null,
            website: fixture.blog ?? null,
            avatarUrl: `${ctx.env.GITHUB_URL}/avatars/u/${fixture.id}?v=4`,
          })
          .returning()
      )[0]!;
    ids.set(demo.login, user.id);
    if (!(await walletOfUser(db, user.id))) await registerUser(ctx, { user, role: demo.role, email: fixture.email });
    const wallet = (await walletOfUser(db, user.id))!;
    // Test funds when the wallet has never been used on this chain: on its creation, and again on a new chain (the
    // local chain's state lost, issue 24), where the wallet kept in the database would otherwise have nothing.
    if (await neverUsedOnChain(ctx, wallet.address as Address)) {
      await deps.chain.fund(wallet.address as Address, demo.funds);
      log(`seeded ${demo.login} (${demo.role}) with ${demo.funds.xdc} XDC`);
    }
  }
  const alice = ids.get("alice")!;
  const aliceWallet = (await walletOfUser(db, alice))!;

  // 2. The GitHub App on the demo accounts, as a maintainer would install it.
  const installed = new Map<string, number>();
  for (const account of ["issuepool-demo", "alice"]) {
    const [row] = await db.select().from(githubInstallations).where(eq(githubInstallations.accountLogin, account));
    if (row && !row.deletedAt) {
      installed.set(account, row.installationId);
      continue;
    }
    const { installation } = await deps.github.controls.install({ account, repositories: "all", sender: "alice" });
    const inst = installation as { id: number; account: { id: number; login: string; type: string }; repository_selection: string };
    await db
      .insert(githubInstallations)
      .values({ installationId: inst.id, accountId: inst.account.id, accountLogin: inst.account.login, accountType: inst.account.type, repositorySelection: inst.repository_selection })
      .onConflictDoNothing();
    installed.set(account, inst.id);
  }

  // 3. Repositories, pools and bounties, through the contracts.
  const now = Date.now();
  for (const demo of DEMO_REPOSITORIES) {
    const repo = fixtureRepo(demo.fullName)!;
    const registeredAt = new Date(now - demo.registeredDaysAgo * DAY_MS);
    await db
      .insert(repositories)
      .values({
        githubRepoId: repo.id,
        fullName: demo.fullName,
        fullNameKey: demo.fullName.toLowerCase(),
        owner: repo.owner,
        name: repo.name,
        description: repo.description,
        htmlUrl: `${ctx.env.GITHUB_URL}/${demo.fullName}`,
        isPrivate: repo.private,
        stars: repo.stars,
        forks: repo.forks,
        // What Explore filters by (issue 38: the demo's bounties had no language or labels).
        language: repo.language,
        installationId: installed.get(repo.owner) ?? null,
        registeredByUserId: alice,
        registeredAt,
        // Written now: the kept public list catches up on rows by this time (registeredAt tells the demo's story).
        updatedAt: new Date(),
        githubCreatedAt: new Date(now - repo.createdDaysAgo * DAY_MS),
        githubUpdatedAt: registeredAt,
        defaultBranch: "main",
      })
      .onConflictDoNothing();
    if (demo.funding.length === 0) continue;
    await ensurePoolManager(ctx, repo.id, aliceWallet.address as Address);

    for (const { currency, amount } of demo.funding) {
      const value = parseUnits(amount, DECIMALS[currency]);
      const key = `seed:fund:${repo.id}:${currency}`;
      if (currency !== "XDC") {
        await settle(ctx, {
          userId: alice,
          idempotencyKey: `${key}:approve`,
          request: { key },
          kind: "approve_roxn",
          intent: { currency, amount: value.toString() },
          signer: { kind: "wallet", wallet: aliceWallet },
          to: currency === "ROXN" ? ctx.chain.config.contracts.roxn : ctx.chain.config.contracts.usdc,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [ctx.chain.config.contracts.rewards, value] }),
        });
      }
      await settle(ctx, {
        userId: alice,
        idempotencyKey: key,
        request: { key },
        kind: currency === "XDC" ? "fund_xdc" : "fund_roxn",
        githubRepoId: repo.id,
        intent: { repoId: repo.id, fullName: demo.fullName, currency, amount: value.toString() },
        signer: { kind: "wallet", wallet: aliceWallet },
        to: ctx.chain.config.contracts.rewards,
        value: currency === "XDC" ? value : 0n,
        data:
          currency === "XDC"
            ? encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolXdc", args: [BigInt(repo.id), MAX_FUNDING_FEE_BPS] })
            : encodeFunctionData({ abi: RepoRewardsAbi, functionName: "fundPoolToken", args: [BigInt(repo.id), CURRENCY_INDEX[currency], value, MAX_FUNDING_FEE_BPS] }),
      });
    }
    for (const bounty of demo.bounties) {
      const issue = repo.issues.find((i) => i.number === bounty.issue)!;
      const value = parseUnits(bounty.amount, DECIMALS[bounty.currency]);
      await settle(ctx, {
        userId: alice,
        idempotencyKey: `seed:bounty:${repo.id}:${bounty.issue}`,
        request: { repo: repo.id, issue: bounty.issue },
        kind: "allocate_bounty",
        githubRepoId: repo.id,
        issueNumber: bounty.issue,
        intent: {
          repoId: repo.id,
          issueNumber: bounty.issue,
          currency: bounty.currency,
          amount: value.toString(),
          issueTitle: issue.title,
          issueUrl: `${ctx.env.GITHUB_URL}/${demo.fullName}/issues/${bounty.issue}`,
          issueLabels: issue.labels,
        },
        signer: { kind: "operator" },
        to: ctx.chain.config.contracts.rewards,
        data: encodeFunctionData({
          abi: RepoRewardsAbi,
          functionName: "allocateBounty",
          args: [BigInt(repo.id), BigInt(bounty.issue), CURRENCY_INDEX[bounty.currency], value],
        }),
      });
    }
  }

  // 4. Bob works on xdc-wallet-kit #1; his open PR (#7, "Fixes #1") pays him when merged in the emulator.
  await db.insert(bountyClaims).values({ githubRepoId: fixtureRepo("issuepool-demo/xdc-wallet-kit")!.id, issueNumber: 1, userId: ids.get("bob")! }).onConflictDoNothing();

  await ctx.indexer.catchUp();
  ctx.changes.publish(["repositories", ...FIXTURE_REPOS.map((r) => `repo:${r.id}`)]);
}

async function neverUsedOnChain(ctx: AppContext, address: Address): Promise<boolean> {
  const [nonce, balance] = await Promise.all([ctx.chain.client.getTransactionCount({ address }), ctx.chain.client.getBalance({ address })]);
  return nonce === 0 && balance === 0n;
}

async function settle(ctx: AppContext, request: Parameters<AppContext["outbox"]["submit"]>[0]): Promise<void> {
  const { tx } = await ctx.outbox.submit(request);
  const done = await ctx.outbox.waitForSettled(tx, 30_000);
  if (done.status !== "confirmed") throw new Error(`seed transaction ${request.idempotencyKey} ended ${done.status}: ${done.error ?? ""}`);
}
