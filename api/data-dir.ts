import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError, type Env } from "./env.ts";
import { filePath } from "../db/client.ts";

/**
 * Refuses to start on a data directory the platform cannot write (a
 * read-only mount, a volume owned by someone else): one line that names the
 * directory, instead of a database error deep in the start. A directory not
 * created yet is judged by the nearest one above it that exists.
 */
export function assertWritableDataDir(env: Pick<Env, "DATA_DIR" | "DATABASE_URL">): void {
  const dirs = [env.DATA_DIR];
  if (env.DATABASE_URL.startsWith("file:") && !/^file::memory:$/.test(env.DATABASE_URL)) dirs.push(dirname(filePath(env.DATABASE_URL)));
  for (const dir of dirs) {
    let existing = resolve(dir);
    while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
    try {
      accessSync(existing, constants.W_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "not writable";
      const why = code === "EROFS" ? "is on a read-only file system" : "is not writable";
      throw new ConfigError(`The data directory ${resolve(dir)} ${why} (${code}): Issuepool keeps its database there. Make it writable, or set DATA_DIR to a directory that is.`);
    }
  }
}
