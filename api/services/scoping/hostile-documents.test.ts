import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, signInAs } from "../../../testing/auth.ts";
import { markdownToDocx, markdownToPdf, requirementsMarkdown } from "../../../testing/scoping-fixtures.ts";
import { hostileCorpus, pdf, pdfStream, truncated } from "../../../testing/hostile-documents.ts";
import { Extractor, EXTRACT_MEMORY_BYTES, TIMEOUT_MESSAGE } from "./extractor.ts";
import { TOO_LARGE_MESSAGE } from "./document-limits.ts";

/**
 * Issue 25, item 1: a hostile document costs the server less than 150 MB,
 * fails only its own job with a message the page shows, and the next
 * normal document is planned as before.
 */
const SERVER_GROWTH_LIMIT = 150 * 1024 * 1024;

/** A PDF of two pages, each 30 MB of drawing operators: within the limits, but seconds of parsing and ~200 MB for pdf.js. */
function slowPdf(): Uint8Array {
  const content = pdfStream("/Filter /FlateDecode", deflateSync(Buffer.from("1 0 0 1 0 0 cm\n".repeat(2_000_000))));
  const page = (contents: number) => `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents ${contents} 0 R >>`;
  return pdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>", page(5), page(6), content, content]);
}

describe("extraction processes", () => {
  test("a document that takes too long fails alone; the one queued behind it is read", async () => {
    const extractor = new Extractor({ timeoutMs: 500, poolSize: 1 });
    try {
      const slow = extractor.extract(slowPdf());
      const next = extractor.extract(new TextEncoder().encode("# Plan\n- Users must sign in."));
      await expect(slow).rejects.toThrow(TIMEOUT_MESSAGE);
      expect(await next).toEqual({ format: "markdown", text: "# Plan\n- Users must sign in." });
    } finally {
      extractor.close();
    }
  }, 120_000);

  test("a process past its memory ceiling is killed, its job fails with the size message, the next runs in a new process", async () => {
    const extractor = new Extractor({ memoryBytes: 150 * 1024 * 1024, poolSize: 1 });
    try {
      await extractor.extract(new TextEncoder().encode("warm up"));
      const [first] = extractor.pids();
      await expect(extractor.extract(slowPdf())).rejects.toThrow(TOO_LARGE_MESSAGE);
      expect(extractor.pids()).not.toContain(first!);
      expect((await extractor.extract(await markdownToPdf("# Plan\n- Users must sign in."))).text).toContain("Users must sign in.");
    } finally {
      extractor.close();
    }
    // Three extraction processes start and one parses until its memory ceiling: 17 s here beside a CI run, over the
    // suite's 30 s on a machine whose two cores are taken.
  }, 120_000);
});

describe("the hostile corpus, uploaded", () => {
  let t: TestContext;
  let md: string;
  let normal: { pdf: Uint8Array; docx: Uint8Array };
  const expectedPlan: Record<string, unknown> = {};

  beforeAll(async () => {
    t = await createTestContext({ fileDatabase: true });
    md = await requirementsMarkdown();
    normal = { pdf: await markdownToPdf(md), docx: await markdownToDocx(md) };
  }, 120_000);
  afterAll(() => t?.close());

  async function uploadAndWork(bytes: Uint8Array, name: string) {
    const user = await signInAs(t, await createTestUser(t, { role: "poolmanager" }));
    const form = new FormData();
    form.append("document", new File([bytes as BlobPart], name));
    const started = performance.now();
    const res = await call(t, "/api/ai-scoping/upload", { as: user, form });
    const answeredMs = performance.now() - started;
    expect(res.status).toBe(202);
    const { jobId, status } = (await res.json()) as { jobId: string; status: string };
    expect(status).toBe("queued");
    while ((await t.ctx.scoping.runOnce()) > 0);
    const result = await call(t, `/api/ai-scoping/results/${jobId}`, { as: user });
    return { answeredMs, job: (await result.json()) as { status: string; error: string | null; result: unknown } };
  }

  const expected: Record<string, string | "completed"> = {
    "DOCX zip bomb, one entry of 900 MB declared": TOO_LARGE_MESSAGE,
    "DOCX zip bomb, one entry of 900 MB declared as 100 KB": TOO_LARGE_MESSAGE,
    "DOCX zip bomb, 900 entries of 1 MB": TOO_LARGE_MESSAGE,
    "DOCX with 20,000 entries": "The Word document holds more than 1,000 parts.",
    // mammoth never opens embedded files: the inner bomb is carried, counted (compressed) and left alone.
    "DOCX holding a nested zip bomb": "completed",
    "DOCX with billion-laughs entities": "The Word document declares a DTD",
    "DOCX nested 100,000 levels deep": "The Word document nests its content more than 256 levels deep.",
    "PDF FlateDecode stream bomb of 1,000 MB": TOO_LARGE_MESSAGE,
    "PDF FlateDecode twice (small outside, a bomb inside)": TOO_LARGE_MESSAGE,
    "PDF object-stream loop and deep nesting": "The PDF could not be read.",
    "PDF claiming 2 billion pages": "The PDF has more than 2,000 pages.",
    "truncated PDF": "could not be read",
    "truncated DOCX": "The Word document could not be read.",
  };

  test("each fails alone with its message while the server's memory grows by less than 150 MB; a normal document right after is planned as before", async () => {
    const corpus = { ...hostileCorpus(), "truncated PDF": truncated(normal.pdf), "truncated DOCX": truncated(normal.docx) };
    expect(Object.keys(corpus).sort()).toEqual(Object.keys(expected).sort());
    // Warm up (processes started, pdf.js and mammoth loaded in them), then the plan every normal document must give.
    for (const format of ["pdf", "docx"] as const) {
      const first = await uploadAndWork(normal[format], `spec.${format}`);
      expect(first.job.status).toBe("completed");
      expectedPlan[format] = first.job.result;
    }
    Bun.gc(true);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const report: string[] = [];
    try {
      for (const [name, bytes] of Object.entries(corpus)) {
        expect(bytes.byteLength).toBeLessThanOrEqual(5 * 1024 * 1024);
        const { answeredMs, job } = await uploadAndWork(bytes, name.includes("PDF") ? "x.pdf" : "x.docx");
        if (expected[name] === "completed") expect(job.status).toBe("completed");
        else {
          expect(job.status).toBe("failed");
          expect(job.error).toContain(expected[name]!.replace(/\.$/, ""));
        }
        expect(t.ctx.extractor.lastPeakBytes).toBeLessThan(EXTRACT_MEMORY_BYTES + 256 * 1024 * 1024);
        expect((await call(t, "/api/health")).status).toBe(200);
        const format = name.includes("PDF") ? "pdf" : "docx";
        const after = await uploadAndWork(normal[format], "spec");
        expect(after.job.status).toBe("completed");
        expect(after.job.result).toEqual(expectedPlan[format]);
        report.push(`${name}: ${(bytes.byteLength / 1024).toFixed(0)} KB, answered in ${answeredMs.toFixed(0)} ms, ${job.status}, extraction process peak ${(t.ctx.extractor.lastPeakBytes / 1048576).toFixed(0)} MB, server peak +${((peak - baseline) / 1048576).toFixed(0)} MB`);
      }
    } finally {
      clearInterval(sampler);
      console.log(report.join("\n"));
    }
    expect(peak - baseline).toBeLessThan(SERVER_GROWTH_LIMIT);
  }, 240_000);
});
