/**
 * The node token, kept between runs so a restarted agent does not pair
 * again: one small file per (server, wallet) in the state directory
 * (default ~/.issuepool-node), readable by its owner only. The server keeps
 * only the token's hash; revoking it on the Provider Hub makes this file
 * useless, and the agent deletes it when it learns so.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

export interface StoredNode {
  nodeId: string;
  token: string;
}

const fileOf = (stateDir: string, serverUrl: string, wallet: string) =>
  join(stateDir, `node-${createHash("sha256").update(`${serverUrl}\n${wallet.toLowerCase()}`).digest("hex").slice(0, 16)}.json`);

export async function loadToken(stateDir: string, serverUrl: string, wallet: string): Promise<StoredNode | undefined> {
  try {
    const stored = JSON.parse(await readFile(fileOf(stateDir, serverUrl, wallet), "utf8")) as Partial<StoredNode>;
    return typeof stored.token === "string" && typeof stored.nodeId === "string" ? { nodeId: stored.nodeId, token: stored.token } : undefined;
  } catch {
    return undefined;
  }
}

export async function saveToken(stateDir: string, serverUrl: string, wallet: string, node: StoredNode): Promise<void> {
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const file = fileOf(stateDir, serverUrl, wallet);
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify({ server: serverUrl, wallet, ...node }, null, 2), { mode: 0o600 });
  await rename(temp, file);
}

export async function forgetToken(stateDir: string, serverUrl: string, wallet: string): Promise<void> {
  await rm(fileOf(stateDir, serverUrl, wallet), { force: true });
}
