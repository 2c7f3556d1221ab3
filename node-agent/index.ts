/**
 * Issuepool node agent: lends this machine's model to the decentralized
 * chat and earns compute units for your wallet (docs/compute-network.md).
 *
 *   bun node-agent/index.ts --server https://issuepool.example --wallet xdc… [--backend http://127.0.0.1:52415/v1 --model M]
 *
 * Without --backend the node answers with the built-in demo backend.
 * Exit codes: 0 stopped, 2 bad arguments, 3 revoked by its owner.
 */
import { hostname, homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { NodeAgent, type LogFn } from "./agent.ts";
import { demoBackend, openAiBackend, type Backend } from "./backends.ts";

const USAGE = `Usage: bun node-agent/index.ts --server URL --wallet ADDRESS [options]

  --server URL          the Issuepool server (e.g. https://issuepool.example)
  --wallet ADDRESS      your XDC wallet (xdc… or 0x…): the Provider Hub shows the command with it filled in
  --backend URL         an OpenAI-compatible API base, e.g. http://127.0.0.1:52415/v1 (exo),
                        http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 (Ollama)
  --model NAME          the model to ask (needed with --backend)
                        (a key for a hosted backend goes in ISSUEPOOL_BACKEND_API_KEY)
  --name NAME           how the node is named on your Provider Hub (default: this host's name)
  --state-dir DIR       where the node token is kept (default ~/.issuepool-node)
  --concurrency N       tasks worked at once (default 1)
  --demo-work-rounds N  the demo backend's simulated work per task, in SHA-256 rounds (default 0)
  --stop-grace-ms MS    on SIGTERM, how long a running task may finish before it is given back (default 5000)
  --log text|json       log format (default text)
  --exit-with-parent    stop when the process that started this one ends
`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

let args: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    options: {
      server: { type: "string" },
      wallet: { type: "string" },
      backend: { type: "string" },
      model: { type: "string" },
      name: { type: "string" },
      "state-dir": { type: "string" },
      concurrency: { type: "string" },
      "demo-work-rounds": { type: "string" },
      "stop-grace-ms": { type: "string" },
      log: { type: "string" },
      "exit-with-parent": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  }).values;
}
try {
  args = parse();
} catch (err) {
  fail((err as Error).message);
}
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
if (!args.server || !URL.canParse(args.server) || !/^https?:$/.test(new URL(args.server).protocol)) fail("--server must be the server's http(s) URL.");
if (!args.wallet || !/^(0x|xdc)[0-9a-fA-F]{40}$/i.test(args.wallet)) fail("--wallet must be your XDC wallet address (xdc… or 0x…, 40 hex digits).");
if (args.backend && !URL.canParse(args.backend)) fail("--backend must be a URL, e.g. http://127.0.0.1:52415/v1");
if (args.backend && !args.model) fail("--model is needed with --backend (the name your backend serves, e.g. llama-3.2-3b).");
const concurrency = Number(args.concurrency ?? 1);
if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64) fail("--concurrency must be a whole number from 1 to 64.");
const workRounds = Number(args["demo-work-rounds"] ?? 0);
if (!Number.isInteger(workRounds) || workRounds < 0) fail("--demo-work-rounds must be a whole number.");
const stopGraceMs = Number(args["stop-grace-ms"] ?? 5000);
if (!Number.isInteger(stopGraceMs) || stopGraceMs < 0) fail("--stop-grace-ms must be a whole number of milliseconds.");
const json = args.log === "json";

const log: LogFn = (level, msg, fields = {}) => {
  if (json) {
    console.log(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
    return;
  }
  if (msg === "pairing code") {
    console.log(`\n  Pair this node with your account: open ${fields.url}\n  and approve node ${fields.code} (the code expires in 10 minutes).\n`);
    return;
  }
  const extra = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(" ");
  (level === "info" ? console.log : console.error)(`${new Date().toISOString().slice(11, 19)} ${level.padEnd(5)} ${msg}${extra ? ` ${extra}` : ""}`);
};

const backend: Backend = args.backend
  ? openAiBackend({ baseUrl: args.backend, model: args.model!, apiKey: process.env.ISSUEPOOL_BACKEND_API_KEY })
  : demoBackend({ workRounds });
const defaultName = hostname().replace(/[^\p{L}\p{N} ._-]/gu, "-").slice(0, 60) || "node";
const agent = new NodeAgent({
  serverUrl: args.server,
  walletAddress: args.wallet,
  name: (args.name ?? defaultName).slice(0, 60),
  backend,
  stateDir: args["state-dir"] ?? join(homedir(), ".issuepool-node"),
  concurrency,
  stopGraceMs,
  log,
});

let signals = 0;
const onSignal = (signal: string) => {
  if (++signals > 1) process.exit(1);
  log("info", "signal received", { signal });
  agent.stop();
};
process.on("SIGTERM", () => onSignal("SIGTERM"));
process.on("SIGINT", () => onSignal("SIGINT"));
if (args["exit-with-parent"]) {
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && onSignal("parent gone"), 500).unref();
}

log("info", "starting node agent", { server: args.server, backend: backend.kind, model: backend.model });
const outcome = await agent.run().catch((err: Error) => {
  log("error", "the agent stopped on an error", { err: err.message });
  return "error" as const;
});
process.exit(outcome === "revoked" ? 3 : outcome === "error" ? 1 : 0);
