/**
 * Issue 36's four attacks replayed from outside against a running platform (a fresh `npm start`, or any
 * development stack with the GitHub emulator and a local chain), over HTTP only, as the security review tried
 * them:
 *   bun scripts/probes/payout-attacks.ts [http://localhost:3000] [http://localhost:3001] [chain rpc url]
 * It signs in as the demo users through the emulator's OAuth page, registers frank (a new user) as the
 * attacker, funds the wallets it uses from the local chain, and prints each attack's answers and whether any
 * balance moved but to the rightful contributor. Exit code 1 when an attack succeeds.
 */
import { createPublicClient, http, parseEther, type Address } from "viem";
import { signInOverHttp, type BrowserSession, type DevRun } from "../../testing/dev-process.ts";

const [url = "http://localhost:3000", emulatorUrl = "http://127.0.0.1:3001", rpc = "http://127.0.0.1:8545"] = process.argv.slice(2);
const run = { url, origin: url.replace("127.0.0.1", "localhost"), emulatorUrl } as DevRun;
const chain = createPublicClient({ transport: http(rpc) });
let failures = 0;
let n = 0;

async function control(path: string, body: Record<string, unknown>): Promise<Record<string, { number: number }>> {
  const res = await fetch(`${emulatorUrl}/_emulator${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, { number: number }>;
}
function send(session: BrowserSession, method: string, path: string, body?: unknown) {
  return fetch(`${url}${path}`, {
    method,
    headers: { Accept: "application/json", "Content-Type": "application/json", Cookie: session.cookie, Origin: run.origin, "X-CSRF-Token": session.csrfToken, "Idempotency-Key": `probe-${Date.now()}-${n++}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
async function json(res: Response) {
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: res.status, body: { text } };
  }
}
async function walletOf(session: BrowserSession): Promise<Address> {
  const info = (await (await fetch(`${url}/api/wallet/info`, { headers: { Cookie: session.cookie } })).json()) as { address: string };
  return `0x${info.address.replace(/^(xdc|0x)/i, "")}` as Address;
}
async function rpcCall(method: string, params: unknown[]) {
  await fetch(rpc, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
}
const balance = (a: Address) => chain.getBalance({ address: a });
const until = async (check: () => Promise<boolean>, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error(`timed out: ${what}`);
};
function verdict(name: string, ok: boolean, detail: unknown) {
  console.log(`${ok ? "REFUSED (good)" : "ATTACK WORKED"}  ${name}\n    ${JSON.stringify(detail)}`);
  if (!ok) failures++;
}
const hourAgo = () => new Date(Date.now() - 3600_000).toISOString();
async function mergedPull(repo: string, author: string, issue: number, extra: Record<string, unknown> = {}, commits?: { message: string }[]) {
  const pr = await control("/pulls", { repo, author, title: `Fix #${issue}`, body: `Fixes #${issue}`, head: `${author}:probe-${Date.now()}-${n++}`, ...(commits ? { commits } : {}) });
  await control("/pulls/merge", { repo, number: pr.pull_request!.number, ...extra });
  return pr.pull_request!.number;
}

const alice = await signInOverHttp(run, "alice");
const frank = await signInOverHttp(run, "frank");
await send(frank, "POST", "/api/auth/register", { role: "contributor", email: "frank@example.com" });
const carol = await signInOverHttp(run, "carol");
const bob = await signInOverHttp(run, "bob");
const [frankWallet, carolWallet, bobWallet] = await Promise.all([walletOf(frank), walletOf(carol), walletOf(bob)]);
for (const w of [frankWallet, carolWallet, bobWallet]) await rpcCall("anvil_setBalance", [w, `0x${parseEther("200").toString(16)}`]);
const LITE = { id: 5003, fullName: "alice/xdc-explorer-lite" };

// 1. An old merged pull request takes a pool's bounty through a community claim.
{
  const issue = (await control("/issues", { repo: LITE.fullName, title: "Probe: old PR", author: "alice" })).issue!.number;
  const old = await mergedPull(LITE.fullName, "frank", issue, { at: hourAgo() });
  await control("/issues/reopen", { repo: LITE.fullName, number: issue });
  const allocated = await json(await send(alice, "POST", `/api/blockchain/allocate-bounty/${LITE.id}/${issue}`, { bountyAmount: "5", currency: "XDC", githubRepoFullName: LITE.fullName }));
  const before = await balance(frankWallet);
  const created = await json(await send(frank, "POST", "/api/community-bounties", { githubRepoOwner: "alice", githubRepoName: "xdc-explorer-lite", githubIssueNumber: issue, githubIssueId: `${LITE.fullName}#${issue}`, githubIssueUrl: `https://github.com/${LITE.fullName}/issues/${issue}`, title: "mine", amount: "1", currency: "XDC" }));
  await control("/issues/close", { repo: LITE.fullName, number: issue, reason: "completed" });
  await Bun.sleep(3000);
  const gained = (await balance(frankWallet)) - before;
  verdict("old pull request on a reopened issue with a pool bounty", created.status === 409 && gained === 0n, { allocate: allocated.status, communityBounty: created, oldPr: old, frankGained: gained.toString() });
}

// 2. A claim bypasses a co-author split (the registered repository has the App).
{
  const issue = (await control("/issues", { repo: LITE.fullName, title: "Probe: split", author: "alice" })).issue!.number;
  const boosted = await json(await send(carol, "POST", `/api/funding/issues/alice/xdc-explorer-lite/${issue}/boosts`, { currency: "XDC", amount: "4" }));
  let community = 0;
  await until(async () => {
    const list = (await (await fetch(`${url}/api/community-bounties?repo=${LITE.fullName}&status=funded&limit=100`)).json()) as { bounties: { id: number; githubIssueNumber: number }[] };
    community = list.bounties.find((b) => b.githubIssueNumber === issue)?.id ?? 0;
    return community > 0;
  }, "community bounty funded");
  const pr = await mergedPull(LITE.fullName, "bob", issue, {}, [{ message: `Fix\n\nCo-authored-by: carol <1003+carol@users.noreply.github.com>` }]);
  await until(async () => (await fetch(`${url}/api/splits/${LITE.id}/${issue}`)).ok, "split opened");
  const before = await balance(bobWallet);
  const claimed = await json(await send(bob, "POST", `/api/community-bounties/${community}/claim`, { prNumber: pr, prUrl: "x" }));
  await Bun.sleep(2000);
  const split = await json(await fetch(`${url}/api/splits/${LITE.id}/${issue}`));
  verdict("claim during a split's release window", claimed.status === 409 && split.body.status === "window" && (await balance(bobWallet)) === before, { boost: boosted.status, claim: claimed, split: split.body.status });
}

// 3. A community bounty on an unregistered repository paid to a pull request merged before it existed.
{
  const repo = "dave/hello-xdc";
  const issue = (await control("/issues", { repo, title: "Probe: stale PR", author: "dave" })).issue!.number;
  const stale = await mergedPull(repo, "frank", issue, { at: hourAgo() });
  await control("/issues/reopen", { repo, number: issue });
  const created = await json(await send(carol, "POST", "/api/community-bounties", { githubRepoOwner: "dave", githubRepoName: "hello-xdc", githubIssueNumber: issue, githubIssueId: `${repo}#${issue}`, githubIssueUrl: `https://github.com/${repo}/issues/${issue}`, title: "README", amount: "3", currency: "XDC" }));
  const id = (created.body.bounty as { id: number }).id;
  await json(await send(carol, "POST", `/api/community-bounties/${id}/pay`, {}));
  await until(async () => ((await (await fetch(`${url}/api/community-bounties/${id}`)).json()) as { bounty: { amount: string } }).bounty.amount !== "0.00000000", "funded");
  await control("/issues/close", { repo, number: issue, reason: "completed" });
  const before = await balance(frankWallet);
  const claimed = await json(await send(frank, "POST", `/api/community-bounties/${id}/claim`, { prNumber: stale, prUrl: "javascript:alert(1)" }));
  await Bun.sleep(2000);
  verdict("stale pull request on an unregistered repository", claimed.status === 400 && (await balance(frankWallet)) === before, { claim: claimed });
}

// 4. A funder takes the boost back after the fix was merged (unregistered repository, before the author's claim).
{
  const repo = "dave/hello-xdc";
  const issue = (await control("/issues", { repo, title: "Probe: withdraw", author: "dave" })).issue!.number;
  const created = await json(await send(carol, "POST", "/api/community-bounties", { githubRepoOwner: "dave", githubRepoName: "hello-xdc", githubIssueNumber: issue, githubIssueId: `${repo}#${issue}`, githubIssueUrl: `https://github.com/${repo}/issues/${issue}`, title: "Link", amount: "3", currency: "XDC" }));
  const id = (created.body.bounty as { id: number }).id;
  await json(await send(carol, "POST", `/api/community-bounties/${id}/pay`, {}));
  let boostId = 0;
  await until(async () => {
    const mine = (await (await fetch(`${url}/api/funding/my-boosts`, { headers: { Cookie: carol.cookie } })).json()) as { boosts: { id: number; issueNumber: number; status: string }[] };
    boostId = mine.boosts.find((b) => b.issueNumber === issue && b.status === "active")?.id ?? 0;
    return boostId > 0;
  }, "boost active");
  const pr = await mergedPull(repo, "bob", issue);
  const carolBefore = await balance(carolWallet);
  const withdrawn = await json(await send(carol, "DELETE", `/api/funding/boosts/${boostId}`));
  const bobBefore = await balance(bobWallet);
  const claimed = await json(await send(bob, "POST", `/api/community-bounties/${id}/claim`, { prNumber: pr, prUrl: "javascript:alert(1)" }));
  await until(async () => (await balance(bobWallet)) > bobBefore, "bob paid");
  const bounty = (await (await fetch(`${url}/api/community-bounties/${id}`)).json()) as { bounty: { claimedPrUrl: string } };
  verdict("withdrawal after the merge, then the author's claim", withdrawn.status === 409 && claimed.status === 200 && (await balance(carolWallet)) <= carolBefore && !bounty.bounty.claimedPrUrl.startsWith("javascript"), {
    withdraw: withdrawn,
    claim: claimed.status,
    bobGained: ((await balance(bobWallet)) - bobBefore).toString(),
    claimedPrUrl: bounty.bounty.claimedPrUrl,
  });
}

console.log(failures ? `${failures} attack(s) worked` : "all four attacks refused; only the rightful contributor was paid");
process.exit(failures ? 1 : 0);
