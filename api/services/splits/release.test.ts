import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { workerLeases } from "../../../db/schema/index.ts";
import { releaseDueSplits } from "./release.ts";

/**
 * The release pass runs often (every minute by default, every 100 ms in the chain bench): a pass with no split due
 * writes nothing, not even its lease (each durable write waits for the disk; the bench's SQL timings showed lease
 * writes among the most expensive statements of the server).
 */
let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t?.close());

describe("releaseDueSplits", () => {
  test("with nothing due: returns 0 and takes no lease", async () => {
    expect(await releaseDueSplits(t.ctx)).toBe(0);
    expect(await t.ctx.database.db.select().from(workerLeases)).toEqual([]);
  });
});
