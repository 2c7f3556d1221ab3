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

describe("logging to a closed stdout", () => {
  test("does not crash the process", async () => {
    const script = `
      import { createLogger } from ${JSON.stringify(import.meta.dir + "/logger.ts")};
      const log = createLogger("info");
      for (let i = 0; i < 50; i++) log.info("before", { i });
      setTimeout(() => {
        for (let i = 0; i < 2000; i++) log.info("after the reader left", { i });
        setTimeout(() => { console.error("alive"); process.exit(0); }, 300);
      }, 300);
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    await proc.stdout.cancel(); // the reader goes away
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toContain("alive");
    expect(code).toBe(0);
  });
});
