import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { ANONYMOUS, declareRoute, json, orNull, SESSION_WRITE } from "../../openapi/declare.ts";
import { Timestamp } from "../../openapi/shapes.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { positiveId } from "../params.ts";
import { requestRelease, reviewDeadlineOf, setReviewDeadline, waitView } from "../../services/reviews/reminders.ts";

/**
 * Review deadlines (issue 39, item 5; api/services/reviews):
 * GET  /api/reviews/{repoId}/deadline                                      public -> { repoId, deadlineHours, isDefault }
 * PUT  /api/reviews/{repoId}/deadline          { deadlineHours }           the registering pool manager
 * GET  /api/reviews/{repoId}/pulls/{number}                                public -> the pull request's wait
 * POST /api/reviews/{repoId}/pulls/{number}/release-request                the pull request's author, past twice the
 *                                                                          deadline: tells the pool manager; pays nothing
 */
const RepoParams = z.object({ repoId: positiveId });
const PullParams = z.object({ repoId: positiveId, number: positiveId });
const DeadlineBody = z.object({ deadlineHours: z.number({ message: "deadlineHours must be a number of hours" }).int("deadlineHours must be a whole number of hours") });

export const RELEASE_REQUEST_RATE_LIMIT = { name: "release-request", perIp: 60, perUser: 20, windowMs: 3600 * 1000 };

export function reviewRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/:repoId/deadline", validate("param", RepoParams), async (c) => c.json(await reviewDeadlineOf(ctx, c.req.valid("param").repoId)))
    .put("/:repoId/deadline", validate("param", RepoParams), validate("json", DeadlineBody), async (c) => {
      const { user } = requireSession(c);
      const done = await setReviewDeadline(ctx, { user, repoId: c.req.valid("param").repoId, hours: c.req.valid("json").deadlineHours });
      ctx.changes.publish(["repositories", `repo:${done.repoId}`]);
      return c.json(done);
    })
    .get("/:repoId/pulls/:number", validate("param", PullParams), async (c) => {
      const { repoId, number } = c.req.valid("param");
      c.header("Cache-Control", "no-store");
      return c.json(await waitView(ctx, repoId, number));
    })
    .post("/:repoId/pulls/:number/release-request", rateLimit(ctx, RELEASE_REQUEST_RATE_LIMIT), validate("param", PullParams), async (c) => {
      const { user } = requireSession(c);
      const { repoId, number } = c.req.valid("param");
      return c.json(await requestRelease(ctx, { user, repoId, pullNumber: number }));
    });
}

const Deadline = z.object({ repoId: z.number().int(), deadlineHours: z.number().int(), isDefault: z.boolean() }).openapi("ReviewDeadline");
const PullWait = z
  .object({
    repoId: z.number().int(),
    pullNumber: z.number().int(),
    author: z.string().meta({ description: "The pull request's author (GitHub login)" }),
    issueNumbers: z.array(z.number().int()).meta({ description: "The bountied issues it closes" }),
    deadlineHours: z.number().int(),
    waitingSince: Timestamp,
    deadlineAt: Timestamp,
    releaseRequestableFrom: Timestamp.meta({ description: "Twice the deadline after waitingSince: from then, without a response, the author may ask for release" }),
    firstReviewAt: orNull(Timestamp),
    firstReviewKind: z.enum(["review", "comment", "merged", "closed"]).nullable(),
    state: z.enum(["waiting", "past_deadline", "release_requestable", "reviewed", "merged", "closed"]),
    pastDeadline: z.boolean(),
    releaseRequestedAt: orNull(Timestamp),
  })
  .openapi("PullRequestWait");

const tags = ["repositories"];
export const reviewsApi = [
  declareRoute({
    method: "get", path: "/api/reviews/{repoId}/deadline", operationId: "getReviewDeadline", tags, security: ANONYMOUS,
    summary: "A repository's review deadline: how long a bountied pull request may wait for a maintainer before its pool manager is reminded",
    request: { params: RepoParams },
    responses: { 200: json("The deadline", Deadline) },
    errors: ["not_found", "validation_failed"],
  }),
  declareRoute({
    method: "put", path: "/api/reviews/{repoId}/deadline", operationId: "setReviewDeadline", tags, security: SESSION_WRITE,
    summary: "Sets the repository's review deadline in hours, 1 to 720 (the pool manager who registered it; others 403)",
    request: { params: RepoParams, body: { content: { "application/json": { schema: DeadlineBody } }, required: true } },
    responses: { 200: json("Set", Deadline) },
    errors: ["forbidden", "not_found", "validation_failed"],
  }),
  declareRoute({
    method: "get", path: "/api/reviews/{repoId}/pulls/{number}", operationId: "getPullRequestWait", tags, security: ANONYMOUS,
    summary: "A bountied pull request's wait for review: since when, its deadlines, the first response",
    request: { params: PullParams },
    responses: { 200: json("The wait", PullWait) },
    errors: ["not_found", "validation_failed"],
  }),
  declareRoute({
    method: "post", path: "/api/reviews/{repoId}/pulls/{number}/release-request", operationId: "requestRelease", tags, security: SESSION_WRITE,
    summary: "The pull request's author asks the pool manager for release, past twice the deadline without a response (409 not_due before; once: a repeat sends nothing). Moves no money",
    request: { params: PullParams },
    responses: { 200: json("Requested (or requested before)", PullWait.extend({ poolManagerNotified: z.boolean() }).openapi("ReleaseRequest")) },
    errors: ["conflict", "forbidden", "no_open_bounty", "not_due", "not_found", "rate_limited", "validation_failed"],
  }),
];
