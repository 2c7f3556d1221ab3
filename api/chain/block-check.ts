import { BlockNotFoundError, type Hex, type PublicClient } from "viem";

/** A block the platform has seen: its height and hash. */
export interface SeenBlock {
  number: number;
  hash: string;
}

/** The chain's block at `number`, or null when the chain is not that high (any other failure throws). */
export async function blockAt(client: PublicClient, number: number): Promise<{ number: number; hash: Hex } | null> {
  try {
    const block = await client.getBlock({ blockNumber: BigInt(number) });
    return { number, hash: block.hash! };
  } catch (err) {
    if (err instanceof BlockNotFoundError) return null;
    throw err;
  }
}

/**
 * The highest of the `seen` blocks the chain still has, with the same hash; null when none is. Each block's hash
 * covers its parent's, so when a seen block is intact every one below it is too: the top one is looked up first
 * (one lookup when nothing changed), then a binary search over the rest.
 */
export async function highestIntact(client: PublicClient, seen: SeenBlock[]): Promise<number | null> {
  const ascending = [...seen].sort((a, b) => a.number - b.number);
  const intact = async (block: SeenBlock) => {
    const now = await blockAt(client, block.number);
    return now !== null && now.hash.toLowerCase() === block.hash.toLowerCase();
  };
  if (!ascending.length) return null;
  if (await intact(ascending[ascending.length - 1]!)) return ascending[ascending.length - 1]!.number;
  // Invariant: everything above `high` is changed; `low - 1` (if any) is intact.
  let low = 0;
  let high = ascending.length - 2;
  let best: number | null = null;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (await intact(ascending[middle]!)) {
      best = ascending[middle]!.number;
      low = middle + 1;
    } else high = middle - 1;
  }
  return best;
}
