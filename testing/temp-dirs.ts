import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const tempDirs = new Set<string>();

/**
 * A fresh directory under the system's temp dir, removed when the test run
 * ends (the preload's global afterAll) or, for a benchmark, when the process
 * exits: nothing is left behind. Whatever used it (anvil, a spawned server)
 * is stopped by then or does not mind.
 */
export async function makeTempDir(prefix = "issuepool-test-"): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (tempDirs.size === 0) process.once("exit", removeTempDirs); // bun test does not emit "exit": see preload.ts
  tempDirs.add(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const path of tempDirs) {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch {
      // already gone, or still in use: the system's temp cleaning takes it
    }
    tempDirs.delete(path);
  }
}
