/**
 * The backup drill (issue 41): work, `npm run backup`, more work (a payout
 * and a new wallet), stop, `npm run restore FILE`, start. Then every wallet
 * in the backup signs again with its old key (a funding and a send through
 * the restarted platform, confirmed on the chain), the mirror agrees with
 * the chain (the pool, the bounty paid after the backup, the one set after
 * it), and the restore report names the wallet that was lost.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { parseEther, type Address } from "viem";
import { join, resolve } from "node:path";
import { RepoRewardsAbi } from "../../contracts/artifacts/index.ts";
import { opsRestores, repositories, repositoryPools, bounties, wallets } from "../../db/schema/index.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { fixtureRepo } from "../../testing/dev-tools.ts";
import { eventually, startTestStack, type TestStack } from "../../testing/stack.ts";
import { makeTempDir } from "../../testing/context.ts";
import type { TestContext } from "../../testing/context.ts";
import { createMemoryLogger } from "../logger.ts";
import { startServer, type RunningServer } from "../server.ts";
import { withWalletAccount } from "../services/wallets/custodial.ts";
import type { RestoreReport } from "./restore-report.ts";

const REPO = fixtureRepo("issuepool-demo/xdc-wallet-kit")!;
const FULL_NAME = `${REPO.owner}/${REPO.name}`;
const ROOT = resolve(import.meta.dir, "../..");

let stack: TestStack;
let running: RunningServer | undefined;
let n = 0;
const key = () => `drill-${Date.now()}-${n++}`;

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(async () => {
  await running?.stop();
  await stack?.stop();
});

/** Runs one of the npm scripts' programs as `npm run` does, with only the settings they read. */
async function runCli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const proc = Bun.spawn([process.execPath, join(ROOT, "api/ops", script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out, err };
}

test("backup, more work, restore, start: the old wallets sign again, the mirror is the chain's, the lost wallet is named", async () => {
  const t = stack.t;
  const money = (tc: Pick<TestContext, "app" | "env">, session: TestSession, path: string, body: Record<string, unknown>) =>
    call(tc as TestContext, path, { as: session, body, headers: { "Idempotency-Key": key() } });
  const alice = await stack.signUp("alice", "poolmanager");
  const bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: "500" });
  await stack.chain.fund(bob.wallet, { xdc: "20" });
  await t.ctx.database.db
    .insert(repositories)
    .values({ githubRepoId: REPO.id, fullName: FULL_NAME, fullNameKey: FULL_NAME.toLowerCase(), owner: REPO.owner, name: REPO.name, htmlUrl: `${stack.github.webUrl}/${FULL_NAME}` })
    .onConflictDoNothing();
  expect((await money(t, alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "100", repositoryFullName: FULL_NAME })).status).toBe(200);
  const paidLater = Number((await stack.github.controls.openIssue({ repo: FULL_NAME, title: "Paid after the backup", author: "alice" })).issue.number);
  expect((await money(t, alice, `/api/blockchain/allocate-bounty/${REPO.id}/${paidLater}`, { githubRepoFullName: FULL_NAME, bountyAmount: "5", isRoxn: false })).status).toBe(200);
  await t.ctx.indexer.catchUp();

  // The backup, as `npm run backup` takes it, while the platform's database is open.
  const backupDir = await makeTempDir("issuepool-backups-");
  const settings = { DATA_DIR: t.env.DATA_DIR, DATABASE_URL: t.env.DATABASE_URL, BACKUP_DIR: backupDir, BACKUP_KEEP: "3" };
  const backup = await runCli("backup-cli.ts", ["--json"], settings);
  expect(backup.err).toBe("");
  expect(backup.code).toBe(0);
  const backupFile = (JSON.parse(backup.out) as { file: string }).file;
  const walletsInBackup = await t.ctx.database.db.select().from(wallets);
  expect(walletsInBackup.map((w) => w.address).sort()).toEqual([alice.wallet, bob.wallet].sort());

  // More work: a new wallet (carol signs up), a payout to it, a bounty set.
  const carol = await stack.signUp("carol", "contributor");
  const paid = await money(t, alice, `/api/blockchain/distribute-bounty/${REPO.id}/${paidLater}`, { contributorAddress: carol.wallet });
  expect(await paid.json()).toMatchObject({ status: "confirmed" });
  const setLater = Number((await stack.github.controls.openIssue({ repo: FULL_NAME, title: "Set after the backup", author: "alice" })).issue.number);
  expect((await money(t, alice, `/api/blockchain/allocate-bounty/${REPO.id}/${setLater}`, { githubRepoFullName: FULL_NAME, bountyAmount: "3", isRoxn: false })).status).toBe(200);
  expect(await stack.t.ctx.chain.client.getBalance({ address: carol.wallet })).toBe(parseEther("5"));

  // Stop, restore, start.
  const closeOnce = t.close;
  t.close = () => undefined;
  closeOnce();
  const restored = await runCli("restore-cli.ts", [backupFile], settings);
  expect(restored.err).toBe("");
  expect(restored.code).toBe(0);
  const log = createMemoryLogger("info");
  running = await startServer({ ...t.env, PORT: 0, BACKUP_INTERVAL_HOURS: 0 }, { site: false, log });
  const db = running.ctx.database.db;

  // The report, once the start-up check against the chain is done: carol's wallet is the one lost.
  const report = await eventually(async () => {
    const [row] = await db.select().from(opsRestores);
    return row?.status === "done" ? (JSON.parse(row.report!) as RestoreReport) : undefined;
  }, 60_000, "the restore report");
  expect(running.ctx.startup.state).toBe("done");
  expect(report.lostWallets.map((w) => w.address.toLowerCase())).toEqual([carol.wallet.toLowerCase()]);
  expect(report.lostWallets[0]!.seenIn.some((s) => s.event === "BountyPaid")).toBe(true);
  expect(report.summary).toContain(carol.wallet);
  // The operator signed the payout and the allocation after the backup: its outbox rows are gone, the chain counts them.
  expect(report.signersAhead.map((s) => s.address.toLowerCase())).toEqual([running.ctx.chain.operator.address.toLowerCase()]);
  expect(log.lines.some((l) => l.includes("restore report") && l.includes(carol.wallet))).toBe(true);

  // Every wallet of the backup opens with its old key...
  const restoredWallets = await db.select().from(wallets);
  expect(restoredWallets.map((w) => w.address).sort()).toEqual(walletsInBackup.map((w) => w.address).sort());
  for (const wallet of restoredWallets) expect(await withWalletAccount(running.ctx, wallet, async (account) => account.address)).toBe(wallet.address as Address);
  // ...and signs: alice funds the pool again, bob sends XDC, through the restarted platform (sessions of the backup).
  const app = { env: t.env, app: { request: (path: string, init?: RequestInit) => fetch(`${running!.url}${path}`, init) } } as unknown as TestContext;
  const minedFrom = async (res: Response) => {
    const body = (await res.json()) as { status: string; transactionHash: `0x${string}` };
    expect(res.status).toBe(200);
    expect(["pending", "confirmed"]).toContain(body.status);
    const receipt = await running!.ctx.chain.client.waitForTransactionReceipt({ hash: body.transactionHash, timeout: 30_000 });
    expect(receipt.status).toBe("success");
    return receipt.from.toLowerCase();
  };
  expect(await minedFrom(await money(app, alice, `/api/blockchain/repository/${REPO.id}/fund`, { amountXdc: "10", repositoryFullName: FULL_NAME }))).toBe(alice.wallet.toLowerCase());
  expect(await minedFrom(await money(app, bob, "/api/wallet/send", { token: "XDC", to: alice.wallet, amount: "1" }))).toBe(bob.wallet.toLowerCase());

  // The mirror is the chain's: the pool, the bounty paid after the backup, the one set after it.
  await running.ctx.indexer.catchUp();
  const rewards = running.ctx.chain.config.contracts.rewards;
  const [xdcPool] = await running.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getPool", args: [BigInt(REPO.id)] });
  const [pool] = await db.select().from(repositoryPools).where(and(eq(repositoryPools.githubRepoId, REPO.id), eq(repositoryPools.currency, "XDC")));
  expect(pool!.balance).toBe(xdcPool);
  for (const issue of [paidLater, setLater]) {
    const [, amount, status, recipient] = await running.ctx.chain.client.readContract({ address: rewards, abi: RepoRewardsAbi, functionName: "getBounty", args: [BigInt(REPO.id), BigInt(issue)] });
    const [mirrored] = await db.select().from(bounties).where(and(eq(bounties.githubRepoId, REPO.id), eq(bounties.issueNumber, issue)));
    expect(mirrored!.amount).toBe(amount);
    expect(mirrored!.status as string).toBe(["none", "open", "paid", "cancelled", "queued"][status]!);
    if (issue === paidLater) expect(mirrored!.recipient?.toLowerCase()).toBe(recipient.toLowerCase());
  }
}, 240_000);
