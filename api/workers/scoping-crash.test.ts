/**
 * A scoping job survives a SIGKILL of the server mid-job: the server is a
 * real OS process (testing/fault-server.ts) working a job on a language
 * model (a local OpenAI-compatible stub) that has not answered yet. It is
 * killed, started again on the same database, and takes the job up once the
 * dead process's lease runs out: the job completes once, on the second
 * attempt, and the result is the model's plan.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { scopingJobs } from "../../db/schema/index.ts";
import { createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { startOpenAiStub, type OpenAiStub } from "../../testing/openai-stub.ts";
import { eventually } from "../../testing/stack.ts";

const LEASE_MS = 2000;
const PLAN = { projectName: "Tool Library", summary: "Lend tools.", tasks: [{ id: 1, title: "Accounts", description: "Sign-up.", estimatedComplexity: "Medium", dependencies: [] }] };

let stack: ProcessStack;
let stub: OpenAiStub;
let owner: TestSession;

beforeAll(async () => {
  stack = await startProcessStack();
  // The first request (the doomed process's) is never answered; later ones are.
  stub = startOpenAiStub((_request, index) => (index === 0 ? "hang" : { content: JSON.stringify(PLAN) }));
  owner = await signInAs(stack.t, await createTestUser(stack.t, { role: "contributor" }));
}, 120_000);
afterAll(async () => {
  await stub?.stop();
  await stack?.stop();
});

test("SIGKILL during a job: after a restart the job completes exactly once", async () => {
  const overrides = { AI_BASE_URL: stub.baseUrl, SCOPING_LEASE_MS: String(LEASE_MS) };
  let server: ServerProcess | undefined = await stack.spawn(overrides);
  try {
    const form = new FormData();
    form.append("document", new File(["# Tool Library\n## Accounts\n- Users must sign up."], "req.md"));
    const res = await fetch(`${server.url}/api/ai-scoping/upload`, {
      method: "POST",
      headers: { Cookie: owner.cookie, Origin: stack.origin, "X-CSRF-Token": owner.csrfToken, "X-Forwarded-For": owner.ip },
      body: form,
    });
    expect(res.status).toBe(202);
    const { jobId } = (await res.json()) as { jobId: string };
    await stub.received(1);
    const started = Date.now();
    await server.kill();
    server = await stack.spawn(overrides);
    const restartMs = Date.now() - started;
    // Deadline: the dead process's lease, the new process's start and a worker pass, with room for a busy machine.
    const job = await eventually(
      async () => {
        const [row] = await stack.t.ctx.database.db.select().from(scopingJobs).where(eq(scopingJobs.id, jobId));
        return row?.status === "completed" || row?.status === "failed" ? row : undefined;
      },
      3 * (LEASE_MS + restartMs) + 10_000,
      "the job to finish after the restart",
    );
    expect(job.status).toBe("completed");
    expect(job.attempts).toBe(2);
    expect(JSON.parse(job.result!)).toEqual(PLAN);
    expect(stub.requests).toHaveLength(2);
    // The server writes its log asynchronously: wait for the completion line, then check it is the only one.
    const completions = async () => (await Bun.file(stack.logFile).text()).split("\n").filter((line) => line.includes('"msg":"scoping job completed"') && line.includes(jobId));
    await eventually(async () => (await completions()).length > 0, 10_000, "the completion in the server's log");
    expect(await completions()).toHaveLength(1);
    const view = await fetch(`${server.url}/api/ai-scoping/results/${jobId}`, { headers: { Cookie: owner.cookie, "X-Forwarded-For": owner.ip } });
    expect(((await view.json()) as { status: string; result: unknown }).result).toEqual(PLAN);
  } finally {
    await server?.kill();
  }
}, 120_000);
