import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { compileErrors, validate } from "@readme/openapi-parser";
import { apiDocument } from "./document.ts";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { answersCheckedAgainstDocument, apiConformance, checkedFetch, ResponseBreaksApiDocument } from "./conformance.ts";
import { createTestContext, makeTempDir } from "../../testing/context.ts";
import { answersThatBrokeTheDocument } from "./broken-answers.ts";
import { createLogger, logDestination } from "../logger.ts";
import { eventually } from "../../testing/stack.ts";

const TAGS = ["auth", "wallet", "blockchain", "repositories", "public", "webhooks", "ai-scoping", "nodes", "vscode", "funding", "alerts", "statements", "attempts"];
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Operation = {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  "x-stability"?: string;
};
const document = () => apiDocument() as unknown as { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>; components: { securitySchemes: Record<string, unknown> } };
const operations = () =>
  Object.entries(document().paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [{ key: `${method.toUpperCase()} ${path}`, path, method, operation: item[method]! }] : [])),
  );

/**
 * Routes whose Hono path is not their public path. `/api/repos/details` is routed as `/api/repos/:repoId` (see
 * api/routes/repos/index.ts: Hono's fastest router refuses the static segment beside the parameter).
 */
const ROUTED_AS: Record<string, string> = {
  "GET /api/repos/details": "GET /api/repos/{repoId}",
  // api/routes/funding/community.ts: the original client's leaderboard beside /{id}/pay.
  "GET /api/community-bounties/leaderboard": "GET /api/community-bounties/{id}",
  // api/routes/repositories/accessible.ts: the same router rule, beside the public reads' middleware.
  "PATCH /api/repositories/{githubRepoId}/active": "PATCH /api/repositories/*",
};

describe("the API document", () => {
  test("validates as OpenAPI 3.1 (@readme/openapi-parser)", async () => {
    const copy = structuredClone(apiDocument());
    const result = await validate(copy as never);
    expect(result.valid ? "valid" : compileErrors(result)).toBe("valid");
    expect(apiDocument().openapi).toBe("3.1.0");
  });

  test("every route the app registers is declared, and every declared path is routed", async () => {
    const t = await createTestContext();
    try {
      // Hono's own list, less middleware (ALL) and the catch-all 404; `:name{regex}` and `:name` become `{name}`.
      const routed = new Set(
        t.app.routes
          .filter((r) => r.method !== "ALL" && r.path.startsWith("/api/"))
          .map((r) => `${r.method} ${r.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`),
      );
      const declared = new Set(operations().map((o) => ROUTED_AS[o.key] ?? o.key));
      const undeclared = [...routed].filter((r) => !declared.has(r)).sort();
      const unrouted = [...declared].filter((d) => !routed.has(d)).sort();
      // A new route: add a declareRoute(...) for it to its module's array (api/openapi/declare.ts explains how).
      expect({ "routed but not declared": undeclared, "declared but not routed": unrouted }).toEqual({ "routed but not declared": [], "declared but not routed": [] });
      expect(routed.size).toBeGreaterThan(80);
    } finally {
      t.close();
    }
  });

  test("every operation has a unique id, one of the API's tags and its security", () => {
    const ids = operations().map((o) => o.operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    const schemes = Object.keys(document().components.securitySchemes);
    expect(schemes.sort()).toEqual(["csrf", "githubSignature", "nodeToken", "onrampSignature", "session", "vscode"]);
    for (const { key, operation } of operations()) {
      expect({ key, tags: operation.tags?.every((tag) => TAGS.includes(tag)) && operation.tags.length > 0 }).toEqual({ key, tags: true });
      expect({ key, security: Array.isArray(operation.security) }).toEqual({ key, security: true });
      for (const requirement of operation.security!) for (const scheme of Object.keys(requirement)) expect(schemes).toContain(scheme);
    }
    // Writes with a session carry the anti-forgery token beside it.
    for (const { key, method, operation } of operations()) {
      if (method === "get" || key.startsWith("POST /api/node-agent/") || key.startsWith("POST /api/webhooks/")) continue;
      for (const requirement of operation.security!) if ("session" in requirement) expect({ key, csrf: "csrf" in requirement }).toEqual({ key, csrf: true });
    }
  });

  test("the money routes take an Idempotency-Key", () => {
    const money = [
      "POST /api/blockchain/repository/{repoId}/fund",
      "POST /api/blockchain/repository/{repoId}/withdraw",
      "POST /api/blockchain/fund-roxn/{repoId}",
      "POST /api/blockchain/fund-usdc/{repoId}",
      "POST /api/blockchain/approve-roxn",
      "POST /api/blockchain/approve-usdc",
      "POST /api/blockchain/allocate-bounty/{repoId}/{issueId}",
      "POST /api/blockchain/distribute-bounty/{repoId}/{issueId}",
      "POST /api/blockchain/cancel-bounty/{repoId}/{issueId}",
      "POST /api/wallet/send",
      "POST /api/funding/issues/{owner}/{name}/{issueNumber}/boosts",
      "POST /api/tips",
      "POST /api/splits/{repoId}/{issueNumber}/shares/{login}/return",
    ];
    const withKey = operations()
      .filter((o) => o.operation.parameters?.some((p) => p.in === "header" && p.name === "Idempotency-Key"))
      .map((o) => o.key)
      .sort();
    expect(withKey).toEqual(money.sort());
  });

  test("the public reads are marked stable and take no credentials", () => {
    const stable = operations().filter((o) => o.operation["x-stability"] === "stable");
    expect(stable.map((o) => o.key).sort()).toEqual([
      "GET /api/badges/{owner}/{repo}",
      "GET /api/badges/{owner}/{repo}/issues/{file}",
      "GET /api/blockchain/issue-bounty/{repoId}/{issueId}",
      "GET /api/blockchain/pool-info/{repoId}",
      "GET /api/public/github/issues",
      "GET /api/public/github/repos/{owner}/{repo}",
      "GET /api/public/repositories/{repoId}",
      "GET /api/public/unified-repo/{owner}/{repo}",
      "GET /api/repos/details",
      "GET /api/repos/{repoId}/rewards",
      "GET /api/repositories/public",
    ]);
    for (const { key, operation } of stable) expect({ key, anonymous: operation.security!.length === 0 || operation.security!.some((r) => Object.keys(r).length === 0) }).toEqual({ key, anonymous: true });
  });
});

describe("responses are checked against the document", () => {
  test("a response that breaks its schema fails the call that received it, naming the field", async () => {
    // A deliberately broken handler: the role as a number, where the document says contributor, poolmanager or null.
    const broken = new Hono().get("/api/user/role", (c) => c.json({ role: 42 }));
    const fetch = checkedFetch(broken.fetch);
    const error = await Promise.resolve(fetch(new Request("http://127.0.0.1/api/user/role"))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ResponseBreaksApiDocument);
    expect(String(error)).toContain("GET /api/user/role → 200");
    expect(String(error)).toContain("/role");
    // A missing field, a status the document does not declare, and an unknown path fail too.
    expect(apiConformance().problems("GET", "/api/wallet/info", 200, { address: "" })).not.toEqual([]);
    expect(apiConformance().problems("GET", "/api/user/role", 201, { role: null })).toEqual(["GET /api/user/role → 201 (GET /api/user/role): the API document declares no JSON response for status 201"]);
    expect(apiConformance().problems("GET", "/api/no-such-thing", 200, {})[0]).toContain("no operation in the API document");
    // Errors answer the shared shape at any status; a wrong one fails.
    expect(apiConformance().problems("POST", "/api/wallet/send", 429, { error: "Too Many Requests", message: "Wait.", code: "rate_limited", requestId: "r" })).toEqual([]);
    expect(apiConformance().problems("POST", "/api/wallet/send", 429, { message: "Wait." })).not.toEqual([]);
  });

  test("a field the code answers without declaring it fails too (objects are closed when the tests check them)", () => {
    const check = apiConformance();
    // At the top, nested in a component (the unified view's blockchain part), and beside an allOf of a $ref and more.
    expect(check.problems("GET", "/api/user/role", 200, { role: "contributor", admin: true }).join()).toContain("(admin)");
    const send = { success: true, transactionHash: `0x${"a".repeat(64)}`, id: "s1", token: "XDC", to: "0x0000000000000000000000000000000000000001" };
    const sendProblems = (body: object) => check.problems("POST", "/api/wallet/send", 200, body);
    const declared = sendProblems(send);
    expect(sendProblems({ ...send, secret: "x" }).length).toBeGreaterThan(declared.length);
    expect(sendProblems({ ...send, secret: "x" }).join()).toContain("secret");
    // The error shape is closed as well.
    expect(check.problems("POST", "/api/wallet/send", 429, { error: "Too Many Requests", message: "Wait.", code: "rate_limited", requestId: "r", stack: "at …" }).join()).toContain("(stack)");
    // The published document stays open (clients ignore fields they do not know): only the check is strict.
    expect(JSON.stringify(apiDocument())).not.toContain("unevaluatedProperties");
  });

  test("the same answer, right, passes", async () => {
    const fine = new Hono().get("/api/user/role", (c) => c.json({ role: "contributor" }));
    const response = await checkedFetch(fine.fetch)(new Request("http://127.0.0.1/api/user/role"));
    expect(await response.json()).toEqual({ role: "contributor" });
  });

  test("the test app checks every answer: its fetch is wrapped", async () => {
    const t = await createTestContext();
    try {
      const res = await t.app.request("/api/openapi.json");
      expect(res.status).toBe(200);
      expect((await res.json()).openapi).toBe("3.1.0");
      // An unrouted path answers the shared 404 shape, which is checked too.
      expect((await t.app.request("/api/nothing-here")).status).toBe(404);
    } finally {
      t.close();
    }
  });
});

test("a server in its own process logs an answer that breaks the document, sends it unchanged, and its harness fails the test", async () => {
  let calls = 0;
  const broken = new Hono().post("/api/user/role", (c) => {
    calls++;
    return c.json({ role: 42 });
  });
  const dir = await makeTempDir("issuepool-conformance-");
  try {
    const logFile = join(dir, "server.log");
    const log = createLogger("info", logDestination(logFile));
    const fetch = answersCheckedAgainstDocument(broken.fetch, log);
    const response = await fetch(new Request("http://127.0.0.1/api/user/role", { method: "POST", body: "{}" }));
    // The handler ran once (a POST is never repeated) and its answer leaves as it was.
    expect(calls).toBe(1);
    expect(await response.json()).toEqual({ role: 42 });
    await eventually(async () => (await answersThatBrokeTheDocument(logFile)).length === 1, 5_000, "the problem in the log");
    expect((await answersThatBrokeTheDocument(logFile))[0]).toContain("/role");
    // The dev stack of the browser journeys logs in the pretty format: found there too.
    const prettyFile = join(dir, "pretty.log");
    const pretty = createLogger("info", logDestination(prettyFile), {}, "pretty");
    await answersCheckedAgainstDocument(broken.fetch, pretty)(new Request("http://127.0.0.1/api/user/role", { method: "POST", body: "{}" }));
    await eventually(async () => (await answersThatBrokeTheDocument(prettyFile)).length === 1, 5_000, "the problem in the pretty log");
    expect((await answersThatBrokeTheDocument(prettyFile))[0]).toContain("POST /api/user/role → 200");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a gzipped answer (a cached public read) is inflated before it is checked", async () => {
  const body = JSON.stringify({ role: 42 });
  const gzipped = new Hono().get("/api/user/role", () => new Response(Bun.gzipSync(new TextEncoder().encode(body)), { headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } }));
  const error = await Promise.resolve(checkedFetch(gzipped.fetch)(new Request("http://127.0.0.1/api/user/role"))).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(String(error)).toContain("/role");
  expect(String(error)).not.toContain("not JSON");
});
