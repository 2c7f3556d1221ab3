/**
 * AI scoping benchmark (not a test): `bun scripts/bench/scoping.ts [seconds] [runs]`.
 *
 * The platform in its own process (workers on, the built-in planner, as the
 * embedded default runs), driven over HTTP as the page drives it:
 *   1. upload-to-completed time (p50/p99 over `runs`, default 10) for a
 *      2-page and a 50-page requirements document, as PDFs (the heaviest
 *      format to read), polling the result every 5 ms (a coarser poll
 *      would measure the poll: the page itself polls every 3 s);
 *   2. jobs per minute with 20 users each uploading the 2-page document and
 *      waiting for its plan, for `seconds` (default 20);
 *   3. how fast /api/health answers while 20 users upload 50-page PDFs, as a
 *      ratio of its idle rate measured in the same run (target ≥ 0.5:
 *      reading documents must not hold up the event loop).
 * Everything it needs is started here and removed at the end.
 */
import { createTestUser, signInAs, type TestSession } from "../../testing/auth.ts";
import { startProcessStack, type ProcessStack, type ServerProcess } from "../../testing/process-stack.ts";
import { longRequirementsMarkdown, markdownToPdf, requirementsMarkdown } from "../../testing/scoping-fixtures.ts";
import { percentile, table } from "./lib.ts";
import { PDFDocument } from "pdf-lib";

const SECONDS = Number(process.argv[2] ?? 20);
const RUNS = Number(process.argv[3] ?? 10);
const USERS = 20;
/** The per-user upload limit (20 an hour) bounds how many jobs one user may start: fresh users per phase. */
const PER_USER = 18;

let stack: ProcessStack | undefined;
let server: ServerProcess | undefined;
try {
  stack = await startProcessStack({ checkAnswers: false });
  server = await stack.spawn();
  const url = server.url;
  const origin = stack.origin;
  const users = async (n: number) => Promise.all(Array.from({ length: n }, async () => signInAs(stack!.t, await createTestUser(stack!.t, { role: "contributor" }))));

  const small = await markdownToPdf(await requirementsMarkdown());
  const large = await markdownToPdf(longRequirementsMarkdown(75));
  const pages = async (pdf: Uint8Array) => (await PDFDocument.load(pdf)).getPageCount();
  const smallPages = await pages(small);
  const largePages = await pages(large);
  console.log(`documents: ${smallPages} pages (${small.byteLength} bytes) and ${largePages} pages (${large.byteLength} bytes)`);

  /** Uploads and waits for the plan; the time from the upload to the completed answer. */
  async function scope(session: TestSession, pdf: Uint8Array, pollMs = 50): Promise<number> {
    const started = performance.now();
    const form = new FormData();
    form.append("document", new File([pdf as BlobPart], "requirements.pdf"));
    const res = await fetch(`${url}/api/ai-scoping/upload`, {
      method: "POST",
      headers: { Cookie: session.cookie, Origin: origin, "X-CSRF-Token": session.csrfToken, "X-Forwarded-For": session.ip },
      body: form,
    });
    if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
    const { jobId } = (await res.json()) as { jobId: string };
    for (;;) {
      const view = (await (await fetch(`${url}/api/ai-scoping/results/${jobId}`, { headers: { Cookie: session.cookie, "X-Forwarded-For": session.ip } })).json()) as { status: string };
      if (view.status === "completed") return performance.now() - started;
      if (view.status === "failed") throw new Error(`job ${jobId} failed`);
      await Bun.sleep(pollMs);
    }
  }

  // 1. Latency, one job at a time (after a warm-up of each).
  const rows: (string | number)[][] = [["document", "runs", "p50 ms", "p99 ms"]];
  for (const [label, pdf] of [[`${smallPages} pages`, small], [`${largePages} pages`, large]] as const) {
    const [session] = await users(1);
    await scope(session!, pdf, 5);
    const times: number[] = [];
    for (let i = 0; i < Math.min(RUNS, PER_USER - 1); i++) times.push(await scope(session!, pdf, 5));
    times.sort((a, b) => a - b);
    rows.push([label, times.length, percentile(times, 50).toFixed(0), percentile(times, 99).toFixed(0)]);
  }
  console.log(`\nUpload to completed plan, built-in planner, one at a time\n${table(rows)}`);

  // 2. Throughput: 20 users, each uploading and waiting, for SECONDS.
  const crowd = await users(USERS);
  let done = 0;
  const until = performance.now() + SECONDS * 1000;
  const wallStart = performance.now();
  await Promise.all(
    crowd.map(async (session) => {
      for (let i = 0; i < PER_USER && performance.now() < until; i++) {
        await scope(session, small);
        done++;
      }
    }),
  );
  const wallMinutes = (performance.now() - wallStart) / 60_000;
  console.log(`\n${USERS} users, ${smallPages}-page PDFs: ${done} plans in ${(wallMinutes * 60).toFixed(1)} s = ${(done / wallMinutes).toFixed(0)} jobs per minute`);

  // 3. /api/health beside the load, against its idle rate in this run.
  async function healthRate(ms: number): Promise<number> {
    let count = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < end) {
          const res = await fetch(`${url}/api/health`);
          await res.arrayBuffer();
          if (res.ok) count++;
        }
      }),
    );
    return count / (ms / 1000);
  }
  const idle = await healthRate(5000);
  const heavy = await users(USERS);
  let stop = false;
  const load = Promise.all(
    heavy.map(async (session) => {
      for (let i = 0; i < PER_USER && !stop; i++) await scope(session, large);
    }),
  );
  const busy = await healthRate(Math.max(5000, SECONDS * 500));
  stop = true;
  await load;
  console.log(`\n/api/health: idle ${idle.toFixed(0)}/s, beside 20 users uploading ${largePages}-page PDFs ${busy.toFixed(0)}/s, ratio ${(busy / idle).toFixed(2)} (target ≥ 0.5)`);
} finally {
  await server?.stop();
  await stack?.stop();
}
