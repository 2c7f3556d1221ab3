/**
 * Pull request reviews: list, read and create (GET/POST /repos/{owner}/{repo}/pulls/{n}/reviews, GET
 * .../reviews/{review_id}), with GitHub's shapes. Creating one with an `event` (APPROVE, REQUEST_CHANGES,
 * COMMENT) submits it and delivers pull_request_review (action "submitted"), without holding up the response;
 * without an event it stays PENDING, visible to its author only. Writing needs a user who can see the repository
 * (token scopes permitting) or an installation that covers it (reviewing as the app's bot).
 */
import type { Hono } from "hono";
import { canComment, scopeAllows } from "./access.ts";
import { ActionError } from "./actions.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, jsonBody, notFound, paginate, type ApiContext, type ApiEnv } from "./http.ts";
import { reviewJson, reviewsOf } from "./shapes-issues.ts";

const EVENTS = ["APPROVE", "REQUEST_CHANGES", "COMMENT"] as const;

export function registerReviewRoutes(repos: Hono<ApiEnv>, { world, actions }: EmulatorContext): void {
  const pullParam = (c: ApiContext) => {
    const issue = world.issue(c.get("repo").id, Number(c.req.param("number")));
    return issue?.pull ? issue : undefined;
  };
  /** Pending reviews are their author's alone. */
  const visibleTo = (c: ApiContext) => {
    const caller = c.get("caller");
    const login = caller.kind === "user" ? caller.login.toLowerCase() : caller.kind === "installation" ? world.botLogin.toLowerCase() : "";
    return (r: { state: string; author: string }) => r.state !== "PENDING" || r.author.toLowerCase() === login;
  };

  repos.get("/pulls/:number{[0-9]+}/reviews", (c) => {
    const issue = pullParam(c);
    if (!issue) return notFound(c);
    const reviews = reviewsOf(world, issue).filter(visibleTo(c));
    return c.json(paginate(c, reviews).map((r) => reviewJson(world, c.get("repo"), issue, r)));
  });

  repos.get("/pulls/:number{[0-9]+}/reviews/:review_id{[0-9]+}", (c) => {
    const issue = pullParam(c);
    const review = issue && reviewsOf(world, issue).filter(visibleTo(c)).find((r) => r.id === Number(c.req.param("review_id")));
    return issue && review ? c.json(reviewJson(world, c.get("repo"), issue, review)) : notFound(c);
  });

  repos.post("/pulls/:number{[0-9]+}/reviews", async (c) => {
    const repo = c.get("repo");
    const issue = pullParam(c);
    if (!issue) return notFound(c);
    const caller = c.get("caller");
    if (caller.kind === "anonymous") return apiError(c, 401, "Requires authentication");
    if (caller.kind === "user" && !scopeAllows(caller, repo, true)) return notFound(c);
    if (!canComment(world, caller, repo)) return apiError(c, 403, "Resource not accessible by integration");
    const author = caller.kind === "user" ? caller.login : world.botLogin;
    const input = (await jsonBody(c)) ?? {};
    const event = input.event;
    if (event !== undefined && !EVENTS.includes(event as (typeof EVENTS)[number])) {
      return apiError(c, 422, "Unprocessable Entity", { errors: [`Unexpected event: ${String(event)}`] });
    }
    if (input.body !== undefined && input.body !== null && typeof input.body !== "string") return apiError(c, 422, "Validation Failed", { errors: [{ resource: "PullRequestReview", code: "invalid", field: "body" }] });
    try {
      const { value } = actions.reviewPull({ repo, issue, author, event: event as (typeof EVENTS)[number] | undefined, body: (input.body as string | undefined) ?? "" });
      return c.json(reviewJson(world, repo, issue, value), 200);
    } catch (err) {
      if (!(err instanceof ActionError)) throw err;
      return apiError(c, err.status, "Unprocessable Entity", { errors: [err.message] });
    }
  });
}
