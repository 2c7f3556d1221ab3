import { declareRoute, json, USER, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { appInstallUrl } from "../../github/app-auth.ts";
import { adminOrganizationRepositories, adminOrganizations } from "../../services/repositories/orgs.ts";
import { ownerName } from "../params.ts";

const OrgParam = z.object({ org: ownerName });

/**
 * The original product's my-repos calls (docs/api.md, "Clients of the original product"):
 * GET /api/github/user/orgs           the user's admin organisations -> { orgs: [{ login, avatar_url }] }
 * GET /api/github/orgs/{org}/repos    the organisation's repositories the user administers -> { repos: [...] } (not an admin: 403)
 * GET /api/github/app/install-url     where to install the GitHub App -> { installUrl }
 */
export function githubOrgRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/user/orgs", async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      return c.json({ orgs: await adminOrganizations(ctx, user) });
    })
    .get("/orgs/:org/repos", validate("param", OrgParam), async (c) => {
      const user = requireUser(c);
      c.header("Cache-Control", "private, no-store");
      return c.json({ repos: await adminOrganizationRepositories(ctx, user, c.req.valid("param").org) });
    })
    .get("/app/install-url", (c) => {
      requireUser(c);
      return c.json({ installUrl: appInstallUrl(ctx) });
    });
}

export const githubOrgApi = [
  declareRoute({
    method: "get", path: "/api/github/user/orgs", operationId: "listAdminOrganizations", tags: ["repositories"], security: USER,
    errors: ["github_sign_in_required", "github_unavailable"],
    summary: "The GitHub organisations the user administers (active memberships with role admin)",
    responses: { 200: json("The organisations", z.object({ orgs: z.array(z.object({ login: z.string(), avatar_url: z.string() })) })) },
  }),
  declareRoute({
    method: "get", path: "/api/github/orgs/{org}/repos", operationId: "listAdminOrganizationRepositories", tags: ["repositories"], security: USER,
    errors: ["admin_required", "github_sign_in_required", "github_unavailable", "validation_failed"],
    summary: "An organisation's repositories the user administers, with whether each is registered (not an admin of it: 403)",
    request: { params: OrgParam },
    responses: {
      200: json("Up to 100, latest updated first", z.object({
        repos: z.array(z.object({
          id: z.number().int(), name: z.string(), full_name: z.string(), description: z.string().nullable(), private: z.boolean(),
          html_url: z.string(), updated_at: z.string().nullable(), isRegistered: z.boolean(),
        })),
      })),
    },
  }),
  declareRoute({
    method: "get", path: "/api/github/app/install-url", operationId: "getAppInstallUrl", tags: ["repositories"], security: USER,
    errors: ["github_unavailable"],
    summary: "Where to install the platform's GitHub App",
    responses: { 200: json("GitHub's install page", z.object({ installUrl: z.string() })) },
  }),
];
