import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ContractFunctionRevertedError, HttpRequestError, TimeoutError, CallExecutionError, parseAbi } from "viem";
import { toDomainError } from "./errors.ts";
import { httpStatusOf } from "../errors.ts";
import { GitHubApiError } from "../github/client.ts";
import { createTestContext, type TestContext } from "../../testing/context.ts";
import { call, createTestUser, signInAs } from "../../testing/auth.ts";

describe("upstream failures", () => {
  test("an unreachable or silent chain is 503 'Network unavailable', also when wrapped", () => {
    const down = new HttpRequestError({ url: "http://127.0.0.1:9", details: "ECONNREFUSED" });
    expect([httpStatusOf(toDomainError(down)), toDomainError(down).title]).toEqual([503, "Network unavailable"]);
    expect(httpStatusOf(toDomainError(new TimeoutError({ body: {}, url: "http://127.0.0.1:9" })))).toBe(503);
    expect(httpStatusOf(toDomainError(new CallExecutionError(down, {})))).toBe(503);
  });

  test("a revert is not an outage", () => {
    const reverted = new ContractFunctionRevertedError({ abi: parseAbi(["function f()"]), functionName: "f" });
    expect(httpStatusOf(toDomainError(reverted))).toBe(500);
  });

  test("GitHub down or rate limited is 502; other GitHub answers are the caller's to handle", () => {
    const unreachable = toDomainError(new GitHubApiError(0, "unreachable", null, false));
    expect([httpStatusOf(unreachable), unreachable.title]).toEqual([502, "GitHub Unavailable"]);
    expect(httpStatusOf(toDomainError(new GitHubApiError(503, "down", null, false)))).toBe(502);
    expect(httpStatusOf(toDomainError(new GitHubApiError(403, "rate limit", null, true)))).toBe(502);
    expect(httpStatusOf(toDomainError(new GitHubApiError(404, "Not Found", null, false)))).toBe(500);
  });
});

describe("an endpoint that reads the chain while the chain is down", () => {
  let t: TestContext;
  beforeAll(async () => {
    t = await createTestContext();
  });
  afterAll(() => t.close());

  test("answers 503 with the clear message, not 500", async () => {
    const user = await createTestUser(t, { role: "poolmanager" });
    const res = await call(t, "/api/blockchain/roxn-allowance", { as: await signInAs(t, user) });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: "Network unavailable", message: "Could not reach the XDC network. Please try again in a moment." });
  });
});
