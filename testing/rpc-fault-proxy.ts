/**
 * A JSON-RPC proxy in front of a chain node that can hold chosen calls back: what a slow node looks like to one
 * process while the others reach the node directly (api/services/money/stalled-lock.test.ts). Every call is
 * forwarded as it came; a call that the armed `hold` matches waits, unanswered and unforwarded, until `release`.
 */
import { toFunctionSelector, type Abi, type Hex } from "viem";

export interface JsonRpcCall {
  method: string;
  params?: unknown[];
}

export interface RpcFaultProxy {
  url: string;
  /** From now on, holds back every call `match` accepts (until `release`). */
  hold(match: (call: JsonRpcCall) => boolean): void;
  /** Lets every held call through, and stops holding new ones. */
  release(): void;
  /** Calls held back right now. */
  readonly held: number;
  stop(): Promise<void>;
}

/** Matches an `eth_call` of the named function of `abi` (by its selector), whatever the contract and arguments. */
export function callsFunction(abi: Abi, name: string): (call: JsonRpcCall) => boolean {
  const item = abi.find((x) => x.type === "function" && x.name === name);
  if (!item || item.type !== "function") throw new Error(`no function ${name} in the ABI`);
  const selector = toFunctionSelector(item).toLowerCase();
  return (call) => {
    if (call.method !== "eth_call") return false;
    const data = ((call.params?.[0] as { data?: Hex; input?: Hex } | undefined)?.data ?? (call.params?.[0] as { input?: Hex } | undefined)?.input ?? "").toLowerCase();
    return data.startsWith(selector);
  };
}

export function startRpcFaultProxy(upstream: string): RpcFaultProxy {
  let match: ((call: JsonRpcCall) => boolean) | undefined;
  let gate: Promise<void> | undefined;
  let open: (() => void) | undefined;
  let held = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // A held call may wait longer than Bun's default idle limit (10 s).
    idleTimeout: 0,
    async fetch(request) {
      const body = await request.text();
      if (match && gate) {
        let calls: JsonRpcCall[] = [];
        try {
          const parsed = JSON.parse(body) as JsonRpcCall | JsonRpcCall[];
          calls = Array.isArray(parsed) ? parsed : [parsed];
        } catch {
          // Not JSON: forwarded as it is, the node answers it.
        }
        if (calls.some(match)) {
          held++;
          try {
            await gate;
          } finally {
            held--;
          }
        }
      }
      const answer = await fetch(upstream, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      return new Response(await answer.arrayBuffer(), { status: answer.status, headers: { "Content-Type": answer.headers.get("Content-Type") ?? "application/json" } });
    },
  });
  const release = () => {
    match = undefined;
    open?.();
    gate = undefined;
    open = undefined;
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    hold(matcher) {
      release();
      match = matcher;
      gate = new Promise<void>((resolve) => (open = resolve));
    },
    release,
    get held() {
      return held;
    },
    async stop() {
      release();
      await server.stop(true);
    },
  };
}
