import { declareRoute, json, SESSION_WRITE, USER } from "../../openapi/declare.ts";
import { Amount, Timestamp } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession, requireUser } from "../../middleware/session.ts";
import { accessibleRepositories, setRepositoryActive } from "../../services/repositories/accessible.ts";
import { userRepositories } from "../../services/repositories/user-repos.ts";
import { positiveId } from "../params.ts";
import { ErrorCode, noApiEndpoint, refused } from "../../errors.ts";

const GithubRepoParam = z.object({ githubRepoId: positiveId });
const ACTIVE_PATH = /^\/api\/repositories\/([^/]+)\/active$/;
/** The GitHub repository id of PATCH /api/repositories/{githubRepoId}/active (routed as PATCH /*: see below). */
function activeRepoId(path: string): number {
  const param = GithubRepoParam.safeParse({ githubRepoId: ACTIVE_PATH.exec(path)?.[1] });
  if (!param.success) throw refused(ErrorCode.VALIDATION_FAILED, "githubRepoId must be a positive whole number");
  return param.data.githubRepoId;
}
const ActiveBody = z.object({ isActive: z.boolean({ message: "isActive must be a boolean" }) });

/**
 * The original product's repository calls (docs/api.md, "Clients of the original product"):
 * GET   /api/repositories/accessible                  signed in -> { repositories: [...] } (its /repos list)
 * PATCH /api/repositories/{githubRepoId}/active       { isActive } the registering pool manager -> { success, isActive }
 */
export function accessibleRepositoryRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/accessible", async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      const reachable = async () => new Set((await userRepositories(ctx, user)).repositories.map((r) => r.id));
      return c.json({ repositories: await accessibleRepositories(ctx, user, reachable) });
    })
    // Routed as PATCH /* and matched here: the public reads' middleware on the static /api/repositories/public (every
    // method) beside a parameter would push the whole app off Hono's fastest router (app.test.ts).
    .patch("/*", async (c, next) => {
      if (!ACTIVE_PATH.test(c.req.path)) throw noApiEndpoint(c.req.method, c.req.path);
      await next();
    }, validate("json", ActiveBody), async (c) => {
      const { user } = requireSession(c);
      const done = await setRepositoryActive(ctx, { user, githubRepoId: activeRepoId(c.req.path), isActive: c.req.valid("json").isActive });
      ctx.changes.publish(["repositories", `repo:${done.githubRepoId}`]);
      c.get("log").info("repository active switch", { userId: user.id, repoId: done.githubRepoId, isActive: done.isActive });
      return c.json({ success: true as const, isActive: done.isActive });
    });
}

export const AccessibleRepository = z.object({
  id: z.number().int().meta({ description: "The GitHub repository id" }),
  githubRepoFullName: z.string(),
  registeredAt: Timestamp,
  isPrivate: z.boolean(),
  isActive: z.boolean(),
  xdcPoolRewards: Amount.meta({ description: "Whole XDC, e.g. \"12.5\"" }),
  roxnPoolRewards: Amount,
  usdcPoolRewards: Amount.meta({ description: "Whole USDC (6 decimals)" }),
  poolInfoError: z.null(),
}).openapi("AccessibleRepository");

export const accessibleRepositoriesApi = [
  declareRoute({
    method: "get", path: "/api/repositories/accessible", operationId: "listAccessibleRepositories", tags: ["repositories"], security: USER,
    errors: ["github_sign_in_required", "github_unavailable"],
    summary: "Registered repositories the user may see (active public ones, private ones they reach, their own inactive ones)",
    responses: { 200: json("The repositories, newest first", z.object({ repositories: z.array(AccessibleRepository) })) },
  }),
  declareRoute({
    method: "patch", path: "/api/repositories/{githubRepoId}/active", operationId: "setRepositoryActive", tags: ["repositories"], security: SESSION_WRITE,
    errors: ["not_found", "not_owner", "validation_failed"],
    summary: "Marks a repository active or inactive (the pool manager who registered it; others 403)",
    request: { params: GithubRepoParam, body: { content: { "application/json": { schema: ActiveBody } }, required: true } },
    responses: { 200: json("Changed", z.object({ success: z.literal(true), isActive: z.boolean() })) },
  }),
];
