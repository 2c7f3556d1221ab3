import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs, type TestSession } from "../../../testing/auth.ts";
import { markdownToDocx, markdownToPdf, requirementsMarkdown } from "../../../testing/scoping-fixtures.ts";
import { startOpenAiStub } from "../../../testing/openai-stub.ts";
import { scopingJobs } from "../../../db/schema/index.ts";
import { ScopingWorker } from "../../workers/scoping.ts";
import { plannerFor } from "../../services/scoping/jobs.ts";
import { SCOPING_UPLOAD_RATE_LIMIT } from "./index.ts";

let t: TestContext;
let alice: TestSession;
let bob: TestSession;

beforeAll(async () => {
  t = await createTestContext({ fileDatabase: true });
  alice = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t?.close());

function form(bytes: Uint8Array | string, name = "requirements.md"): FormData {
  const data = new FormData();
  data.append("document", new File([bytes as BlobPart], name));
  return data;
}

async function upload(as: TestSession | undefined, bytes: Uint8Array | string, name?: string, csrf: boolean | string = true) {
  return call(t, "/api/ai-scoping/upload", { as, form: form(bytes, name), csrf });
}

/** Works the queue until no job is due (other tests may have left jobs queued ahead of this one). */
async function drain(): Promise<void> {
  while ((await t.ctx.scoping.runOnce()) > 0);
}

async function uploadAndPlan(as: TestSession, bytes: Uint8Array | string, name?: string) {
  const res = await upload(as, bytes, name);
  expect(res.status).toBe(202);
  const { jobId, status } = (await res.json()) as { jobId: string; status: string };
  expect(status).toBe("queued");
  await drain();
  const result = await call(t, `/api/ai-scoping/results/${jobId}`, { as });
  expect(result.status).toBe(200);
  return { jobId, body: (await result.json()) as { status: string; result: { projectName: string; tasks: unknown[] } | null; error: string | null } };
}

describe("uploading a document", () => {
  test("text, Markdown, PDF and DOCX become completed plans; the same document again gives the identical plan", async () => {
    const md = await requirementsMarkdown();
    const first = await uploadAndPlan(alice, md);
    expect(first.body.status).toBe("completed");
    expect(first.body.result!.projectName).toBe("Requirements: Neighbourhood Tool Library");
    const again = await uploadAndPlan(alice, md);
    expect(again.jobId).not.toBe(first.jobId);
    expect(again.body.result).toEqual(first.body.result);
    for (const [bytes, name] of [[await markdownToPdf(md), "spec.pdf"], [await markdownToDocx(md), "spec.docx"], [md.replace(/^#+\s*/gm, ""), "notes"]] as const) {
      const { body } = await uploadAndPlan(alice, bytes, name);
      expect(body.status).toBe("completed");
      expect(body.result!.tasks.length).toBe(first.body.result!.tasks.length);
    }
  });

  test("keeps the extracted text and its hash, not the file", async () => {
    const pdf = await markdownToPdf(await requirementsMarkdown());
    const { jobId } = await uploadAndPlan(alice, pdf, "spec.pdf");
    const [row] = await t.ctx.database.db.select().from(scopingJobs).where(eq(scopingJobs.id, jobId));
    expect(row!.format).toBe("pdf");
    expect(row!.byteSize).toBe(pdf.byteLength);
    expect(row!.text).toContain("Neighbourhood Tool Library");
    expect(row!.text).not.toContain("%PDF");
    expect(row!.textSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("signed out: 401 with the spec's text; without the anti-forgery token: 403", async () => {
    const anonymous = await upload(undefined, "# Plan\n- Users must sign in.");
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { message: string }).message).toBe("You must be logged in to use the AI Scoping Agent.");
    expect((await call(t, "/api/ai-scoping/results/aaaaaaaaaaaaaaaaaaaaaaaa")).status).toBe(401);
    expect((await upload(alice, "# Plan\n- Users must sign in.", "a.md", false)).status).toBe(403);
    expect((await upload(alice, "# Plan\n- Users must sign in.", "a.md", "forged")).status).toBe(403);
  });

  test("over 5 MB: 413; a type it cannot read, whatever the name: 415; no document field: 400; no text: 422", async () => {
    const big = await upload(alice, new Uint8Array(5 * 1024 * 1024 + 1).fill(0x61), "big.txt");
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toBe("The document is larger than 5 MB. Upload a smaller file or its text.");
    const png = await upload(alice, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 1, 2, 3]), "requirements.md");
    expect(png.status).toBe(415);
    expect(((await png.json()) as { message: string }).message).toStartWith("This file type is not supported.");
    const empty = new FormData();
    empty.append("other", "x");
    expect((await call(t, "/api/ai-scoping/upload", { as: alice, form: empty })).status).toBe(400);
    const scanned = await upload(alice, "\n\n   \n", "blank.txt");
    expect(scanned.status).toBe(422);
    expect(((await scanned.json()) as { message: string }).message).toStartWith("The document contains no text to plan from.");
  });

  test("too many uploads by one user: 429 with Retry-After", async () => {
    const carol = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    const statuses: number[] = [];
    for (let i = 0; i <= SCOPING_UPLOAD_RATE_LIMIT.perUser; i++) statuses.push((await upload({ ...carol, ip: `10.200.${i}.1` }, `# Doc ${i}\n- Users must do ${i}.`)).status);
    expect(statuses.slice(0, SCOPING_UPLOAD_RATE_LIMIT.perUser).every((s) => s === 202)).toBe(true);
    const last = await upload({ ...carol, ip: "10.201.0.1" }, "# Doc\n- Users must wait.");
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("results", () => {
  test("are the owner's alone: another user and an unknown id both get 404; a malformed id 400", async () => {
    const { jobId } = await uploadAndPlan(alice, "# Shop\n## Cart\n- Users must add items.");
    expect((await call(t, `/api/ai-scoping/results/${jobId}`, { as: bob })).status).toBe(404);
    expect((await call(t, "/api/ai-scoping/results/abcdefghijklmnopqrstuvwx", { as: alice })).status).toBe(404);
    expect((await call(t, "/api/ai-scoping/results/..%2Fetc", { as: alice })).status).toBe(400);
    const list = (await (await call(t, "/api/ai-scoping/jobs", { as: alice })).json()) as { jobs: { jobId: string; projectName: string }[] };
    expect(list.jobs.map((j) => j.jobId)).toContain(jobId);
    const bobs = (await (await call(t, "/api/ai-scoping/jobs", { as: bob })).json()) as { jobs: unknown[] };
    expect(bobs.jobs).toEqual([]);
  });

  test("are deleted once their retention ends", async () => {
    const { jobId } = await uploadAndPlan(alice, "# Old\n- Users must forget.");
    await t.ctx.database.db.update(scopingJobs).set({ expiresAt: new Date(Date.now() - 1) }).where(eq(scopingJobs.id, jobId));
    expect((await call(t, `/api/ai-scoping/results/${jobId}`, { as: alice })).status).toBe(404);
    await drain();
    expect(await t.ctx.database.db.select().from(scopingJobs).where(eq(scopingJobs.id, jobId))).toEqual([]);
  });
});

describe("jobs with a language model", () => {
  test("a model that answers badly twice, or never answers, gives way to the built-in plan, and the job says why", async () => {
    const stub = startOpenAiStub((r) => (r.messages[1]!.content.includes("hang") ? "hang" : { content: "not json" }));
    const m = await createTestContext({ fileDatabase: true, env: { AI_BASE_URL: stub.baseUrl, AI_TIMEOUT_MS: 300 } });
    try {
      const owner = await signInAs(m, await createTestUser(m, { role: "contributor" }));
      const bad = (await (await call(m, "/api/ai-scoping/upload", { as: owner, form: form("# A\n- Users must x.") })).json()) as { jobId: string };
      const slow = (await (await call(m, "/api/ai-scoping/upload", { as: owner, form: form("# hang\n- Users must y.") })).json()) as { jobId: string };
      await m.ctx.scoping.runOnce();
      const badView = (await (await call(m, `/api/ai-scoping/results/${bad.jobId}`, { as: owner })).json()) as { status: string; error: string; planner: string; result: { tasks: { title: string }[] } };
      expect(badView).toMatchObject({ status: "completed", planner: "builtin", error: null, fallback: "The language model's plan was not valid." });
      expect(badView.result.tasks.map((t) => t.title)).toEqual(["Let users x"]);
      const slowView = (await (await call(m, `/api/ai-scoping/results/${slow.jobId}`, { as: owner })).json()) as { status: string; error: string };
      expect(slowView).toMatchObject({ status: "completed", planner: "builtin", fallback: "The language model did not answer in time." });
      expect(stub.requests.filter((r) => r.body.messages[1]!.content.includes("Users must x."))).toHaveLength(2);
    } finally {
      m.close();
      await stub.stop();
    }
  });

  test("a model server that is down is retried with backoff, not failed at once", async () => {
    const stub = startOpenAiStub(() => ({ status: 503 }));
    const m = await createTestContext({ fileDatabase: true, env: { AI_BASE_URL: stub.baseUrl } });
    try {
      const owner = await signInAs(m, await createTestUser(m, { role: "contributor" }));
      const { jobId } = (await (await call(m, "/api/ai-scoping/upload", { as: owner, form: form("# A\n- Users must x.") })).json()) as { jobId: string };
      await m.ctx.scoping.runOnce();
      const [row] = await m.ctx.database.db.select().from(scopingJobs).where(eq(scopingJobs.id, jobId));
      expect(row).toMatchObject({ status: "queued", attempts: 1 });
      expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    } finally {
      m.close();
      await stub.stop();
    }
  });
});

describe("the worker", () => {
  test("two workers on one queue finish each job exactly once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(((await (await upload({ ...alice, ip: `10.210.${i}.1` }, `# Doc ${i}\n## Part\n- Users must ${i}.`)).json()) as { jobId: string }).jobId);
    let plannerCalls = 0;
    const before = (await t.ctx.database.db.select().from(scopingJobs)).filter((r) => r.status === "queued").length;
    const planner = plannerFor(t.ctx);
    const counting = (name: string) => {
      const p = planner(name);
      return { name: p.name, plan: async (...args: Parameters<typeof p.plan>) => (plannerCalls++, p.plan(...args)) };
    };
    const workers = [0, 1].map(() => new ScopingWorker({ db: t.ctx.database.db, log: t.log, leaseMs: 10_000, planner: counting }));
    // Both drain the queue at once (other tests' jobs included) until neither finds work.
    const drain = async (w: ScopingWorker) => {
      while ((await w.runOnce()) > 0);
    };
    await Promise.all(workers.map(drain));
    const rows = await t.ctx.database.db.select().from(scopingJobs);
    for (const id of ids) expect(rows.find((r) => r.id === id)).toMatchObject({ status: "completed", attempts: 1 });
    expect(plannerCalls).toBe(before);
  });
});
