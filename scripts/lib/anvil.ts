/**
 * A local chain for development and tests: anvil (Foundry) from npm,
 * spawned directly (its `.bin/anvil` is a Node wrapper we do not need),
 * listening on 127.0.0.1 only.
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import type { Subprocess } from "bun";
import { CHAIN_SAVE_INTERVAL_MS, chooseState, dumpState, writeStateAtomically, type StateCandidate } from "./chain-state.ts";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import { toHex, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";

/** Foundry's well-known development mnemonic. Its keys are public: never send real money to them. */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";

export const LOCAL_CHAIN_ID = 31337;

/**
 * XDC runs the EVM without Shanghai's PUSH0, so the local chain does too by
 * default: bytecode built for a newer EVM fails here, not first on XDC.
 */
export const DEFAULT_HARDFORK = "paris";

const ROOT = resolve(import.meta.dir, "../..");
const STARTUP_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const STDERR_TAIL_CHARS = 4_000;

/** Binary packages as `@foundry-rs/anvil` names them per platform. */
const ARCHES: Record<string, string> = { x64: "amd64", arm64: "arm64" };

export function anvilBinaryPath(): string {
  const arch = ARCHES[process.arch] ?? process.arch;
  const path = resolve(ROOT, `node_modules/@foundry-rs/anvil-${process.platform}-${arch}/bin/anvil`);
  if (!existsSync(path)) {
    throw new Error(`anvil binary not found at ${path} (the optional dependency of @foundry-rs/anvil for this platform)`);
  }
  return path;
}

export interface AnvilOptions {
  /** 0 or unset: a free port is chosen. */
  port?: number;
  /**
   * Keep the chain in this file (scripts/lib/chain-state.ts): loaded at start (or its previous copy when it does not
   * parse), saved atomically every CHAIN_SAVE_INTERVAL_MS and by stop(). anvil then runs in its own process group (a
   * terminal's Ctrl-C to the group must not stop it before the final save) and dies with this process all the same.
   */
  stateFile?: string;
  /** Told when a save fails (a full disk): the last good copy stays. */
  onSaveError?: (err: Error) => void;
  chainId?: number;
  /** Unset: a block per transaction (auto-mining). */
  blockTimeSeconds?: number;
  mnemonic?: string;
  accounts?: number;
  balanceEther?: number;
  /** Hide anvil's own output (default true). */
  quiet?: boolean;
  /** EVM rules (anvil's --hardfork); DEFAULT_HARDFORK unless set. */
  hardfork?: string;
}

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** With a stateFile: which copy was loaded (none: a new chain), and what was wrong with those passed over. */
  state?: { loaded?: StateCandidate; skipped: string[] };
  /** With a stateFile: saves the chain now (atomically). */
  save(): Promise<void>;
  /** Saves the chain (with a stateFile), then SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
}

/**
 * Checks that `port` is free on 127.0.0.1 (0: asks the OS for any free port)
 * and returns it. Otherwise another server there would answer our readiness
 * check while anvil itself failed to bind. (Another process could still take
 * the port before anvil binds; startAnvil then fails loudly.)
 */
async function freePort(port: number): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", (err) => reject(new Error(`port ${port} on 127.0.0.1 is not free for anvil: ${err.message}`)));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolvePort(address.port) : reject(new Error("no port"))));
    });
  });
}

async function answersChainId(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    });
    return response.ok && typeof ((await response.json()) as { result?: unknown }).result === "string";
  } catch {
    return false;
  }
}

export async function startAnvil(options: AnvilOptions = {}): Promise<Anvil> {
  const port = await freePort(options.port ?? 0);
  const chainId = options.chainId ?? LOCAL_CHAIN_ID;
  const args = [
    "--host", "127.0.0.1",
    "--port", String(port),
    "--chain-id", String(chainId),
    "--mnemonic", options.mnemonic ?? DEV_MNEMONIC,
    "--accounts", String(options.accounts ?? 10),
    "--balance", String(options.balanceEther ?? 10_000),
    "--hardfork", options.hardfork ?? DEFAULT_HARDFORK,
  ];
  if (options.blockTimeSeconds !== undefined) args.push("--block-time", String(options.blockTimeSeconds));
  if (!options.stateFile) return { ...(await spawnAnvil(args, port, chainId, options, false)), save: async () => undefined };

  const stateFile = options.stateFile;
  mkdirSync(dirname(stateFile), { recursive: true, mode: 0o700 });
  const { candidates, skipped } = chooseState(stateFile);
  let running: Awaited<ReturnType<typeof spawnAnvil>> | undefined;
  let loaded: StateCandidate | undefined;
  for (const candidate of candidates) {
    try {
      running = await spawnAnvil([...args, "--load-state", candidate.path], port, chainId, options, true);
      loaded = candidate;
      break;
    } catch (err) {
      // Only a state anvil refuses is passed over; anything else (a port taken meanwhile) must not start a new chain.
      const message = (err as Error).message;
      if (!/exited with code/.test(message) || !/state|json|parse|deserializ/i.test(message)) throw err;
      // Set aside, so the next save does not keep it as the previous copy.
      if (candidate.kind === "saved") renameSync(candidate.path, `${candidate.path}.unusable`);
      skipped.push(`${candidate.path}: anvil could not load it (${message.split("\n").slice(-2).join(" ").slice(0, 300)})`);
    }
  }
  running ??= await spawnAnvil(args, port, chainId, options, true);
  const { stop: stopProcess, ...anvil } = running;

  // Saves run one at a time; the periodic one is skipped while another is under way.
  let saving: Promise<void> = Promise.resolve();
  let failing = false;
  const save = () =>
    (saving = saving.catch(() => undefined).then(async () => {
      try {
        writeStateAtomically(stateFile, await dumpState(anvil.rpcUrl));
        failing = false;
      } catch (err) {
        if (!failing) options.onSaveError?.(err as Error);
        failing = true;
        throw err;
      }
    }));
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    save()
      .catch(() => undefined)
      .finally(() => (busy = false));
  }, CHAIN_SAVE_INTERVAL_MS);
  let stopping: Promise<void> | undefined;
  return {
    ...anvil,
    state: { loaded, skipped },
    save,
    stop: () =>
      (stopping ??= (async () => {
        clearInterval(timer);
        await save().catch(() => undefined); // reported through onSaveError; the last good copy stays
        await stopProcess();
      })()),
  };
}

/**
 * Spawns anvil and waits until it answers. `ownGroup`: in its own process group (setsid), so a signal to ours does
 * not reach it, with a watchdog that kills it once this process is gone, however it went (kill -9 included): a
 * shell reading a pipe from us until end of file, in anvil's group too.
 */
async function spawnAnvil(args: string[], port: number, chainId: number, options: AnvilOptions, ownGroup: boolean) {
  const quiet = options.quiet ?? true;
  const child = Bun.spawn([anvilBinaryPath(), ...args], {
    stdin: "ignore",
    stdout: quiet ? "ignore" : "inherit",
    stderr: "pipe",
    detached: ownGroup,
  });
  let watchdog: Subprocess<"pipe", "ignore", "ignore"> | undefined;
  if (ownGroup) {
    watchdog = Bun.spawn(["sh", "-c", 'while read -r _; do :; done; kill -KILL "$0" 2>/dev/null', String(child.pid)], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    });
    watchdog.unref();
  }
  // Drain stderr (a full pipe would block anvil) and keep its tail for error messages.
  let stderrTail = "";
  void (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      if (!quiet) process.stderr.write(chunk);
    }
  })();

  // A test runner that exits without calling stop() must not leave anvil behind.
  const killOnExit = () => {
    child.kill("SIGKILL");
    watchdog?.kill("SIGKILL");
  };
  process.once("exit", killOnExit);

  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (!(await answersChainId(rpcUrl))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      await child.exited;
      watchdog?.kill("SIGKILL");
      process.off("exit", killOnExit);
      const why = child.exitCode !== null && child.signalCode === null ? `exited with code ${child.exitCode}` : "did not answer in time";
      throw new Error(`anvil on port ${port} ${why}${stderrTail ? `:\n${stderrTail}` : ""}`);
    }
    await Bun.sleep(20);
  }

  return {
    rpcUrl,
    chainId,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
        await child.exited;
        clearTimeout(timer);
      }
      watchdog?.kill("SIGKILL");
      process.off("exit", killOnExit);
    },
  };
}

/** The private key of account `index` of `mnemonic` (m/44'/60'/0'/0/index), as anvil derives it. */
export function anvilPrivateKey(index: number, mnemonic: string = DEV_MNEMONIC): Hex {
  const key = mnemonicToAccount(mnemonic, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`no private key for account ${index}`);
  return toHex(key);
}

/** The first `count` accounts anvil funds for `mnemonic`, as local (signing) viem accounts. */
export function anvilAccounts(count: number, mnemonic: string = DEV_MNEMONIC): PrivateKeyAccount[] {
  return Array.from({ length: count }, (_, index) => privateKeyToAccount(anvilPrivateKey(index, mnemonic)));
}
