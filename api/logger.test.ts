import { describe, expect, test } from "bun:test";
import { createMemoryLogger, redact } from "./logger.ts";

describe("logger", () => {
  test("writes one JSON object per line with bound fields", () => {
    const log = createMemoryLogger("info");
    log.child({ requestId: "r1" }).info("hello", { n: 1 });
    log.debug("hidden");
    expect(log.lines).toHaveLength(1);
    const record = JSON.parse(log.lines[0]!);
    expect(record).toMatchObject({ level: "info", msg: "hello", requestId: "r1", n: 1 });
  });

  test("redacts secret-looking fields at any depth", () => {
    const out = redact({
      token: "abc",
      nested: { privateKey: "0xdead", cookie: "s=1", list: [{ otp: "123456" }] },
      amount: 5n,
      ok: "visible",
    }) as Record<string, any>;
    expect(out.token).toBe("[redacted]");
    expect(out.nested.privateKey).toBe("[redacted]");
    expect(out.nested.cookie).toBe("[redacted]");
    expect(out.nested.list[0].otp).toBe("[redacted]");
    expect(out.amount).toBe("5");
    expect(out.ok).toBe("visible");
  });
});
