import { readFile, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The GitHub repository of a workspace folder, read from its git remote
 * (.git/config; worktrees and submodules, whose .git is a file, included).
 * `upstream` wins over `origin`: in a fork, the bounties are the upstream
 * repository's. Any host is accepted (github.com, or the GitHub emulator of
 * a local platform): the platform says whether it knows the repository.
 */
export interface RepoRef {
  owner: string;
  name: string;
}

export async function repositoryOfFolder(folder: string): Promise<RepoRef | undefined> {
  const gitDir = await findGitDir(folder);
  if (!gitDir) return undefined;
  const config = await readFile(join(await commonDir(gitDir), "config"), "utf8").catch(() => undefined);
  if (!config) return undefined;
  const remotes = remotesOf(config);
  const preferred = remotes.get("upstream") ?? remotes.get("origin") ?? [...remotes.values()][0];
  return preferred ? parseRemoteUrl(preferred) : undefined;
}

/** `[remote "name"] url = …` entries of a git config. */
export function remotesOf(config: string): Map<string, string> {
  const remotes = new Map<string, string>();
  let section: string | undefined;
  for (const raw of config.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[remote\s+"([^"]+)"\]$/.exec(line);
    if (header) {
      section = header[1];
      continue;
    }
    if (line.startsWith("[")) {
      section = undefined;
      continue;
    }
    const url = /^url\s*=\s*(.+)$/.exec(line)?.[1];
    if (section && url && !remotes.has(section)) remotes.set(section, url.trim());
  }
  return remotes;
}

/** owner/name from https://host/owner/name(.git), git@host:owner/name(.git), ssh://git@host/owner/name(.git). */
export function parseRemoteUrl(url: string): RepoRef | undefined {
  let path: string | undefined;
  const scp = /^[\w.-]+@[\w.-]+:(?!\/)(.+)$/.exec(url);
  if (scp) path = scp[1];
  else {
    try {
      path = new URL(url).pathname;
    } catch {
      return undefined;
    }
  }
  const parts = (path ?? "").replace(/\.git$/, "").replace(/\/+$/, "").split("/").filter(Boolean);
  if (parts.length < 2) return undefined;
  const [owner, name] = parts.slice(-2) as [string, string];
  const valid = /^[A-Za-z0-9_.-]+$/;
  return valid.test(owner) && valid.test(name) ? { owner, name } : undefined;
}

async function findGitDir(folder: string): Promise<string | undefined> {
  let dir = resolve(folder);
  for (;;) {
    const candidate = join(dir, ".git");
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isDirectory()) return candidate;
    if (info?.isFile()) {
      const pointer = /^gitdir:\s*(.+)$/m.exec(await readFile(candidate, "utf8"))?.[1]?.trim();
      if (pointer) return isAbsolute(pointer) ? pointer : resolve(dir, pointer);
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A worktree's git dir keeps its config in the common dir it names. */
async function commonDir(gitDir: string): Promise<string> {
  const pointer = (await readFile(join(gitDir, "commondir"), "utf8").catch(() => ""))?.trim();
  return pointer ? resolve(gitDir, pointer) : gitDir;
}
