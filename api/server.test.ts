import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createMemoryLogger } from "./logger.ts";
import { startServer } from "./server.ts";
import { makeTempDir, NO_CHAIN, NO_EXTERNALS, testEnv } from "../testing/context.ts";
import { eventually } from "../testing/stack.ts";
import { sharedTestSecrets } from "../testing/dev-tools.ts";

const ROOT = join(import.meta.dir, "..");

describe("graceful shutdown", () => {
  test("stop() finishes in-flight requests, refuses new ones, closes the database", async () => {
    const env = await testEnv({ PORT: 0 });
    const log = createMemoryLogger();
    const running = await startServer(env, { site: false, log });
    const base = `http://127.0.0.1:${running.server.port}`;

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const encoder = new TextEncoder();
    const body = new ReadableStream({
      async start(controller) {
        controller.enqueue(encoder.encode('{"slow":'));
        await gate;
        controller.enqueue(encoder.encode("true}"));
        controller.close();
      },
    });
    const inflight = fetch(`${base}/api/slow-upload`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      // @ts-expect-error streamed request body
      duplex: "half",
    });
    // The upload is in the server's hands (its body still open) before the stop begins.
    await eventually(async () => running.server.pendingRequests > 0, 10_000, "the upload to reach the server");
    const stopped = running.stop();
    // New connections are refused while the upload is still being answered.
    await eventually(async () => fetch(`${base}/api/health`).then(() => false, () => true), 10_000, "new connections to be refused");
    release();
    const res = await inflight;
    expect(res.status).toBe(404); // it reached the app and was answered
    await stopped;
    expect(running.ctx.database.client.closed).toBe(true);
    expect(log.lines.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
  });

  test("the production entry refuses to start without a built site, and says why", async () => {
    const dir = await makeTempDir();
    const proc = Bun.spawn([process.execPath, join(ROOT, "api", "serve.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...(await sharedTestSecrets()), ...NO_CHAIN, ...NO_EXTERNALS, PORT: "0", DATA_DIR: dir, SITE_DIST_DIR: join(dir, "no-site"), LOG_FORMAT: "json", LOG_LEVEL: "info" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let output = "";
    while (!output.includes("\n") && output.length < 10_000) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    const code = await proc.exited;
    const stderr = await new Response(proc.stderr).text();
    expect(code).not.toBe(0);
    expect(stderr + output).toContain("The site is not built");
  });
});

describe("the health check on the server's own route", () => {
  test("answers like the app does: the report, request id, nosniff, no-store and a log line; other methods reach the app", async () => {
    const env = await testEnv({ PORT: 0 });
    const log = createMemoryLogger();
    const running = await startServer(env, { site: false, log, workers: false });
    try {
      const base = `http://127.0.0.1:${running.server.port}`;
      const res = await fetch(`${base}/api/health`, { headers: { "X-Request-Id": "probe-1" } });
      expect(res.status).toBe(503); // the test chain is not reachable
      expect(res.headers.get("X-Request-Id")).toBe("probe-1");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      const again = await fetch(`${base}/api/health`);
      expect(again.headers.get("X-Request-Id")).not.toBe("probe-1"); // headers are not shared between answers
      await again.arrayBuffer();
      const report = await res.json();
      expect(report).toMatchObject({ status: "degraded", database: { ok: true } });
      await eventually(async () => log.lines.some((l) => l.includes('"path":"/api/health"') && l.includes('"requestId":"probe-1"')), 10_000, "the access line");
      const post = await fetch(`${base}/api/health`, { method: "POST", headers: { Origin: env.PUBLIC_URL } });
      expect(post.status).toBe(404);
      expect((await post.json()).message).toBe("No API endpoint at POST /api/health");
    } finally {
      await running.stop();
    }
  });
});

describe("cached public reads on the running server", () => {
  test("the second read comes from the cache before the app, the same answer with the same headers", async () => {
    const env = await testEnv({ PORT: 0 });
    const log = createMemoryLogger();
    const running = await startServer(env, { site: false, log, workers: false });
    try {
      const base = `http://127.0.0.1:${running.server.port}`;
      const first = await fetch(`${base}/api/repositories/public`);
      const second = await fetch(`${base}/api/repositories/public?cachebuster=7`, { headers: { "X-Request-Id": "second" } });
      expect(second.status).toBe(200);
      expect(await second.json()).toEqual(await first.json());
      for (const name of ["Content-Type", "Cache-Control", "ETag", "X-Content-Type-Options"]) expect(second.headers.get(name)).toBe(first.headers.get(name));
      expect(second.headers.get("X-Request-Id")).toBe("second");
      const notModified = await fetch(`${base}/api/repositories/public`, { headers: { "If-None-Match": first.headers.get("ETag")! } });
      expect(notModified.status).toBe(304);
      expect(running.ctx.responseCache.size).toBe(1);
    } finally {
      await running.stop();
    }
  });
});
