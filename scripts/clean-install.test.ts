/**
 * What a newcomer's `npm install` prints (issue 27: ~180 EBADENGINE warnings on Node 20, because Astro, unpdf,
 * the Scalar API reference and @vscode/vsce declare Node >= 22; README: Quick start says what a clean install
 * prints). A dry run of the lockfile in a copy of the repository's npm files, with the user's own npm
 * configuration left out: no warning, only the summary line.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../testing/context.ts";

const ROOT = join(import.meta.dir, "..");

test("npm install prints no warning about the dependencies' engines, only its summary", async () => {
  const dir = await makeTempDir("issuepool-npm-install-");
  for (const file of ["package.json", "package-lock.json", ".npmrc"]) copyFileSync(join(ROOT, file), join(dir, file));
  const userConfig = join(dir, "empty-user-npmrc");
  writeFileSync(userConfig, "");
  const run = spawnSync("npm", ["install", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: dir, npm_config_userconfig: userConfig, npm_config_cache: join(process.env.HOME ?? dir, ".npm") },
    timeout: 120_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.status, output.slice(-2000)).toBe(0);
  expect(output.split("\n").filter((line) => /^npm (warn|WARN)/.test(line))).toEqual([]);
  expect(output).toMatch(/added \d+ packages in/);
}, 150_000);
