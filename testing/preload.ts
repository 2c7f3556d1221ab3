/**
 * Loaded before every `bun test` file (bunfig.toml). Its hooks are global:
 * after the last test, the temp directories the run made are removed.
 */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./temp-dirs.ts";

afterAll(removeTempDirs);
