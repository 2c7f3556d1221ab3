/**
 * Issue comments: list, create, read and edit. Writing needs a user who can
 * see the repository or an installation that covers it; comments made with
 * an installation token are authored by the app's bot user. Every write
 * delivers its issue_comment webhook, without holding up the response.
 */
import type { Hono } from "hono";
import { canComment, canEditComment, permissionsOf, roleOf, scopeAllows } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, jsonBody, notFound, paginate, validationFailed, type ApiContext, type ApiEnv } from "./http.ts";
import { commentJson, commentsOf, issueJson } from "./shapes-issues.ts";

export function registerCommentRoutes(repos: Hono<ApiEnv>, { world, actions }: EmulatorContext): void {
  /** The acting login (the bot for installations), or GitHub's refusal: 404 for an OAuth token without the scope, 403 for an integration. */
  const writer = (c: ApiContext, allowed: boolean): string | Response => {
    const caller = c.get("caller");
    if (caller.kind === "anonymous") return apiError(c, 401, "Requires authentication");
    if (caller.kind === "user" && !scopeAllows(caller, c.get("repo"), true)) return notFound(c);
    if (!allowed) return apiError(c, 403, "Resource not accessible by integration");
    return caller.kind === "user" ? caller.login : world.botLogin;
  };

  const bodyOf = async (c: ApiContext) => {
    const body = (await jsonBody(c))?.body;
    return typeof body === "string" && body.trim() !== "" ? body : undefined;
  };

  const commentParam = (c: ApiContext) => {
    const repo = c.get("repo");
    const comment = world.state.comments.find((cm) => cm.id === Number(c.req.param("comment_id")) && cm.repoId === repo.id);
    const issue = comment && world.issue(repo.id, comment.number);
    return comment && issue ? { comment, issue } : undefined;
  };

  repos.get("/issues/:number{[0-9]+}/comments", (c) => {
    const repo = c.get("repo");
    const issue = world.issue(repo.id, Number(c.req.param("number")));
    if (!issue) return notFound(c);
    const since = c.req.query("since");
    const comments = commentsOf(world, issue).filter((cm) => !since || Date.parse(cm.updatedAt) >= Date.parse(since));
    return c.json(paginate(c, comments).map((cm) => commentJson(world, repo, issue, cm)));
  });

  repos.post("/issues/:number{[0-9]+}/comments", async (c) => {
    const repo = c.get("repo");
    const issue = world.issue(repo.id, Number(c.req.param("number")));
    if (!issue) return notFound(c);
    const author = writer(c, canComment(world, c.get("caller"), repo));
    if (author instanceof Response) return author;
    const body = await bodyOf(c);
    if (body === undefined) return validationFailed(c, "IssueComment", "body");
    const { value } = actions.addComment({ repo, issue, author, body });
    c.header("Location", `${world.config.apiUrl}/repos/${repo.owner}/${repo.name}/issues/comments/${value.id}`);
    return c.json(commentJson(world, repo, issue, value), 201);
  });

  /**
   * Creating an issue: any reader may open one as a user (token scopes permitting); an installation
   * needs the repository in scope (issues: write) and opens it as the bot. Labels are set only by
   * callers with push access or an installation, and silently dropped otherwise, as on GitHub. The
   * issues.opened webhook (and one labeled per label) follows.
   */
  repos.post("/issues", async (c) => {
    const repo = c.get("repo");
    const caller = c.get("caller");
    const author = writer(c, canComment(world, caller, repo));
    if (author instanceof Response) return author;
    const input = (await jsonBody(c)) ?? {};
    const title = typeof input.title === "string" || typeof input.title === "number" ? String(input.title).trim() : "";
    if (!title) return validationFailed(c, "Issue", "title");
    if (title.length > 256) return validationFailed(c, "Issue", "title", "custom");
    if (input.body !== undefined && input.body !== null && typeof input.body !== "string") return validationFailed(c, "Issue", "body", "invalid");
    const requested = Array.isArray(input.labels) ? input.labels.map((l: unknown) => (typeof l === "string" ? l : (l as { name?: string })?.name)).filter((l: unknown): l is string => typeof l === "string" && l.trim() !== "") : [];
    const mayLabel = caller.kind === "installation" || (caller.kind === "user" && permissionsOf(roleOf(world, repo, caller.login), repo).push);
    const { value } = actions.openIssue({ repo, author, title, body: (input.body as string | undefined) ?? "", labels: mayLabel ? requested : [] });
    c.header("Location", `${world.config.apiUrl}/repos/${repo.owner}/${repo.name}/issues/${value.number}`);
    return c.json(issueJson(world, repo, value, true), 201);
  });

  repos.get("/issues/comments/:comment_id{[0-9]+}", (c) => {
    const found = commentParam(c);
    return found ? c.json(commentJson(world, c.get("repo"), found.issue, found.comment)) : notFound(c);
  });

  repos.patch("/issues/comments/:comment_id{[0-9]+}", async (c) => {
    const repo = c.get("repo");
    const found = commentParam(c);
    if (!found) return notFound(c);
    const caller = c.get("caller");
    const actor = writer(c, canComment(world, caller, repo));
    if (actor instanceof Response) return actor;
    if (!canEditComment(world, caller, repo, found.comment.author)) return apiError(c, 403, "You must have push access to edit another user's comment.");
    const body = await bodyOf(c);
    if (body === undefined) return validationFailed(c, "IssueComment", "body");
    const { value } = actions.editComment({ repo, issue: found.issue, comment: found.comment, actor, body });
    return c.json(commentJson(world, repo, found.issue, value));
  });
}
