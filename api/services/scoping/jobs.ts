import { and, desc, eq } from "drizzle-orm";
import { encodeBase32LowerCaseNoPadding } from "@oslojs/encoding";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import type { User } from "../../../db/schema/index.ts";
import { scopingJobs } from "../../../db/schema/index.ts";
import { DomainError, ErrorCode, notFound } from "../../errors.ts";
import type { Plan } from "../../../lib/scoping.ts";
import { detectFormat, DocumentError, extractDocument } from "./extract.ts";
import { DOCUMENT_FAILURE_PREFIX, textSha256 } from "./document-error.ts";
import { openAiPlanner } from "./openai-planner.ts";
import { FAILED_JOB_TEXTS } from "./plan-job.ts";
import type { Planner } from "./plan.ts";

/** Largest document accepted (the rest of the API keeps MAX_BODY_BYTES). */
export const SCOPING_MAX_UPLOAD_BYTES = 5 * 1024 * 1024;

export interface ScopingJobView {
  jobId: string;
  status: "queued" | "processing" | "completed" | "failed";
  /** The plan once completed, else null (spec: status, result). */
  result: Plan | null;
  /** Why it failed, in words for the owner; null otherwise. */
  error: string | null;
  fileName: string;
  format: string;
  planner: string;
  /** Why a language model's plan was not used (the built-in planner's is), for the page; null otherwise. */
  fallback: string | null;
  createdAt: string;
  finishedAt: string | null;
  expiresAt: string;
}

type Job = typeof scopingJobs.$inferSelect;

export function plannerFor(ctx: Pick<AppContext, "env" | "extractor">): (name: string) => Planner {
  const openai = ctx.env.AI_BASE_URL
    ? openAiPlanner({ baseUrl: ctx.env.AI_BASE_URL, apiKey: ctx.env.AI_API_KEY, model: ctx.env.AI_MODEL, timeoutMs: ctx.env.AI_TIMEOUT_MS })
    : undefined;
  // The built-in planner runs where documents are read (extractor.ts): its CPU stays off the event loop.
  const builtin: Planner = { name: "builtin", plan: (document) => ctx.extractor.plan(document) };
  return (name) => (name === "openai" && openai ? openai : builtin);
}

/**
 * Queues the job at once. Plain text and Markdown are read here (decoding
 * 5 MB at most); a PDF or DOCX is kept on the job until the worker has read
 * it in an extraction process (extractor.ts), so whatever the document holds
 * the upload is answered 202 at once and a bomb fails only its own job.
 * The file itself is not kept once read.
 */
export async function createScopingJob(ctx: Pick<AppContext, "env" | "database" | "log" | "scoping">, user: User, upload: { fileName: string; bytes: Uint8Array }): Promise<ScopingJobView> {
  let extracted: { format: string; text: string; document?: Buffer };
  try {
    const format = detectFormat(upload.bytes);
    extracted = format === "pdf" || format === "docx" ? { format, text: "", document: Buffer.from(upload.bytes) } : await extractDocument(upload.bytes);
  } catch (err) {
    if (!(err instanceof DocumentError)) throw err;
    throw new DomainError({
      code: err.kind === "unsupported" ? ErrorCode.UNSUPPORTED_MEDIA_TYPE : err.kind === "too-long" ? ErrorCode.PAYLOAD_TOO_LARGE : ErrorCode.UNREADABLE_DOCUMENT,
      error: err.kind === "unsupported" ? "Unsupported Media Type" : "Document not readable",
      message: err.message,
    });
  }
  const id = encodeBase32LowerCaseNoPadding(crypto.getRandomValues(new Uint8Array(15)));
  const now = Date.now();
  const [job] = await ctx.database.db
    .insert(scopingJobs)
    .values({
      id,
      userId: user.id,
      fileName: safeFileName(upload.fileName),
      format: extracted.format,
      byteSize: upload.bytes.byteLength,
      textSha256: extracted.document ? "" : textSha256(extracted.text),
      text: extracted.text,
      document: extracted.document ?? null,
      planner: ctx.env.AI_BASE_URL ? "openai" : "builtin",
      expiresAt: new Date(now + ctx.env.SCOPING_RETENTION_DAYS * 86_400_000),
    })
    .returning(VIEW_COLUMNS);
  ctx.log.info("scoping job queued", { jobId: id, userId: user.id, format: extracted.format, bytes: upload.bytes.byteLength, chars: extracted.text.length });
  ctx.scoping.nudge();
  return view(job!);
}

/** The owner's job; anyone else (and an unknown id) gets the same 404. */
export async function getScopingJob(ctx: DatabaseDeps, user: User, jobId: string): Promise<ScopingJobView> {
  // Only what the view shows: the page polls this while the job runs, and the document and its text are large.
  const [job] = await ctx.database.db
    .select(VIEW_COLUMNS)
    .from(scopingJobs)
    .where(and(eq(scopingJobs.id, jobId), eq(scopingJobs.userId, user.id)))
    .limit(1);
  if (!job || job.expiresAt.getTime() < Date.now()) throw notFound("No such scoping job. Plans are kept for a limited time; upload the document again.");
  return view(job);
}

export interface ScopingJobSummary {
  jobId: string;
  status: ScopingJobView["status"];
  fileName: string;
  projectName: string | null;
  createdAt: string;
}

/** The user's earlier plans, newest first. */
export async function listScopingJobs(ctx: DatabaseDeps, user: User, limit = 20): Promise<ScopingJobSummary[]> {
  const rows = await ctx.database.db
    .select({ id: scopingJobs.id, status: scopingJobs.status, fileName: scopingJobs.fileName, projectName: scopingJobs.projectName, createdAt: scopingJobs.createdAt })
    .from(scopingJobs)
    .where(eq(scopingJobs.userId, user.id))
    .orderBy(desc(scopingJobs.createdAt), desc(scopingJobs.id))
    .limit(limit);
  return rows.map((r) => ({ jobId: r.id, status: r.status, fileName: r.fileName, projectName: r.projectName, createdAt: r.createdAt.toISOString() }));
}

const VIEW_COLUMNS = {
  id: scopingJobs.id,
  status: scopingJobs.status,
  result: scopingJobs.result,
  error: scopingJobs.error,
  fileName: scopingJobs.fileName,
  format: scopingJobs.format,
  planner: scopingJobs.planner,
  createdAt: scopingJobs.createdAt,
  finishedAt: scopingJobs.finishedAt,
  expiresAt: scopingJobs.expiresAt,
};

function view(job: Pick<Job, keyof typeof VIEW_COLUMNS>): ScopingJobView {
  return {
    jobId: job.id,
    status: job.status,
    result: job.status === "completed" && job.result ? (JSON.parse(job.result) as Plan) : null,
    error: job.status === "failed" ? publicError(job.error) : null,
    fileName: job.fileName,
    format: job.format,
    planner: job.planner,
    fallback: job.status === "completed" ? job.error : null,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    expiresAt: job.expiresAt.toISOString(),
  };
}

/**
 * The owner sees why in general terms; details stay in the log. The worker records a failed job's sentence
 * (`failedJobText`, chosen from the failure's kind); any other text (a row from before) shows as the general one.
 */
function publicError(error: string | null): string {
  if (error?.startsWith(DOCUMENT_FAILURE_PREFIX)) return error.slice(DOCUMENT_FAILURE_PREFIX.length);
  return (Object.values(FAILED_JOB_TEXTS) as string[]).find((text) => text === error) ?? FAILED_JOB_TEXTS.other;
}

function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // biome-ignore lint: control characters are what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
  return cleaned || "document";
}
