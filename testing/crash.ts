/**
 * Shared steps of the SIGKILL fault tests (api/chain/crash.test.ts,
 * api/chain/crash-flows.test.ts): settle the setup in-process, kill the
 * server process in the middle of a batch, retry as the site does, and read
 * back what one address sent on-chain.
 */
import type { Address, Hex, PublicClient } from "viem";
import { chainTransactions, type ChainTransaction } from "../db/schema/index.ts";
import type { ProcessStack, ServerProcess } from "./process-stack.ts";

/** Drives the in-process outbox until nothing is left to do (setup only: no server process may run yet). */
export async function settleInProcess(stack: ProcessStack, timeoutMs = 60_000): Promise<void> {
  for (const row of await stack.t.ctx.database.db.select().from(chainTransactions)) {
    if (row.status === "queued" || row.status === "signed" || row.status === "sent") {
      const settled = await stack.t.ctx.outbox.waitForSettled(row.id, timeoutMs);
      if (settled.status !== "confirmed") {
        const rows = await stack.t.ctx.database.db.select().from(chainTransactions);
        throw new Error(`setup transaction ${row.kind} ended ${settled.status}: ${settled.error}\n${await whyNotSettled(stack.t.ctx.chain.client, rows)}`);
      }
    }
  }
}

/**
 * What the node says of the rows a test found stuck (sent or signed, not confirmed): each one's nonce and hash, whether
 * the node knows the transaction or has its receipt, and each signer's mined and pending counts. For the failure
 * message: rows left `sent` for longer than the re-broadcast time were seen under load and not yet explained.
 */
export async function whyNotSettled(client: PublicClient, rows: ChainTransaction[]): Promise<string> {
  const stuck = rows.filter((r) => r.status === "sent" || r.status === "signed" || r.status === "queued").slice(0, 20);
  const lines: string[] = [];
  const signers = new Set(stuck.map((r) => r.fromAddress));
  for (const from of signers) {
    const [latest, pending] = await Promise.all([
      client.getTransactionCount({ address: from as Address, blockTag: "latest" }).catch((err: Error) => err.message),
      client.getTransactionCount({ address: from as Address, blockTag: "pending" }).catch((err: Error) => err.message),
    ]);
    lines.push(`signer ${from}: latest ${latest}, pending ${pending}`);
  }
  for (const row of stuck) {
    const known = row.txHash ? await client.getTransaction({ hash: row.txHash as Hex }).then(() => "known", () => "unknown") : "no hash";
    const receipt = row.txHash ? await client.getTransactionReceipt({ hash: row.txHash as Hex }).then((r) => `mined in ${r.blockNumber}`, () => "no receipt") : "";
    lines.push(`${row.status} ${row.kind} nonce ${row.nonce} ${row.txHash ?? ""} sentAt ${row.sentAt?.toISOString() ?? "-"}: ${known}, ${receipt}`);
  }
  return lines.join("\n");
}

export const countBy = (rows: ChainTransaction[]) =>
  rows.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});

/**
 * SIGKILLs `server` in the middle of a batch of its rows: once ten or more are signed or sent but not
 * confirmed, or some are on their way and one has confirmed, or half of `total` have confirmed, or at
 * the latest after `budgetMs`; or, with `when`, once that holds of the rows. Returns the rows as they
 * were at the kill.
 */
export async function killMidFlight(
  server: ServerProcess,
  rows: () => Promise<ChainTransaction[]>,
  total: number,
  budgetMs: number,
  when?: (rows: ChainTransaction[]) => boolean,
): Promise<ChainTransaction[]> {
  const killBy = Date.now() + budgetMs;
  for (;;) {
    const now = await rows();
    const confirmed = now.filter((r) => r.status === "confirmed").length;
    const inBatch = now.filter((r) => r.status === "signed" || r.status === "sent").length;
    const midFlight = when ? when(now) : inBatch >= 10 || (inBatch > 0 && confirmed >= 1) || confirmed >= total / 2;
    if (midFlight || Date.now() > killBy) break;
    await Bun.sleep(1);
  }
  await server.kill();
  return rows();
}

/** The site's retry loop: the same request (and key) until the answer is "confirmed"; 200 and 503 are answers, anything else fails. */
export async function retryUntilConfirmed(
  what: string,
  send: () => Promise<Response>,
  deadline: number,
  intervalMs = 200,
): Promise<{ transactionHash: string; tries: number }> {
  for (let tries = 1; ; tries++) {
    let last: string;
    try {
      const res = await send();
      const body = (await res.json()) as { status?: string; transactionHash?: string; message?: string };
      if (res.status === 200 && body.status === "confirmed") return { transactionHash: body.transactionHash!, tries };
      if (res.status !== 200 && res.status !== 503) throw new Error(`${what}: unexpected ${res.status} ${JSON.stringify(body)}`);
      last = `${res.status} ${body.status ?? body.message}`;
    } catch (err) {
      if (String(err).includes("unexpected")) throw err;
      last = String(err);
    }
    if (Date.now() > deadline) throw new Error(`${what} not confirmed in time (last answer: ${last})`);
    await Bun.sleep(intervalMs);
  }
}

/** Every transaction `from` sent in blocks `fromBlock`..latest, read from the blocks themselves. */
export async function sentOnChain(client: PublicClient, from: Address, fromBlock: bigint): Promise<{ nonce: number; hash: Hex }[]> {
  const latest = await client.getBlockNumber({ cacheTime: 0 });
  const sent: { nonce: number; hash: Hex }[] = [];
  for (let n = fromBlock; n <= latest; n++) {
    const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions) if (tx.from.toLowerCase() === from.toLowerCase()) sent.push({ nonce: tx.nonce, hash: tx.hash });
  }
  return sent;
}

/** `n` consecutive numbers from `start`. */
export const consecutive = (start: number, n: number) => Array.from({ length: n }, (_, i) => start + i);
