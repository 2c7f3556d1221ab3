import { declareRoute, json, OPTIONAL_USER, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { IssueSummary } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext, GitHubDeps } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { GitHubApiError } from "../../github/client.ts";
import { clientForRepository, openIssues } from "../../github/data.ts";
import { finalizeInstallation } from "../../services/repositories/installations.ts";
import { failedFromGitHub, repositoryForUser, userRepositories } from "../../services/repositories/user-repos.ts";
import { repositoryByFullName } from "../../services/repositories/register.ts";
import { OwnerRepoQuery, positiveId, ownerName, repoName } from "../params.ts";
import { githubOrgRoutes } from "./orgs.ts";

const RefreshQuery = z.object({ refresh: z.enum(["1", "true"]).optional() });
const OwnerNameParam = z.object({ owner: ownerName, name: repoName });
const FinalizeInstallationBody = z.object({ installationId: positiveId });
const LabelledIssuesQuery = OwnerRepoQuery.extend({ labels: z.string().max(200).optional() });

/**
 * GET  /api/github/user/repos                   the user's repositories (admin flags, app installed, registered)
 * GET  /api/github/repos/{owner}/{name}         repo (with permissions.admin) and its open issues (not PRs); public ones signed out too
 * GET  /api/github/issues?owner&repo&labels     open issues with any of the labels (the public page's fallback): a bare array, X-Data-Stale
 * POST /api/github/app/finalize-installation    installationId -> count
 */
export function githubRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .use(async (c, next) => {
      await next();
      if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "private, max-age=60");
    })
    .get("/user/repos", validate("query", RefreshQuery), async (c) => {
      const user = requireUser(c);
      const refresh = Boolean(c.req.valid("query").refresh);
      // GitHub's part is cached on the server; the answer also says what is registered and installed, which changes with
      // the user's own actions, so the browser must not keep a copy.
      c.header("Cache-Control", "private, no-store");
      return c.json(await userRepositories(ctx, user, { refresh }));
    })
    .get("/repos/:owner/:name", validate("param", OwnerNameParam), async (c) => {
      const { owner, name } = c.req.valid("param");
      const user = c.get("user") ?? null;
      if (!user) c.header("Cache-Control", "public, max-age=60");
      return c.json(await repositoryForUser(ctx, user, `${owner}/${name}`));
    })
    .post("/app/finalize-installation", validate("json", FinalizeInstallationBody), async (c) => {
      const { user } = requireSession(c);
      const result = await finalizeInstallation(ctx, user, c.req.valid("json").installationId);
      return c.json({ success: true, ...result });
    })
    .get("/issues", validate("query", LabelledIssuesQuery), async (c) => {
      const { owner, repo, labels } = c.req.valid("query");
      // Public data of a public repository, the same for everyone.
      c.header("Cache-Control", "public, max-age=60");
      const { issues, stale } = await labelledPublicIssues(ctx, `${owner}/${repo}`, labels);
      if (stale) c.header(STALE_HEADER, "true");
      return c.json(issues);
    })
    .route("/", githubOrgRoutes(ctx));
}

/** Spec section 7 answers issue lists as bare arrays; `X-Data-Stale: true` says a list is an old copy (GitHub could not be reached). */
export const STALE_HEADER = "X-Data-Stale";

/** Open issues of a registered public repository, optionally those carrying any of `labels` (comma-separated). */
export async function labelledPublicIssues(ctx: GitHubDeps, fullName: string, labels?: string) {
  const registered = await repositoryByFullName(ctx, fullName);
  if (!registered || registered.isPrivate) throw new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: "Repository not found." });
  const client = await clientForRepository(ctx, registered, null);
  const issues = await openIssues(ctx, registered.fullName, registered.githubRepoId, client).catch((err) => {
    if (err instanceof GitHubApiError) throw failedFromGitHub();
    throw err;
  });
  const wanted = (labels ?? "").split(",").map((l) => l.trim().toLowerCase()).filter(Boolean);
  const filtered = wanted.length ? issues.data.filter((i) => i.labels.some((l) => wanted.includes(l.name.toLowerCase()))) : issues.data;
  return { issues: filtered, stale: issues.stale };
}

export const RepositoryForUser = z.object({
  repo: z.object({
    id: z.number().int(), name: z.string(), full_name: z.string(), description: z.string().nullable(), html_url: z.string(),
    private: z.boolean(), permissions: z.object({ admin: z.boolean() }),
  }),
  issues: z.array(IssueSummary),
  registered: z.boolean(),
  stale: z.boolean(),
});

export const githubApi = [
  declareRoute({
    method: "get", path: "/api/github/user/repos", operationId: "listUserRepositories", tags: ["repositories"], security: USER,
    errors: ["github_sign_in_required", "github_unavailable", "validation_failed"],
    summary: "The user's GitHub repositories: admin flag, app installed, registered",
    request: { query: RefreshQuery },
    responses: {
      200: json("The repositories", z.object({
        repositories: z.array(z.object({
          id: z.number().int(), name: z.string(), full_name: z.string(), description: z.string().nullable(), html_url: z.string(), private: z.boolean(),
          permissions: z.object({ admin: z.boolean(), push: z.boolean(), pull: z.boolean() }),
          appInstalled: z.boolean(), installationId: z.number().int().nullable(), registered: z.boolean(),
        })),
        stale: z.boolean(),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/github/repos/{owner}/{name}", operationId: "getRepositoryForUser", tags: ["repositories"], security: OPTIONAL_USER,
    errors: ["github_sign_in_required", "github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "A repository (with the user's admin flag) and its open issues",
    request: { params: OwnerNameParam },
    responses: { 200: json("The repository and its issues", RepositoryForUser) },
  }),
  declareRoute({
    method: "post", path: "/api/github/app/finalize-installation", operationId: "finalizeInstallation", tags: ["repositories"], security: SESSION_WRITE,
    errors: ["github_unavailable", "not_found", "validation_failed"],
    summary: "Links a GitHub App installation the user owns",
    request: { body: { content: { "application/json": { schema: FinalizeInstallationBody } }, required: true } },
    responses: { 200: json("Linked", z.object({ success: z.literal(true), count: z.number().int(), installationId: z.number().int() })) },
  }),
  declareRoute({
    method: "get", path: "/api/github/issues", operationId: "listLabelledIssues", tags: ["repositories"], security: OPTIONAL_USER,
    errors: ["github_unavailable", "invalid_repository", "not_found", "validation_failed"],
    summary: "Open issues of a registered public repository with any of the labels (a bare array; X-Data-Stale on an old copy)",
    request: { query: LabelledIssuesQuery },
    responses: { 200: json("The issues", z.array(IssueSummary)) },
  }),
];
