/**
 * The local chain's state on disk, kept crash-safe by the platform itself
 * (issue 24). anvil's own `--state FILE --state-interval N` rewrites FILE in
 * place: a kill during that write leaves it empty or cut off, and anvil then
 * refuses to start. Instead the platform asks anvil for its state over RPC
 * (`anvil_dumpState`) and writes it atomically:
 *
 *   FILE.tmp (mode 0600) -> fsync -> FILE becomes FILE.prev -> FILE.tmp becomes FILE -> fsync the directory
 *
 * so at every moment FILE or FILE.prev is a complete save, and a failed write
 * (a full disk) leaves both untouched. At start the newest copy that parses is
 * loaded (`--load-state`); the format is anvil's own state JSON, the same as
 * the old `--state` file, so an existing data directory keeps its chain.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** How often the running chain is saved: a kill -9 loses at most about this much of the chain. */
export const CHAIN_SAVE_INTERVAL_MS = 1_000;

export const previousCopyOf = (file: string) => `${file}.prev`;
const tempCopyOf = (file: string) => `${file}.tmp`;

/** Why a copy was not usable, or undefined when it looks like a complete anvil state. */
export function unusableBecause(path: string): string | undefined {
  if (!existsSync(path)) return "missing";
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return `unreadable (${(err as Error).message})`;
  }
  if (text.length === 0) return "empty";
  try {
    const state = JSON.parse(text) as { block?: unknown; accounts?: unknown };
    if (typeof state !== "object" || state === null || !("accounts" in state) || !("block" in state)) return "not an anvil state";
    return undefined;
  } catch {
    return `cut off or corrupt (${text.length} bytes that do not parse)`;
  }
}

export interface StateCandidate {
  path: string;
  /** "saved": the latest save; "previous": the copy before it. */
  kind: "saved" | "previous";
}

export interface StateChoice {
  /** The copies to try, best first (each parses). */
  candidates: StateCandidate[];
  /** What was wrong with the copies that were passed over (for the log). */
  skipped: string[];
}

/** The copies of `file` worth loading, newest first. A leftover temp file (a save cut short) is removed. */
export function chooseState(file: string): StateChoice {
  rmSync(tempCopyOf(file), { force: true });
  const candidates: StateCandidate[] = [];
  const skipped: string[] = [];
  for (const candidate of [
    { path: file, kind: "saved" },
    { path: previousCopyOf(file), kind: "previous" },
  ] as const) {
    const why = unusableBecause(candidate.path);
    if (why === undefined) {
      keepOneGenesis(candidate.path);
      candidates.push(candidate);
    }
    else if (why !== "missing") {
      skipped.push(`${candidate.path}: ${why}`);
      // Set aside (not deleted: someone may want to look), so the next save does not keep it as the previous copy.
      if (candidate.kind === "saved") renameSync(file, `${file}.unusable`);
    }
  }
  return { candidates, skipped };
}

/** Rewrites a saved copy that lists more than one block 0 (saved before withOneGenesis), atomically, in place. */
function keepOneGenesis(path: string): void {
  const bytes = readFileSync(path);
  let fixed: Uint8Array;
  try {
    fixed = withOneGenesis(bytes);
  } catch {
    return; // anvil decides whether it can load it
  }
  if (fixed === bytes) return;
  const temp = `${path}.genesis`;
  writeSynced(temp, fixed);
  renameSync(temp, path);
}

/** Whether any copy of the state was ever written here (so a start without one has lost it). */
export const anyCopyExists = (file: string) => existsSync(file) || existsSync(previousCopyOf(file));

/** Writes `bytes` as the new `file`, atomically, keeping the copy it replaces as FILE.prev. Throws (leaving both copies as they were) when the write fails. */
export function writeStateAtomically(file: string, bytes: Uint8Array): void {
  const temp = tempCopyOf(file);
  writeSynced(temp, bytes);
  if (existsSync(file)) renameSync(file, previousCopyOf(file));
  renameSync(temp, file);
  const dir = openSync(dirname(file), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** Writes and fsyncs a new file of mode 0600; on failure (a full disk) removes it and throws. */
function writeSynced(path: string, bytes: Uint8Array): void {
  const fd = openSync(path, "w", 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(path, { force: true });
    throw err;
  }
  closeSync(fd);
}

/** anvil's state as its own JSON (what `--load-state` reads): `anvil_dumpState` answers it gzipped, as hex. */
export async function dumpState(rpcUrl: string, timeoutMs = 10_000): Promise<Uint8Array> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_dumpState", params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  if (body.error || typeof body.result !== "string") throw new Error(`anvil_dumpState failed: ${body.error?.message ?? "no result"}`);
  const packed = Buffer.from(body.result.slice(2), "hex");
  const json = packed[0] === 0x1f && packed[1] === 0x8b ? Bun.gunzipSync(packed) : packed;
  // Never replace a good copy with something anvil could not load again.
  if (json.length === 0 || json[0] !== 0x7b /* { */ || json[json.length - 1] !== 0x7d /* } */) throw new Error("anvil_dumpState answered something that is not a state");
  return withOneGenesis(json);
}

interface DumpedBlock {
  header?: { number?: string; timestamp?: string };
}

/**
 * anvil makes a new block 0 at every start and keeps it beside the genesis block a loaded state brings, and its dump
 * then lists both: loaded again, either may become block 0, so the chain's genesis hash (the platform's proof that it
 * is the same chain, api/chain/identity.ts) changed on about one restart in three. The first genesis is the earliest
 * one (each later start stamps its own with the time it started): only that one is kept.
 */
export function withOneGenesis(json: Uint8Array): Uint8Array {
  const state = JSON.parse(new TextDecoder().decode(json)) as { blocks?: DumpedBlock[] };
  const geneses = (state.blocks ?? []).filter((block) => block.header?.number !== undefined && BigInt(block.header.number) === 0n);
  if (geneses.length <= 1) return json;
  const first = geneses.reduce((a, b) => (BigInt(b.header?.timestamp ?? "0") < BigInt(a.header?.timestamp ?? "0") ? b : a));
  state.blocks = state.blocks!.filter((block) => !geneses.includes(block) || block === first);
  return new TextEncoder().encode(JSON.stringify(state));
}
