/**
 * The node agent's routes: who may call them (a node token, and nothing
 * else), pairing as a device flow (codes expire, are single-use and work
 * only for the wallet's owner), and revocation (a revoked token stops
 * working within one poll, even one already waiting).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { computeNodes, nodePairings } from "../../../db/schema/index.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { agentCall, pairNode, walletOf } from "../../../testing/compute.ts";
import { issueVscodeToken } from "../../services/auth/vscode.ts";
import { PAIRING_TTL_MS } from "../../services/compute/pairing.ts";
import { hashToken } from "../../crypto/tokens.ts";
import { eventually } from "../../../testing/stack.ts";

let t: TestContext;
let owner: TestSession;
let stranger: TestSession;
let clock = Date.now();

beforeAll(async () => {
  t = await createTestContext({ env: { NODE_LONG_POLL_MS: 10_000 } });
  t.ctx.compute.now = () => clock;
  owner = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  stranger = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t.close());

const NODE_ROUTES: { method: string; path: string; body?: unknown }[] = [
  { method: "POST", path: "/api/node-agent/heartbeat", body: {} },
  { method: "GET", path: "/api/node-agent/tasks/next" },
  { method: "POST", path: "/api/node-agent/tasks/task_aaaaaaaaaaaaaaaaaaaaaaaa/result", body: { leaseToken: "x".repeat(26), answer: "hi" } },
  { method: "POST", path: "/api/node-agent/tasks/task_aaaaaaaaaaaaaaaaaaaaaaaa/failure", body: { leaseToken: "x".repeat(26), error: "no" } },
  { method: "POST", path: "/api/node-agent/tasks/task_aaaaaaaaaaaaaaaaaaaaaaaa/release", body: { leaseToken: "x".repeat(26) } },
];

describe("node routes take a node token and nothing else", () => {
  for (const route of NODE_ROUTES) {
    test(`${route.method} ${route.path}: 401 without a token, with a made-up one, with a session, with an editor token`, async () => {
      expect((await agentCall(t, route.path, { method: route.method, body: route.body })).status).toBe(401);
      expect((await agentCall(t, route.path, { method: route.method, body: route.body, token: `ipn_${"a".repeat(52)}` })).status).toBe(401);
      // A signed-in browser (cookie and anti-forgery token) is not a node.
      const res = await call(t, route.path, { method: route.method, body: route.body, as: owner });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toContain("node token");
      const { token: editorToken } = await issueVscodeToken(t.ctx.database.db, owner.user.id);
      expect((await agentCall(t, route.path, { method: route.method, body: route.body, token: editorToken })).status).toBe(401);
    });
  }

  test("a node token is refused on user routes", async () => {
    const { token } = await pairNode(t, owner);
    expect((await agentCall(t, "/api/node-agent/heartbeat", { token, body: {} })).status).toBe(200);
    for (const path of ["/api/node/compute-units", "/api/node/nodes", `/api/node/status?walletAddress=${await walletOf(t, owner)}`, "/api/user/role", "/api/ai-scoping/jobs"]) {
      expect({ path, status: (await agentCall(t, path, { token })).status }).toEqual({ path, status: 401 });
    }
    expect((await agentCall(t, "/api/node/dispatch-task", { token, body: { prompt: "hello" } })).status).toBe(401);
    // Reads that answer signed-out visitors too refuse it: a bearer that is not a live editor token is 401 there.
    expect((await agentCall(t, "/api/auth/user", { token })).status).toBe(401);
    expect((await agentCall(t, "/api/wallet/info", { token })).status).toBe(401);
  });

  test("the database keeps only the token's hash", async () => {
    const { nodeId, token } = await pairNode(t, owner);
    const [node] = await t.ctx.database.db.select().from(computeNodes).where(eq(computeNodes.id, nodeId));
    expect(node!.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(node)).not.toContain(token);
  });
});

describe("pairing", () => {
  const start = async (session: TestSession, body: Record<string, unknown> = {}) => {
    const res = await agentCall(t, "/api/node-agent/pairings", { body: { walletAddress: await walletOf(t, session), name: "my box", backend: "demo", ...body }, headers: { "X-Forwarded-For": session.ip } });
    expect(res.status).toBe(201);
    return (await res.json()) as { deviceSecret: string; userCode: string; verificationUrl: string; intervalMs: number };
  };
  const redeem = async (deviceSecret: string) => {
    const res = await agentCall(t, "/api/node-agent/pairings/redeem", { body: { deviceSecret } });
    return { status: res.status, body: (await res.json()) as { status?: string; nodeToken?: string; nodeId?: string; intervalMs?: number } };
  };

  test("the agent waits until the owner approves, then gets its token once", async () => {
    const pairing = await start(owner);
    expect(pairing.userCode).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(pairing.verificationUrl).toEndWith(`/provider-hub?code=${pairing.userCode}`);
    expect((await redeem(pairing.deviceSecret)).body).toEqual({ status: "pending", intervalMs: pairing.intervalMs });
    const shown = await call(t, `/api/node/pairings/${pairing.userCode}`, { as: owner });
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({ code: pairing.userCode, name: "my box", backend: "demo" });
    // lower case and without the dash is the same code
    const approved = await call(t, "/api/node/pairings/approve", { as: owner, body: { code: pairing.userCode.replace("-", "").toLowerCase() } });
    expect(approved.status).toBe(200);
    const first = await redeem(pairing.deviceSecret);
    expect(first.body.status).toBe("paired");
    expect(first.body.nodeToken).toStartWith("ipn_");
    // single use: the secret is spent, and the code can be neither shown nor approved again
    expect((await redeem(pairing.deviceSecret)).status).toBe(404);
    expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code: pairing.userCode } })).status).toBe(404);
    expect((await call(t, `/api/node/pairings/${pairing.userCode}`, { as: owner })).status).toBe(404);
    const nodes = (await (await call(t, "/api/node/nodes", { as: owner })).json()) as { nodes: { id: string; name: string; status: string }[] };
    expect(nodes.nodes.find((n) => n.id === first.body.nodeId)).toMatchObject({ name: "my box", status: "Online" });
  });

  test("a code is approved once: a second approval is 404 and makes no second node", async () => {
    const pairing = await start(owner);
    expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code: pairing.userCode } })).status).toBe(200);
    expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code: pairing.userCode } })).status).toBe(404);
    expect((await redeem(pairing.deviceSecret)).body.status).toBe("paired");
  });

  test("codes expire: neither approval nor redemption works after PAIRING_TTL_MS (fake clock)", async () => {
    const pairing = await start(owner);
    const approvedLate = await (async () => {
      clock += PAIRING_TTL_MS + 1;
      try {
        return await call(t, "/api/node/pairings/approve", { as: owner, body: { code: pairing.userCode } });
      } finally {
        clock -= PAIRING_TTL_MS + 1;
      }
    })();
    expect(approvedLate.status).toBe(404);
    // approved in time, redeemed too late
    const second = await start(owner);
    expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code: second.userCode } })).status).toBe(200);
    clock += PAIRING_TTL_MS + 1;
    try {
      expect((await redeem(second.deviceSecret)).status).toBe(404);
    } finally {
      clock -= PAIRING_TTL_MS + 1;
    }
    // expired pairings are deleted by the dispatcher's housekeeping
    clock += PAIRING_TTL_MS + 1;
    try {
      await t.ctx.compute.runPass();
    } finally {
      clock -= PAIRING_TTL_MS + 1;
    }
    const left = await t.ctx.database.db.select().from(nodePairings);
    expect(left.some((p) => p.userCode === second.userCode.replace("-", ""))).toBe(false);
  });

  test("only the wallet's owner can see or approve its code; to anyone else it does not exist", async () => {
    const pairing = await start(owner);
    expect((await call(t, `/api/node/pairings/${pairing.userCode}`, { as: stranger })).status).toBe(404);
    expect((await call(t, "/api/node/pairings/approve", { as: stranger, body: { code: pairing.userCode } })).status).toBe(404);
    expect((await redeem(pairing.deviceSecret)).body.status).toBe("pending");
    // a signed-out visitor
    expect((await call(t, "/api/node/pairings/approve", { body: { code: pairing.userCode } })).status).toBe(401);
  });

  test("bad input is refused with the field named", async () => {
    const res = await agentCall(t, "/api/node-agent/pairings", { body: { walletAddress: "0x1234", name: "box", backend: "demo" } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain("walletAddress");
    expect((await agentCall(t, "/api/node-agent/pairings", { body: { walletAddress: await walletOf(t, owner), name: "<script>", backend: "demo" } })).status).toBe(400);
    expect((await call(t, "/api/node/pairings/approve", { as: owner, body: { code: "0000-0000" } })).status).toBe(400);
  });
});

describe("revocation", () => {
  test("a revoked token stops working within one poll, even a poll already waiting", async () => {
    const { nodeId, token } = await pairNode(t, owner);
    const controller = new AbortController();
    const waiting = agentCall(t, "/api/node-agent/tasks/next", { token, signal: controller.signal });
    // the poll is waiting (no task) when the owner revokes the node
    await eventually(async () => t.ctx.compute.waitingPolls(nodeId) === 1, 5000, "the poll to wait");
    const revoked = await call(t, `/api/node/nodes/${nodeId}`, { method: "DELETE", as: owner });
    expect(revoked.status).toBe(200);
    const started = Date.now();
    const poll = await waiting;
    expect(poll.status).toBe(401);
    expect(Date.now() - started).toBeLessThan(t.env.NODE_LONG_POLL_MS);
    expect((await agentCall(t, "/api/node-agent/heartbeat", { token, body: {} })).status).toBe(401);
    expect((await agentCall(t, "/api/node-agent/tasks/next", { token })).status).toBe(401);
    const nodes = (await (await call(t, "/api/node/nodes", { as: owner })).json()) as { nodes: { id: string }[] };
    expect(nodes.nodes.map((n) => n.id)).not.toContain(nodeId);
  });

  test("another user's node cannot be revoked (404) and keeps working", async () => {
    const { nodeId, token } = await pairNode(t, owner);
    expect((await call(t, `/api/node/nodes/${nodeId}`, { method: "DELETE", as: stranger })).status).toBe(404);
    expect((await agentCall(t, "/api/node-agent/heartbeat", { token, body: {} })).status).toBe(200);
  });
});
