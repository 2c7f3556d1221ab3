import { ANONYMOUS, declareRoute, json, OPTIONAL_USER, SESSION_WRITE, STABLE } from "../../openapi/declare.ts";
import { Amount, Timestamp } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import { eq, or } from "drizzle-orm";
import { z } from "zod";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { rateLimit } from "../../middleware/rate-limit.ts";
import { repositories } from "../../../db/schema/index.ts";
import { registerRepository } from "../../services/repositories/register.ts";
import { publicRepositoryList } from "../../services/repositories/public.ts";
import { positiveId } from "../params.ts";
import { accessibleRepositoryRoutes } from "./accessible.ts";

const RegisterRepositoryBody = z.object({ githubRepoId: positiveId, githubRepoFullName: z.string().max(200), installationId: positiveId.optional() });

/**
 * POST /api/repositories/register     githubRepoId, githubRepoFullName[, installationId]; may answer installUrl
 * GET  /api/repositories/registered   registered repositories (githubRepoId, installationId)
 * GET  /api/repositories/public       registered public repositories with their pools (cached 2 min); ?limit=&cursor= pages
 */
export function repositoryRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .post(
      "/register",
      // Signed-in first: an anonymous caller is told so (401), not about its body, and uses up no allowance.
      async (c, next) => {
        requireSession(c);
        await next();
      },
      rateLimit(ctx, { name: "register-repository", perIp: 60, perUser: 30, windowMs: 3600_000 }),
      validate("json", RegisterRepositoryBody),
      async (c) => {
        const { user } = requireSession(c);
        const body = c.req.valid("json");
        return c.json(await registerRepository(ctx, { user, githubRepoId: body.githubRepoId, fullName: body.githubRepoFullName }));
      },
    )
    .get("/registered", async (c) => {
      // Public ones for everyone; a user also sees the private ones they registered.
      const user = c.get("user");
      const rows = await ctx.database.db
        .select({ githubRepoId: repositories.githubRepoId, installationId: repositories.installationId, githubRepoFullName: repositories.fullName })
        .from(repositories)
        .where(user ? or(eq(repositories.isPrivate, false), eq(repositories.registeredByUserId, user.id)) : eq(repositories.isPrivate, false));
      c.header("Cache-Control", user ? "private, max-age=60" : "public, max-age=60");
      // The answer depends on who asks: a shared cache must not give one visitor's copy to another.
      c.header("Vary", "Cookie");
      return c.json({ repositories: rows });
    })
    .get("/public", validate("query", PublicListQuery), async (c) => {
      const { limit, cursor } = c.req.valid("query");
      c.header("X-Page-Cache", "max-age=120; tags=repositories");
      return c.json(await publicRepositoryList(ctx, limit === undefined ? undefined : { limit, cursor }));
    })
    .route("/", accessibleRepositoryRoutes(ctx));
}

const PublicListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional().meta({ description: "A page of this many (new clients); without it, the whole list" }),
  cursor: z.string().max(100).optional().meta({ description: "The previous page's nextCursor (with limit)" }),
});

export const PublicRepositoryList = z.object({
  repositories: z.array(z.object({
    id: z.number().int().meta({ description: "The GitHub repository id" }),
    githubRepoFullName: z.string(),
    description: z.string().nullable(),
    xdcPoolRewards: Amount,
    roxnPoolRewards: Amount,
    usdcPoolRewards: Amount,
    registeredAt: Timestamp,
  })),
  nextCursor: z.string().nullable().optional().meta({ description: "With limit: the next page's cursor (null on the last page)" }),
}).openapi("PublicRepositoryList");

export const repositoriesApi = [
  declareRoute({
    method: "post", path: "/api/repositories/register", operationId: "registerRepository", tags: ["repositories"], security: SESSION_WRITE,
    errors: ["admin_required", "already_paid", "chain_busy", "chain_unavailable", "github_sign_in_required", "github_unavailable",
      "idempotency_conflict", "invalid_repository", "manager_pending", "not_found", "rate_limited", "role_required", "validation_failed"],
    summary: "Registers a repository the pool manager administers on GitHub (or answers where to install the app)",
    request: { body: { content: { "application/json": { schema: RegisterRepositoryBody } }, required: true } },
    responses: {
      200: json("Registered, or not yet: the app must be installed first (installUrl)", z.union([
        z.object({
          success: z.literal(true), message: z.string(),
          repository: z.object({
            repoId: z.number().int(), githubRepoId: z.number().int(), githubRepoFullName: z.string(),
            installationId: z.number().int().nullable(), isPrivate: z.boolean(), registeredAt: Timestamp,
          }),
        }),
        z.object({ success: z.literal(false), installUrl: z.string(), message: z.string() }),
      ])),
    },
  }),
  declareRoute({
    method: "get", path: "/api/repositories/registered", operationId: "listRegisteredRepositories", tags: ["repositories"], security: OPTIONAL_USER,
    summary: "Registered repositories (public ones; a user also sees the private ones they registered)",
    responses: {
      200: json("The repositories", z.object({
        repositories: z.array(z.object({ githubRepoId: z.number().int(), installationId: z.number().int().nullable(), githubRepoFullName: z.string() })),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/repositories/public", operationId: "listPublicRepositories", tags: ["public"], security: ANONYMOUS, ...STABLE,
    errors: ["invalid_cursor", "validation_failed"],
    summary: "Registered public repositories with their pools (all of them; or a page with ?limit=&cursor=)",
    request: { query: PublicListQuery },
    responses: { 200: json("The repositories, newest first", PublicRepositoryList) },
  }),
];
