/**
 * The spec's node calls and the dispatcher behind them, in process: an
 * "agent" here is a few requests with a node token (the real agent process
 * is tested in node-agent/agent.test.ts). Covers answers and the ledger,
 * the spec's failure text, fairness, failed nodes passed over, leases that
 * run out (fake clock), the attempt cap, Online/Offline after the silence,
 * what the public status tells, the rate limit and the security cases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { computeLedger, computeTasks } from "../../../db/schema/index.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { agentCall, pairNode, walletOf } from "../../../testing/compute.ts";
import { securityCases } from "../../../testing/security.ts";
import { eventually } from "../../../testing/stack.ts";
import { CHAT_SIGN_IN_MESSAGE, MAX_PROMPT_CHARS, NETWORK_FAILED_MESSAGE, estimateTokens, unitsFor, type LeasedTask } from "../../../lib/compute.ts";
import { TASK_MAX_ATTEMPTS } from "../../services/compute/tasks.ts";

const PER_MINUTE = 4;
let t: TestContext;
let provider: TestSession;

beforeAll(async () => {
  t = await createTestContext({ fileDatabase: true, env: { NODE_DISPATCH_PER_MINUTE: PER_MINUTE, NODE_LONG_POLL_MS: 2000 } });
  provider = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t.close());

const asker = async () => signInAs(t, await createTestUser(t, { role: "contributor" }));
const dispatch = (as: TestSession | undefined, prompt: string) => call(t, "/api/node/dispatch-task", { as, body: { prompt } });

/** One long poll by the node; the task it got, if any. */
async function poll(token: string): Promise<LeasedTask | undefined> {
  const res = await agentCall(t, "/api/node-agent/tasks/next", { token });
  if (res.status === 204) return undefined;
  expect(res.status).toBe(200);
  return ((await res.json()) as { task: LeasedTask }).task;
}
const answer = (token: string, task: LeasedTask, text: string) => agentCall(t, `/api/node-agent/tasks/${task.id}/result`, { token, body: { leaseToken: task.leaseToken, answer: text } });
const failIt = (token: string, task: LeasedTask) => agentCall(t, `/api/node-agent/tasks/${task.id}/failure`, { token, body: { leaseToken: task.leaseToken, error: "model crashed" } });

/** Retires the nodes of earlier tests (even one still polling): every test that needs a node pairs its own. */
async function silenceAllNodes(): Promise<void> {
  await t.ctx.database.client.execute("update compute_nodes set last_seen_at = 0, revoked_at = 1");
}

describe("POST /api/node/dispatch-task", () => {
  test("signed out: 401 with the chat's sign-in text", async () => {
    const res = await dispatch(undefined, "hello");
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe(CHAT_SIGN_IN_MESSAGE);
  });

  test("no node online: 503 with the spec's text, at once", async () => {
    await silenceAllNodes();
    const res = await dispatch(await asker(), "hello");
    expect(res.status).toBe(503);
    expect(((await res.json()) as { message: string }).message).toBe(NETWORK_FAILED_MESSAGE);
    expect(await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.prompt, "hello"))).toHaveLength(0);
  });

  test("a node answers: the asker gets the answer, the node's wallet one ledger row, the units its tokens are worth", async () => {
    await silenceAllNodes();
    const { token, nodeId } = await pairNode(t, provider);
    const unitsBefore = ((await (await call(t, "/api/node/compute-units", { as: provider })).json()) as { computeUnits: number }).computeUnits;
    const prompt = "What is XDC? ".repeat(400);
    const reply = dispatch(await asker(), prompt);
    const task = (await poll(token))!;
    expect(task.prompt).toBe(prompt);
    const text = "A fast EVM chain. ".repeat(200);
    const accepted = await answer(token, task, text);
    expect(accepted.status).toBe(200);
    const units = unitsFor(estimateTokens(prompt) + estimateTokens(text));
    expect(units).toBeGreaterThan(1);
    expect(await accepted.json()).toEqual({ units });
    const res = await reply;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: text });
    const ledger = await t.ctx.database.db.select().from(computeLedger).where(eq(computeLedger.taskId, task.id));
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ nodeId, units });
    const unitsAfter = ((await (await call(t, "/api/node/compute-units", { as: provider })).json()) as { computeUnits: number }).computeUnits;
    expect(unitsAfter - unitsBefore).toBe(units);
    const own = (await (await call(t, "/api/node/nodes", { as: provider })).json()) as { nodes: { id: string; computeUnits: number; tasksCompleted: number }[] };
    expect(own.nodes.find((n) => n.id === nodeId)).toMatchObject({ computeUnits: units, tasksCompleted: 1 });
    // a second answer to the same task is refused and earns nothing
    expect((await answer(token, task, "again")).status).toBe(409);
    expect(await t.ctx.database.db.select().from(computeLedger).where(eq(computeLedger.taskId, task.id))).toHaveLength(1);
  });

  test("an empty or oversized prompt is refused before anything is queued", async () => {
    const who = await asker();
    for (const prompt of ["", "   \n ", "x".repeat(MAX_PROMPT_CHARS + 1)]) {
      const res = await dispatch(who, prompt);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toStartWith("prompt:");
    }
    expect(await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.userId, who.user.id))).toHaveLength(0);
  });

  test(`per-user rate limit: ${PER_MINUTE} a minute, then 429 with Retry-After`, async () => {
    await silenceAllNodes();
    const who = await asker();
    for (let i = 0; i < PER_MINUTE; i++) expect((await dispatch(who, `q${i}`)).status).toBe(503);
    const limited = await dispatch(who, "one more");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // another user is not limited by it
    expect((await dispatch(await asker(), "mine")).status).toBe(503);
  });

  securityCases({ method: "POST", path: "/api/node/dispatch-task", body: { prompt: "hello" } }, { t: () => t, owner: () => provider, sameOriginWithoutToken: true });

  describe("the original product's chat, which sends no anti-forgery token (issue 38)", () => {
    const send = (who: TestSession, init: { origin: string | null; contentType?: string; token?: string }) =>
      t.app.request("/api/node/dispatch-task", {
        method: "POST",
        headers: {
          Cookie: who.cookie,
          "Content-Type": init.contentType ?? "application/json",
          ...(init.origin ? { Origin: init.origin } : {}),
          ...(init.token ? { "X-CSRF-Token": init.token } : {}),
        },
        body: JSON.stringify({ prompt: "hello from the original client" }),
      });
    const own = () => new URL(t.env.PUBLIC_URL).origin;
    const refusedAsForgery = async (res: Response) => {
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("csrf_failed");
    };

    test("a same-origin JSON request with a session is accepted without the token (it reaches the dispatcher)", async () => {
      await silenceAllNodes();
      const res = await send(await asker(), { origin: own() });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toBe(NETWORK_FAILED_MESSAGE);
    });

    test("refused without the token: no Origin, another site's Origin, a body that is not JSON, a wrong token", async () => {
      const who = await asker();
      const before = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.userId, who.user.id));
      await refusedAsForgery(await send(who, { origin: null }));
      await refusedAsForgery(await send(who, { origin: "https://evil.example" }));
      await refusedAsForgery(await send(who, { origin: own(), contentType: "text/plain" }));
      await refusedAsForgery(await send(who, { origin: own(), token: "forged-token" }));
      expect(await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.userId, who.user.id))).toEqual(before);
    });

    test("every other write still needs the token from the same origin", async () => {
      const who = await asker();
      const res = await t.app.request("/api/alerts/searches", {
        method: "POST",
        headers: { Cookie: who.cookie, "Content-Type": "application/json", Origin: own() },
        body: JSON.stringify({ query: "currency=XDC", name: "x" }),
      });
      await refusedAsForgery(res);
    });
  });
});

describe("which node gets a task", () => {
  test("waiting nodes take turns (least recently served first)", async () => {
    await silenceAllNodes();
    const a = await pairNode(t, provider, "a");
    const b = await pairNode(t, provider, "b");
    const tokens: Record<string, string> = { a: a.token, b: b.token };
    const ids: Record<string, string> = { a: a.nodeId, b: b.nodeId };
    const polls = new Map<string, Promise<{ node: string; task: LeasedTask | undefined }>>();
    const served: string[] = [];
    while (served.length < 6) {
      for (const node of ["a", "b"]) if (!polls.has(node)) polls.set(node, poll(tokens[node]!).then((task) => ({ node, task })));
      await eventually(async () => t.ctx.compute.waitingPolls(ids.a) === 1 && t.ctx.compute.waitingPolls(ids.b) === 1, 5000, "both nodes to wait");
      const reply = dispatch(await asker(), `turn ${served.length}`);
      let first = await Promise.race(polls.values());
      polls.delete(first.node);
      // A poll whose time ran out just before the task came: poll again and take the task from whoever got it.
      while (!first.task) {
        polls.set(first.node, poll(tokens[first.node]!).then((task) => ({ node: first.node, task })));
        first = await Promise.race(polls.values());
        polls.delete(first.node);
      }
      expect((await answer(tokens[first.node]!, first.task, `answer ${served.length}`)).status).toBe(200);
      expect(((await (await reply).json()) as { message: string }).message).toBe(`answer ${served.length}`);
      served.push(first.node);
    }
    expect(served.filter((n) => n === "a")).toHaveLength(3);
    expect(served.filter((n) => n === "b")).toHaveLength(3);
  }, 60_000);

  test("a task a node failed goes to another node, never back to it", async () => {
    await silenceAllNodes();
    const a = await pairNode(t, provider, "a");
    const b = await pairNode(t, provider, "b");
    const reply = dispatch(await asker(), "retry me");
    const first = (await poll(a.token))!;
    expect((await failIt(a.token, first)).status).toBe(200);
    // a asks again: nothing for it (the task is excluded for a); b gets it
    const again = poll(a.token);
    const second = (await poll(b.token))!;
    expect(second.id).toBe(first.id);
    expect((await answer(b.token, second, "from b")).status).toBe(200);
    expect(await (await reply).json()).toEqual({ message: "from b" });
    expect(await again).toBeUndefined();
  }, 30_000);

  test("a node that dies holding a task: its lease runs out (fake clock), another node answers, the late answer is refused", async () => {
    await silenceAllNodes();
    const dead = await pairNode(t, provider, "dead");
    const alive = await pairNode(t, provider, "alive");
    const reply = dispatch(await asker(), "lease me");
    const held = (await poll(dead.token))!;
    const real = t.ctx.compute.now;
    const lapse = Date.now() + t.env.NODE_TASK_LEASE_MS + 1;
    t.ctx.compute.now = () => lapse;
    try {
      await t.ctx.compute.runPass();
    } finally {
      t.ctx.compute.now = real;
    }
    const [row] = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.id, held.id));
    expect(row).toMatchObject({ status: "queued", excludedNodeIds: dead.nodeId });
    const retried = (await poll(alive.token))!;
    expect(retried.id).toBe(held.id);
    expect((await answer(dead.token, held, "too late")).status).toBe(409);
    expect((await answer(alive.token, retried, "on time")).status).toBe(200);
    expect(await (await reply).json()).toEqual({ message: "on time" });
    expect(await t.ctx.database.db.select().from(computeLedger).where(eq(computeLedger.taskId, held.id))).toHaveLength(1);
  }, 30_000);

  test(`after ${TASK_MAX_ATTEMPTS} failed attempts the task fails: 504 with the spec's text`, async () => {
    await silenceAllNodes();
    const nodes = await Promise.all(Array.from({ length: TASK_MAX_ATTEMPTS }, (_, i) => pairNode(t, provider, `n${i}`)));
    const reply = dispatch(await asker(), "doomed");
    for (const node of nodes) {
      const task = (await poll(node.token))!;
      expect(task.prompt).toBe("doomed");
      expect((await failIt(node.token, task)).status).toBe(200);
    }
    const res = await reply;
    expect(res.status).toBe(504);
    expect(((await res.json()) as { message: string }).message).toBe(NETWORK_FAILED_MESSAGE);
  }, 30_000);

  test("a node giving its task back (stopping) does not lose it and is not counted as an attempt", async () => {
    await silenceAllNodes();
    const a = await pairNode(t, provider, "a");
    const reply = dispatch(await asker(), "give back");
    const task = (await poll(a.token))!;
    expect((await agentCall(t, `/api/node-agent/tasks/${task.id}/release`, { token: a.token, body: { leaseToken: task.leaseToken } })).status).toBe(200);
    const [row] = await t.ctx.database.db.select().from(computeTasks).where(eq(computeTasks.id, task.id));
    expect(row).toMatchObject({ status: "queued", attempts: 0, excludedNodeIds: "" });
    const again = (await poll(a.token))!;
    expect((await answer(a.token, again, "after all")).status).toBe(200);
    expect(await (await reply).json()).toEqual({ message: "after all" });
  });
});

describe("status", () => {
  test(`Online until the node has been silent for NODE_OFFLINE_AFTER_MS, then Offline (fake clock)`, async () => {
    const owner = await asker();
    const { nodeId, token } = await pairNode(t, owner);
    const wallet = await walletOf(t, owner);
    const beat = Date.now();
    const real = t.ctx.compute.now;
    try {
      t.ctx.compute.now = () => beat;
      expect((await agentCall(t, "/api/node-agent/heartbeat", { token, body: {} })).status).toBe(200);
      const at = async (ms: number) => {
        t.ctx.compute.now = () => beat + ms;
        const own = (await (await call(t, `/api/node/status?walletAddress=${wallet}`, { as: owner })).json()) as { status: string };
        const all = (await (await call(t, "/api/nodes/network")).json()) as { nodes: { id: string; status: string; lastSeen: string }[] };
        const listed = all.nodes.find((n) => n.id === nodeId)!;
        expect(listed.lastSeen).toBe(new Date(beat).toISOString());
        expect(listed.status).toBe(own.status);
        // The original client's call: the same node, lower case, in a bare array.
        const bare = (await (await call(t, "/api/nodes/status")).json()) as { id: string; status: string; lastSeen: string }[];
        expect(bare.find((n) => n.id === nodeId)).toEqual({ id: nodeId, status: own.status.toLowerCase(), lastSeen: listed.lastSeen });
        return own.status;
      };
      expect(await at(0)).toBe("Online");
      expect(await at(t.env.NODE_OFFLINE_AFTER_MS - 1)).toBe("Online");
      expect(await at(t.env.NODE_OFFLINE_AFTER_MS)).toBe("Offline");
    } finally {
      t.ctx.compute.now = real;
    }
  });

  for (const [path, listOf] of [
    ["/api/nodes/status", (body: unknown) => body as Record<string, unknown>[]],
    ["/api/nodes/network", (body: unknown) => (body as { nodes: Record<string, unknown>[] }).nodes],
  ] as const) {
    test(`${path} tells a node's public id, status and last seen: no address, wallet or user`, async () => {
      const owner = await asker();
      const { nodeId } = await pairNode(t, owner);
      const res = await call(t, path);
      expect(res.status).toBe(200);
      const text = await res.text();
      const nodes = listOf(JSON.parse(text));
      expect(nodes.length).toBeGreaterThan(0);
      for (const node of nodes) expect(Object.keys(node).sort()).toEqual(["id", "lastSeen", "status"]);
      expect(nodes.some((n) => n.id === nodeId)).toBe(true);
      const wallet = await walletOf(t, owner);
      for (const secret of [wallet, wallet.slice(3), `0x${wallet.slice(3)}`, owner.user.username, String(owner.user.id), owner.ip, "127.0.0.1", "ip", "wallet", "user"]) {
        expect(text.toLowerCase()).not.toContain(`"${secret.toLowerCase()}"`);
      }
      expect(text).not.toMatch(/"(ip|address|wallet|walletAddress|user|userId|username|host)"\s*:/i);
    });
  }

  test("the chat's call and the Provider Hub's answer their different shapes: a bare array in lower case, an object with Online/Offline", async () => {
    const owner = await asker();
    const { token, nodeId } = await pairNode(t, owner);
    expect((await agentCall(t, "/api/node-agent/heartbeat", { token, body: {} })).status).toBe(200);
    const chat = (await (await call(t, "/api/nodes/status")).json()) as unknown;
    expect(Array.isArray(chat)).toBe(true);
    const mine = (chat as { id: string; status: string; lastSeen: string }[]).find((n) => n.id === nodeId)!;
    expect(mine.status).toBe("online");
    expect(Number.isNaN(Date.parse(mine.lastSeen))).toBe(false);
    // What the original chat does with it.
    expect((chat as { status: string }[]).filter((n) => n.status === "online").length).toBeGreaterThan(0);
    const hub = (await (await call(t, `/api/node/status?walletAddress=${await walletOf(t, owner)}`, { as: owner })).json()) as unknown;
    expect(hub).toEqual({ status: "Online" });
  });

  test("a user's node status is for their own wallet only; signed out is 401", async () => {
    const owner = await asker();
    const other = await asker();
    const wallet = await walletOf(t, owner);
    expect((await call(t, `/api/node/status?walletAddress=${wallet}`, { as: other })).status).toBe(404);
    expect((await call(t, `/api/node/status?walletAddress=${wallet}`)).status).toBe(401);
    expect((await call(t, `/api/node/status?walletAddress=0x${wallet.slice(3)}`, { as: owner })).status).toBe(200);
    expect((await call(t, "/api/node/compute-units")).status).toBe(401);
    expect(await (await call(t, "/api/node/compute-units", { as: other })).json()).toEqual({ computeUnits: 0 });
  });
});

describe("security of the hub's writes", () => {
  let nodeId = "";
  beforeAll(async () => {
    nodeId = (await pairNode(t, provider, "guarded")).nodeId;
  });
  let stranger: TestSession;
  beforeAll(async () => {
    stranger = await asker();
  });
  securityCases(() => ({ method: "DELETE", path: `/api/node/nodes/${nodeId}` }), { t: () => t, owner: () => provider, stranger: () => stranger, ownedResource: true });
  securityCases({ method: "POST", path: "/api/node/pairings/approve", body: { code: "ABCD-2345" } }, { t: () => t, owner: () => provider, stranger: () => stranger });
});
