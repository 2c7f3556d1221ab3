import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Files along their seams (issue 37, item 7): a shipped file of api/ past a few hundred lines is usually two
 * (docs/where-things-go.md). Split it where its state machine or its readers and writers part, each part opening with
 * what it holds. Tests and generated files (a "generated" notice in their first lines) do not count.
 */
const MAX_LINES = 450;

const root = join(import.meta.dir, "..");
function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === "node_modules" ? [] : sources(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const generated = (text: string) => /generated|do not edit/i.test(text.split("\n", 5).join("\n"));

describe("file sizes in api/ (issue 37, item 7)", () => {
  test(`no shipped file is over ${MAX_LINES} lines`, () => {
    const files = sources("api");
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }))
      .filter(({ text }) => !generated(text))
      .map(({ file, text }) => ({ file, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(offenders).toEqual([]);
  });
});
