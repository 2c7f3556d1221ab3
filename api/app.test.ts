import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { z } from "zod";
import { createTestContext, type TestContext } from "../testing/context.ts";
import { onError } from "./middleware/errors.ts";
import { validate } from "./validate.ts";
import { limitBody } from "./middleware/body-limit.ts";
import type { AppBindings } from "./context.ts";
import { edge } from "./middleware/edge.ts";
import { createMemoryLogger } from "./logger.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ env: { MAX_BODY_BYTES: 1024 } });
});
afterAll(() => t.close());

describe("the API skeleton", () => {
  test("every response carries a request id, errors repeat it in the body", async () => {
    const ok = await t.app.request("/api/health");
    expect(ok.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const missing = await t.app.request("/api/does-not-exist");
    const body = await missing.json();
    expect(body.requestId).toBe(missing.headers.get("x-request-id")!);
  });

  test("unknown /api paths answer a JSON 404 in the one error shape", async () => {
    const res = await t.app.request("/api/nope/deeper", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    const body = await res.json();
    expect(body).toEqual({
      error: "Not Found",
      message: "No API endpoint at DELETE /api/nope/deeper",
      code: "not_found",
      requestId: expect.any(String),
    });
  });

  test("a repository id without /rewards is not an endpoint (it shares a route with /api/repos/details)", async () => {
    const res = await t.app.request("/api/repos/123");
    expect(res.status).toBe(404);
    expect((await res.json()).message).toBe("No API endpoint at GET /api/repos/123");
  });

  test("every route fits Hono's RegExpRouter (one route that does not makes the whole app fall back to a slower router)", () => {
    const router = new RegExpRouter<number>();
    for (const [i, route] of t.app.routes.entries()) router.add(route.method, route.path, i);
    expect(() => router.match("GET", "/api/health")).not.toThrow();
  });

  test("bodies over the limit get 413, declared or streamed", async () => {
    const declared = await t.app.request("/api/anything", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(2000) }),
    });
    expect(declared.status).toBe(413);
    expect((await declared.json()).code).toBe("payload_too_large");

    const chunks = [new Uint8Array(800), new Uint8Array(800)];
    const streamed = await t.app.request("/api/anything", {
      method: "POST",
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      // @ts-expect-error Bun needs duplex for streamed request bodies
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
  });

  test("request log lines carry method, path, status, ms and request id, never the query", async () => {
    t.log.lines.length = 0;
    const res = await t.app.request("/api/health?code=secret-oauth-code&state=xyz");
    const line = t.log.lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request");
    expect(line).toMatchObject({ method: "GET", path: "/api/health", status: 200, requestId: res.headers.get("x-request-id") });
    expect(typeof line.ms).toBe("number");
    expect(t.log.lines.join("\n")).not.toContain("secret-oauth-code");
  });

  test("security headers: nosniff everywhere; documents refuse framing except /embed/", async () => {
    const api = await t.app.request("/api/health");
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    const page = await t.app.request("/some/page");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toBe("frame-ancestors 'none'");
    expect(page.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    const embed = await t.app.request("/embed/owner/repo");
    expect(embed.headers.get("x-frame-options")).toBeNull();
    expect(embed.headers.get("x-request-id")).toBeTruthy();
  });
});

describe("health", () => {
  test("reports the database", async () => {
    const res = await t.app.request("/api/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.status).toBe("ok");
    expect(body.database.ok).toBe(true);
    expect(typeof body.database.latencyMs).toBe("number");
  });

  test("503 when the database is down", async () => {
    const down = await createTestContext();
    down.ctx.database.close();
    const res = await down.app.request("/api/health");
    expect(res.status).toBe(503);
    expect((await res.json()).database.ok).toBe(false);
  });
});

describe("input errors never become 500", () => {
  // The same middleware the app uses, around a route that reads JSON.
  const log = createMemoryLogger();
  const app = new Hono<AppBindings>();
  beforeAll(() => {
    app.use(edge(t.env, log));
    app.onError(onError);
    app.use(limitBody(64));
    app.post("/echo", validate("json", z.object({ amount: z.string() })), (c) => c.json(c.req.valid("json")));
  });

  test("malformed JSON is a 400 with a clear message", async () => {
    const res = await app.request("/echo", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("malformed_json");
    expect(body.message).toBe("The request body is not valid JSON.");
  });

  test("a schema mismatch names the field", async () => {
    const res = await app.request("/echo", { method: "POST", headers: { "content-type": "application/json" }, body: '{"amount":5}' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.code).toBe("validation_failed");
    expect(body.message).toStartWith("amount:");
  });

  test("a thrown unknown error is a generic 500 that leaks nothing", async () => {
    const boom = new Hono<AppBindings>();
    boom.use(edge(t.env, log));
    boom.onError(onError);
    boom.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    const res = await boom.request("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toContain("hunter2");
    expect(JSON.parse(text)).toMatchObject({ error: "Internal Server Error", message: "An error occurred", code: "internal" });
    // the details go to the log, with the request id, for the operator
    const logged = log.lines.map((l) => JSON.parse(l)).find((l) => l.msg === "unhandled error");
    expect(logged.requestId).toBe(res.headers.get("x-request-id"));
    expect(JSON.stringify(logged)).toContain("hunter2");
  });
});
