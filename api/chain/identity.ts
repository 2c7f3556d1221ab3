import { and, eq, inArray, isNull, like, sql } from "drizzle-orm";
import type { Database } from "../../db/client.ts";
import {
  awaitingDecisions,
  bounties,
  bountyBoosts,
  communityBounties,
  contributorTotals,
  repositoryReliability,
  bountyClaims,
  bountyAttempts,
  chainBlocks,
  chainCursors,
  chainEvents,
  chainIdentity,
  chainTransactions,
  heldPayouts,
  payoutSplits,
  payoutSplitShares,
  repositoryPools,
  tips,
  walletNonces,
} from "../../db/schema/index.ts";
import type { Logger } from "../logger.ts";
import { blockAt } from "./block-check.ts";
import type { ChainAccess } from "./clients.ts";

/**
 * Which chain the database's records belong to. The platform records the
 * chain's genesis block (block 0) the first time it meets it. A different
 * genesis later means the chain was lost for good and created again (a
 * local chain whose state could not be recovered): nothing the platform
 * signed for the old chain may be broadcast onto the new one, where the same
 * nonces are free and the same signed bytes would be valid.
 *
 * So the old chain's records are kept as history and taken out of play, in
 * one database transaction:
 * - its transactions get `old_chain` (the old genesis hash) and an
 *   idempotency key prefixed `old-chain:` (the same request may run again on
 *   the new chain); those signed or sent but not confirmed fail. Queued rows
 *   have signed nothing: they stay queued and run on the new chain, their
 *   gas estimate deciding whether they still can;
 * - its events get `old_chain`;
 * - the mirror built from it (pools, bounties), the indexer's cursor and
 *   block hashes and the signers' nonces are cleared: the indexer reads the
 *   new chain from the contracts' deployment block;
 * - what the platform kept about those bounties goes with them: who works
 *   on them (claims, also recorded on the old chain), payouts held for
 *   people without a wallet (a held row would also block holding a payout
 *   of a new bounty on the same issue), decisions awaited and splits of
 *   co-authored bounties; tips held in that chain's escrow are failed. The
 *   transactions that paid held payouts stay as history.
 */
export type ChainIdentityOutcome = "recorded" | "same" | "replaced";

export interface ChainIdentityDeps {
  db: Database;
  chain: ChainAccess;
  log: Logger;
}

export async function checkChainIdentity({ db, chain, log }: ChainIdentityDeps): Promise<ChainIdentityOutcome> {
  const chainId = chain.config.chain.id;
  const genesis = await blockAt(chain.client, 0);
  if (!genesis) throw new Error("the chain has no block 0");
  const [known] = await db.select().from(chainIdentity).where(eq(chainIdentity.chainId, chainId));
  if (!known) {
    await db.insert(chainIdentity).values({ chainId, genesisHash: genesis.hash }).onConflictDoNothing();
    return "recorded";
  }
  if (known.genesisHash.toLowerCase() === genesis.hash.toLowerCase()) return "same";

  const old = known.genesisHash;
  const counts = await db.transaction(
    async (tx) => {
      // Another process may have done it meanwhile: only the one that moves the identity retires anything.
      const moved = await tx
        .update(chainIdentity)
        .set({ genesisHash: genesis.hash, recordedAt: new Date() })
        .where(and(eq(chainIdentity.chainId, chainId), eq(chainIdentity.genesisHash, old)))
        .returning({ chainId: chainIdentity.chainId });
      if (!moved.length) return undefined;
      const live = and(eq(chainTransactions.chainId, chainId), isNull(chainTransactions.oldChain));
      await tx
        .update(chainTransactions)
        .set({ status: "failed", error: "the chain it was sent to was lost and created again; it was not sent to the new chain", updatedAt: new Date() })
        .where(and(live, inArray(chainTransactions.status, ["signed", "sent"])));
      const retired = await tx
        .update(chainTransactions)
        .set({ oldChain: old, idempotencyKey: sql`'old-chain:' || ${old} || ':' || ${chainTransactions.idempotencyKey}`, updatedAt: new Date() })
        .where(and(live, sql`${chainTransactions.status} <> 'queued'`))
        .returning({ id: chainTransactions.id });
      const events = await tx
        .update(chainEvents)
        .set({ oldChain: old })
        .where(and(eq(chainEvents.chainId, chainId), isNull(chainEvents.oldChain)))
        .returning({ id: chainEvents.id });
      await tx.delete(bounties);
      await tx.delete(repositoryPools);
      await tx.delete(bountyClaims);
      // Attempts are on those bounties (their claims went with them); settings, flags and merges are the repositories'.
      await tx.delete(bountyAttempts);
      await tx.delete(heldPayouts);
      await tx.delete(awaitingDecisions);
      // Splits of those bounties, and tips escrowed on that chain (their money went with it: failed, never paid).
      await tx.delete(payoutSplitShares);
      await tx.delete(payoutSplits);
      await tx.update(tips).set({ status: "failed" }).where(inArray(tips.status, ["held", "sending"]));
      // Funders' shares of those bounties and the community bounties they opened were escrowed there too; the
      // sponsors' records and the boards are counts of that chain's payouts: read again from the new one.
      await tx.delete(bountyBoosts);
      await tx.delete(communityBounties);
      await tx.delete(repositoryReliability);
      await tx.delete(contributorTotals);
      const cursors = await tx.delete(chainCursors).where(eq(chainCursors.chainId, chainId)).returning({ name: chainCursors.name });
      if (cursors.length) await tx.delete(chainBlocks).where(inArray(chainBlocks.cursor, cursors.map((c) => c.name)));
      await tx.delete(walletNonces).where(like(walletNonces.key, `${chainId}:%`));
      return { transactions: retired.length, events: events.length };
    },
    { behavior: "immediate" },
  );
  if (counts) {
    log.warn(
      `the chain was created again (its genesis block changed from ${old} to ${genesis.hash}): ${counts.transactions} transactions and ${counts.events} events of the old chain are kept as history only, nothing of it is sent again, and the mirror is read anew from the new chain`,
      { chainId, oldGenesis: old, genesis: genesis.hash },
    );
  }
  return "replaced";
}
