import { declareRoute, json, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Timestamp, Token } from "../../openapi/shapes.ts";
import { PlanAnswerShape } from "../../services/scoping/plan.ts";
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { DomainError, ErrorCode, refused, unauthorized } from "../../errors.ts";
import { validate } from "../../validate.ts";
import { enforceRateLimit } from "../../middleware/rate-limit.ts";
import { createScopingJob, getScopingJob, listScopingJobs, SCOPING_MAX_UPLOAD_BYTES } from "../../services/scoping/jobs.ts";
import { createIssuesFromPlan, scopedIssues } from "../../services/scoping/issues.ts";
import { requireSession } from "../../middleware/session.ts";
import { CURRENCIES } from "../../../db/schema/index.ts";
import { PLAN_LIMITS } from "../../services/scoping/plan.ts";

/** The spec's sign-in text for the scoping agent (section 5). */
export const SCOPING_SIGN_IN_MESSAGE = "You must be logged in to use the AI Scoping Agent.";
export const SCOPING_UPLOAD_RATE_LIMIT = { name: "ai-scoping-upload", perIp: 60, perUser: 20, windowMs: 3600 * 1000 };
/** Room for the multipart envelope around a document of the largest size. */
const MULTIPART_OVERHEAD = 64 * 1024;
const UPLOAD_PATH = "/api/ai-scoping/upload";
export const SCOPING_UPLOAD_PATHS = [UPLOAD_PATH];

const CreateIssues = z.object({
  repositoryId: z.number().int().positive(),
  githubRepoFullName: z.string().min(3).max(200),
  taskIds: z.array(z.number().int().positive()).min(1, "Choose at least one task.").max(PLAN_LIMITS.tasks),
  label: z.string().trim().max(50).optional(),
  bounty: z.object({ currency: z.enum(CURRENCIES), amount: z.union([z.string().max(40), z.number()]).transform(String) }).optional(),
});
export const SCOPING_ISSUES_RATE_LIMIT = { name: "ai-scoping-issues", perIp: 60, perUser: 30, windowMs: 3600 * 1000 };

const JobId = z.object({ jobId: z.string().regex(/^[a-z2-7]{24}$/, "is not a scoping job id") });

/**
 * POST /api/ai-scoping/upload           multipart `document` (≤ 5 MiB), CSRF header -> 202 { jobId, status, ... }
 * GET  /api/ai-scoping/results/:jobId   the owner's job -> { jobId, status, result, error, ... } (404 for anyone else)
 * GET  /api/ai-scoping/jobs             the user's earlier plans, newest first -> { jobs: [...] }
 * POST /api/ai-scoping/results/:jobId/issues  { repositoryId, githubRepoFullName, taskIds, label?, bounty?: { currency, amount } }
 *                                       pool managers: open the tasks as GitHub issues, optionally with a bounty each -> { issues }
 * GET  /api/ai-scoping/results/:jobId/issues  the issues made from the plan, with their bounties' status -> { issues }
 * See docs/ai-scoping.md.
 */
export function aiScopingRoutes(ctx: AppContext) {
  const signedIn: MiddlewareHandler<AppBindings> = async (c, next) => {
    if (!c.get("user")) throw unauthorized(SCOPING_SIGN_IN_MESSAGE);
    await next();
  };
  const limitUpload = bodyLimit({
    maxSize: SCOPING_MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD,
    onError: () => {
      throw new DomainError({ code: ErrorCode.PAYLOAD_TOO_LARGE, error: "Payload Too Large", message: "The document is larger than 5 MB. Upload a smaller file or its text." });
    },
  });
  return new Hono<AppBindings>()
    .use("*", signedIn)
    .post(
      "/upload",
      async (c, next) => {
        // A browser session only (editor tokens read), then the per-user limit, before the body is read.
        if (!c.get("session")) throw unauthorized(SCOPING_SIGN_IN_MESSAGE);
        await enforceRateLimit(ctx, c, SCOPING_UPLOAD_RATE_LIMIT);
        await next();
      },
      limitUpload,
      async (c) => {
        if (!(c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data"))
          throw refused(ErrorCode.INVALID_UPLOAD, 'Send the document as multipart/form-data in the field "document".');
        const form = await c.req.parseBody().catch(() => {
          throw refused(ErrorCode.INVALID_UPLOAD, 'The upload could not be read. Send the document as multipart/form-data in the field "document".');
        });
        const document = form.document;
        if (!(document instanceof File)) throw refused(ErrorCode.INVALID_UPLOAD, 'Choose a document to upload (form field "document").');
        if (document.size > SCOPING_MAX_UPLOAD_BYTES)
          throw new DomainError({ code: ErrorCode.PAYLOAD_TOO_LARGE, error: "Payload Too Large", message: "The document is larger than 5 MB. Upload a smaller file or its text." });
        if (document.size === 0) throw refused(ErrorCode.INVALID_UPLOAD, "The document is empty.");
        const job = await createScopingJob(ctx, c.get("user")!, { fileName: document.name, bytes: new Uint8Array(await document.arrayBuffer()) });
        return c.json(job, 202);
      },
    )
    .get("/results/:jobId", validate("param", JobId), async (c) => c.json(await getScopingJob(ctx, c.get("user")!, c.req.valid("param").jobId)))
    .post("/results/:jobId/issues", validate("param", JobId), validate("json", CreateIssues), async (c) => {
      const { user } = requireSession(c);
      await enforceRateLimit(ctx, c, SCOPING_ISSUES_RATE_LIMIT);
      return c.json(await createIssuesFromPlan(ctx, { user, jobId: c.req.valid("param").jobId, ...c.req.valid("json") }));
    })
    .get("/results/:jobId/issues", validate("param", JobId), async (c) => c.json({ issues: await scopedIssues(ctx, c.get("user")!, c.req.valid("param").jobId) }))
    .get("/jobs", async (c) => c.json({ jobs: await listScopingJobs(ctx, c.get("user")!) }));
}

const JobStatus = z.enum(["queued", "processing", "completed", "failed"]);
export const ScopingJob = z.object({
  jobId: z.string(),
  status: JobStatus,
  result: PlanAnswerShape.nullable(),
  error: z.string().nullable(),
  fileName: z.string(),
  format: z.string(),
  planner: z.string(),
  fallback: z.string().nullable(),
  createdAt: Timestamp,
  finishedAt: z.string().nullable(),
  expiresAt: Timestamp,
}).openapi("ScopingJob");
export const ScopedIssue = z.object({
  taskId: z.number().int(),
  title: z.string(),
  issueNumber: z.number().int().nullable(),
  issueUrl: z.string().nullable(),
  bounty: z.object({ currency: Token, amount: z.string(), status: z.string(), transactionHash: z.string().nullable() }).nullable(),
}).openapi("ScopedIssue");
const Issues = json("The issues made from the plan", z.object({ issues: z.array(ScopedIssue) }));

export const aiScopingApi = [
  declareRoute({
    method: "post", path: "/api/ai-scoping/upload", operationId: "uploadScopingDocument", tags: ["ai-scoping"], security: SESSION_WRITE,
    errors: ["invalid_upload", "rate_limited", "unreadable_document", "unsupported_media_type"],
    summary: "Uploads a document (PDF, DOCX, text; at most 5 MB) to be planned into tasks",
    request: { body: { content: { "multipart/form-data": { schema: z.object({ document: z.string().meta({ format: "binary" }) }) } }, required: true } },
    responses: { 202: json("The job, queued", ScopingJob) },
  }),
  declareRoute({
    method: "get", path: "/api/ai-scoping/results/{jobId}", operationId: "getScopingJob", tags: ["ai-scoping"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "The owner's job and, once completed, its plan (anyone else: 404)",
    request: { params: JobId },
    responses: { 200: json("The job", ScopingJob) },
  }),
  declareRoute({
    method: "post", path: "/api/ai-scoping/results/{jobId}/issues", operationId: "createIssuesFromPlan", tags: ["ai-scoping"], security: SESSION_WRITE,
    errors: ["admin_required", "already_paid", "app_not_installed", "below_minimum", "bounty_exists", "chain_unavailable", "github_refused",
      "github_sign_in_required", "github_unavailable", "idempotency_conflict", "in_progress", "invalid_amount", "invalid_repository",
      "invalid_selection", "not_found", "plan_not_ready", "pool_busy", "rate_limited", "repository_mismatch", "role_required", "validation_failed",
      "wallet_required"],
    summary: "Pool managers: opens the chosen tasks as GitHub issues, optionally with a bounty each",
    request: { params: JobId, body: { content: { "application/json": { schema: CreateIssues } }, required: true } },
    responses: { 200: Issues },
  }),
  declareRoute({
    method: "get", path: "/api/ai-scoping/results/{jobId}/issues", operationId: "listScopedIssues", tags: ["ai-scoping"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "The issues made from the plan, with their bounties' status",
    request: { params: JobId },
    responses: { 200: Issues },
  }),
  declareRoute({
    method: "get", path: "/api/ai-scoping/jobs", operationId: "listScopingJobs", tags: ["ai-scoping"], security: USER,
    summary: "The user's earlier plans, newest first",
    responses: {
      200: json("The jobs", z.object({
        jobs: z.array(z.object({ jobId: z.string(), status: JobStatus, fileName: z.string(), projectName: z.string().nullable(), createdAt: Timestamp })),
      })),
    },
  }),
];
