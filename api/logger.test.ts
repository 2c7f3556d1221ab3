import { describe, expect, test } from "bun:test";
import { createLogger, createMemoryLogger, redact } from "./logger.ts";
import { logRedaction } from "./logger-config.ts";
import { testEnv } from "../testing/context.ts";

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

describe("redaction by configuration", () => {
  test("configured field names are redacted beside the built-in ones, at any depth and in bound fields", () => {
    const log = createMemoryLogger("info", { redaction: { fields: ["walletLabel"] } });
    log.child({ sessionToken: "s3cret-session" }).info("x", { deep: { a: [{ walletLabel: "mine", signature: "sig" }] }, visible: "yes" });
    const line = log.lines[0]!;
    expect(line).not.toContain("s3cret-session");
    expect(line).not.toContain("mine");
    expect(line).not.toContain('"sig"');
    expect(JSON.parse(line)).toMatchObject({ visible: "yes", sessionToken: "[redacted]", deep: { a: [{ walletLabel: "[redacted]", signature: "[redacted]" }] } });
  });

  test("the configured secrets' values never appear, in fields, errors or the message", async () => {
    const env = await testEnv({ LOG_REDACT_FIELDS: "nickname" });
    const redaction = logRedaction(env);
    expect(redaction.fields).toEqual(["nickname"]);
    const log = createMemoryLogger("info", { redaction });
    const key = env.ENCRYPTION_KEYS.split(",")[0]!.split(":")[1]!;
    log.error(`failed with ${env.APP_SECRET}`, { err: new Error(`bad key ${env.OPERATOR_PRIVATE_KEY.slice(2)}`), note: `k=${key}`, nickname: "n" });
    const line = log.lines[0]!;
    for (const secret of [env.APP_SECRET, env.OPERATOR_PRIVATE_KEY.slice(2), key, env.GITHUB_CLIENT_SECRET]) expect(line).not.toContain(secret);
    expect(line).toContain("[redacted]");
    expect(JSON.parse(line).msg).toBe("failed with [redacted]");
  });

  test("pretty lines for a terminal: the request line short, other lines with their fields on one line", () => {
    const lines: string[] = [];
    const log = createLogger("info", (l) => lines.push(l), {}, "pretty");
    log.request("GET", "/repos", 200, 3.1, "rid-1");
    log.warn("answer breaks the API document", { problems: "x", token: "t0k3n-value" });
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: GET \/repos 200 3\.1ms$/);
    expect(lines[1]).toMatch(/WARN: answer breaks the API document \{"problems":"x","token":"\[redacted\]"\}$/);
  });
});

describe("logging to stdout", () => {
  test("every line arrives, in order, also when the process exits at once", async () => {
    const script = `
      import { createLogger } from ${JSON.stringify(import.meta.dir + "/logger.ts")};
      const log = createLogger("info");
      for (let i = 0; i < 5000; i++) log.info("line", { i });
      log.request("GET", "/last", 200, 1.5, "rid-1");
      process.exit(0);
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const lines = (await new Response(proc.stdout).text()).trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5001);
    expect(lines.slice(0, 5000).every((l, i) => l.i === i)).toBe(true);
    expect(lines[5000]).toMatchObject({ msg: "request", path: "/last", requestId: "rid-1" });
  });

  test("every line arrives, whole, when the reader is slow and the process exits at once", async () => {
    // CI on a busy machine cut a line in half: the pipe was full, a stream write was left in memory at exit.
    // A reader that takes its time (a log shipper behind) fills the pipe on purpose.
    const script = `
      import { createLogger } from ${JSON.stringify(import.meta.dir + "/logger.ts")};
      const log = createLogger("info");
      for (let i = 0; i < 5000; i++) log.info("line", { i, pad: "x".repeat(200) });
      log.request("GET", "/last", 200, 1.5, "rid-1");
      process.exit(0);
    `;
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += decoder.decode(chunk.value, { stream: true });
      // The slow reader itself (not a wait for a condition): each read leaves the writer time to fill the pipe.
      await Bun.sleep(20);
    }
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(5001);
    expect(lines.slice(0, 5000).every((l, i) => l.i === i)).toBe(true);
    expect(lines[5000]).toMatchObject({ msg: "request", path: "/last", requestId: "rid-1" });
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
