/**
 * Webhook fan-out benchmark (not a test): `bun scripts/bench/webhook-fanout.ts [merges] [endpoints]`.
 *
 * Issue 30, item 6: "webhook fan-out to 1,000 endpoints never delays a payout (measure merge → paid with and
 * without it)". The whole platform runs in this process as the embedded default does: anvil, the GitHub
 * emulator, the outbox, the indexer and the webhook worker. `merges` (default 10) bountied issues are fixed by
 * merged pull requests, one after another, first with no endpoints, then with `endpoints` (default 1,000)
 * endpoints on the repository and the outbound worker delivering to a local receiver (every bounty makes three
 * events, so 3,000 signed deliveries per merge). For each merge it measures from the merge to the bounty
 * mirrored as paid, and prints p50/max for both phases, how many messages were delivered and how long the
 * receiver took to get them all.
 */
import { isNull, sql } from "drizzle-orm";
import { startTestStack } from "../../testing/stack.ts";
import { call, type TestSession } from "../../testing/auth.ts";
import { bounties, bountyEvents, webhookEndpoints } from "../../db/schema/index.ts";
import { sealText } from "../../api/crypto/envelope.ts";
import { newEndpointSecret } from "../../api/services/notify/signing.ts";
import { percentile } from "./lib.ts";

const MERGES = Number(process.argv[2] ?? 10);
const ENDPOINTS = Number(process.argv[3] ?? 1_000);
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

// The integrators' receiver runs in its own process, as their servers would: it answers 204 and counts.
const receiverProc = Bun.spawn(
  [
    process.execPath,
    "-e",
    `let n = 0; const s = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(r) { if (r.method === "GET") return new Response(String(n)); await r.arrayBuffer(); n++; return new Response(null, { status: 204 }); } }); console.log(s.port);`,
  ],
  { stdout: "pipe", stderr: "inherit" },
);
const receiverPort = await (async () => {
  const reader = receiverProc.stdout.getReader();
  let seen = "";
  while (!/\d+\n/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the receiver did not start");
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return Number(seen.trim());
})();
const delivered = async () => Number(await (await fetch(`http://127.0.0.1:${receiverPort}/`)).text());
const stack = await startTestStack({ workers: true, env: { OUTBOUND_ALLOW_LOOPBACK: "true", LOG_LEVEL: "warn" } });
let n = 0;
const money = (s: TestSession, path: string, body: Record<string, unknown>) => call(stack.t, path, { as: s, body, headers: { "Idempotency-Key": `fanout-${n++}-${Date.now()}` } });

try {
  const alice = await stack.signUp("alice", "poolmanager");
  const bob = await stack.signUp("bob", "contributor");
  await stack.chain.fund(alice.wallet, { xdc: String(10 + MERGES * 4) });
  const installed = await stack.github.controls.install({ account: "alice", repositories: "all", sender: "alice" });
  await call(stack.t, "/api/github/app/finalize-installation", { as: alice, body: { installationId: (installed.installation as { id: number }).id } });
  await call(stack.t, "/api/repositories/register", { as: alice, body: { githubRepoId: LITE.id, githubRepoFullName: LITE.fullName } });
  const funded = await money(alice, `/api/blockchain/repository/${LITE.id}/fund`, { amountXdc: String(MERGES * 3), repositoryFullName: LITE.fullName });
  if (funded.status !== 200) throw new Error(`funding: ${funded.status} ${await funded.text()}`);

  /** One bountied issue fixed by a merge; the time from the merge to the bounty mirrored as paid. */
  async function mergeToPaid(label: string): Promise<number> {
    const opened = await stack.github.controls.openIssue({ repo: LITE.fullName, title: `${label} ${n}`, author: "alice" });
    const issue = (opened.issue as { number: number }).number;
    const allocated = await money(alice, `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "1", currency: "XDC", githubRepoFullName: LITE.fullName });
    if (allocated.status !== 200) throw new Error(`allocate: ${allocated.status} ${await allocated.text()}`);
    await call(stack.t, "/api/blockchain/register", { as: bob, body: { role: "contributor", issueId: issue, repoId: LITE.id } });
    const pr = await stack.github.controls.openPullRequest({ repo: LITE.fullName, author: "bob", title: `Fixes #${issue}`, body: `Fixes #${issue}`, head: `bob:${label}-${issue}` });
    const started = performance.now();
    await stack.github.controls.mergePullRequest({ repo: LITE.fullName, number: (pr.pull_request as { number: number }).number, actor: "alice" });
    for (;;) {
      const [row] = await stack.t.ctx.database.db.select({ status: bounties.status }).from(bounties).where(sql`${bounties.githubRepoId} = ${LITE.id} and ${bounties.issueNumber} = ${issue}`);
      if (row?.status === "paid") return performance.now() - started;
      if (performance.now() - started > 120_000) throw new Error(`issue ${issue} not paid within 120 s`);
      await Bun.sleep(10);
    }
  }

  // The outbound worker runs in both phases, as in production; in the first it has no endpoint to deliver to.
  stack.t.ctx.outbound.start(100);
  const without: number[] = [];
  for (let i = 0; i < MERGES; i++) without.push(await mergeToPaid("plain"));

  // Phase one's events are fanned out (to nobody) before the endpoints exist.
  while ((await stack.t.ctx.database.db.select({ id: bountyEvents.id }).from(bountyEvents).where(isNull(bountyEvents.fannedOutAt))).length) await Bun.sleep(50);
  const rows = [];
  for (let i = 0; i < ENDPOINTS; i++) {
    const id = `ep_bench${i}`;
    rows.push({
      id,
      userId: alice.user.id,
      githubRepoId: LITE.id,
      kind: "standard" as const,
      url: `http://127.0.0.1:${receiverPort}/hook/${i}`,
      events: JSON.stringify(["bounty.created", "bounty.claimed", "bounty.paid"]),
      secretSealed: await sealText(stack.t.ctx.keyring, newEndpointSecret(), `webhook-endpoint:${id}`),
    });
  }
  for (let i = 0; i < rows.length; i += 100) await stack.t.ctx.database.db.insert(webhookEndpoints).values(rows.slice(i, i + 100));
  const fanStarted = performance.now();
  const withFanOut: number[] = [];
  for (let i = 0; i < MERGES; i++) withFanOut.push(await mergeToPaid("fanout"));
  const expected = MERGES * 3 * ENDPOINTS;
  while ((await delivered()) < expected && performance.now() - fanStarted < 600_000) await Bun.sleep(100);
  const drainMs = performance.now() - fanStarted;
  await stack.t.ctx.outbound.stop();

  const line = (label: string, values: number[]) =>
    `  ${label.padEnd(34)} p50 ${percentile([...values].sort((a, b) => a - b), 50).toFixed(0).padStart(5)} ms   max ${Math.max(...values).toFixed(0).padStart(5)} ms   (${values.map((v) => v.toFixed(0)).join(", ")})`;
  console.log(`webhook fan-out bench: ${MERGES} merges each way, ${ENDPOINTS} endpoints on the repository (everything in one process, 2 shared cores)`);
  console.log(line("merge -> paid, no endpoints", without));
  console.log(line(`merge -> paid, ${ENDPOINTS} endpoints`, withFanOut));
  console.log(`  ratio p50 with/without: ${(percentile([...withFanOut].sort((a, b) => a - b), 50) / percentile([...without].sort((a, b) => a - b), 50)).toFixed(2)}`);
  const got = await delivered();
  console.log(`  deliveries: ${got} of ${expected} received, in ${(drainMs / 1000).toFixed(1)} s from the first fanned-out merge (${((got / drainMs) * 1000).toFixed(0)}/s)`);
} finally {
  await stack.stop();
  receiverProc.kill();
}
process.exit(0);
