/**
 * The compute network's calls as the Provider Hub and the chat make them
 * (spec section 7, "Nodes"), through the site's one API client.
 */
import { api, type ApiResponse } from "./api.ts";

export type NetworkNode = ApiResponse<"getNetworkStatus">["nodes"][number];
export type OwnNode = ApiResponse<"listOwnNodes">["nodes"][number];
export type Pairing = ApiResponse<"findPairing">;

export const networkNodes = () => api("/api/nodes/network").then((r) => r.nodes);
export const computeUnits = () => api("/api/node/compute-units").then((r) => r.computeUnits);
export const walletNodeStatus = (walletAddress: string) =>
  api(`/api/node/status?walletAddress=${encodeURIComponent(walletAddress)}`).then((r) => r.status);
export const ownNodes = () => api("/api/node/nodes").then((r) => r.nodes);
export const revokeNode = (nodeId: string) => api(`/api/node/nodes/${encodeURIComponent(nodeId)}`, { method: "DELETE" });
export const findPairing = (code: string) => api(`/api/node/pairings/${encodeURIComponent(code)}`);
export const approvePairing = (code: string) => api("/api/node/pairings/approve", { method: "POST", body: { code } });
export const dispatchTask = (prompt: string) => api("/api/node/dispatch-task", { method: "POST", body: { prompt }, timeoutMs: 60_000 });

/** "just now", "12 s ago", "5 min ago", "3 h ago", else a date: how long since a node was last heard. */
export function sinceText(iso: string | null, now = Date.now()): string {
  if (!iso) return "never";
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 5) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });
}

/** The word after a number of compute units: "1 unit", "0 units", "1,250 units" (issue 27: "1 units"). */
export function unitsWord(units: number): "unit" | "units" {
  return units === 1 ? "unit" : "units";
}

/**
 * The command the hub shows: the agent with this server and the user's wallet filled in. Through the npm script
 * (package.json "node-agent"), which finds the Bun that `npm install` put in node_modules/.bin: a fresh clone has
 * no `bun` on the PATH (issue 27: the pasted command answered "bun: command not found").
 */
export function startCommand(serverUrl: string, walletAddress: string, backend?: { url: string; model: string }): string {
  const base = `npm run node-agent -- --server ${serverUrl} --wallet ${walletAddress}`;
  return backend ? `${base} --backend ${backend.url} --model ${backend.model}` : base;
}
