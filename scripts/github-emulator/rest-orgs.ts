/**
 * GET /user/memberships/orgs and GET /orgs/{org}/repos: the caller's organisation memberships (an OAuth token
 * needs read:org, as on GitHub; an app's user token reads them) and an organisation's repositories as the caller
 * sees them, with their permissions.
 */
import { Hono } from "hono";
import { byFullName, canRead, orgMembership, permissionsOf, roleOf } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, asUser, notFound, paginate, type ApiEnv } from "./http.ts";
import { orgHookJson, simpleUser } from "./shapes-accounts.ts";
import { repoJson } from "./shapes-repos.ts";
import type { RepoRecord } from "./state.ts";

const SORT_KEYS: Record<string, (r: RepoRecord) => string> = {
  created: (r) => r.createdAt,
  updated: (r) => r.updatedAt,
  pushed: (r) => r.pushedAt,
};

export function orgRoutes({ world }: EmulatorContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/user/memberships/orgs", (c) => {
    const caller = asUser(c);
    if (caller instanceof Response) return caller;
    if (!caller.viaApp && !caller.scopes.some((s) => s === "read:org" || s === "admin:org" || s === "write:org")) {
      return apiError(c, 403, "You need at least read:org scope or user scope to list your organization memberships.");
    }
    const state = c.req.query("state");
    if (state === "pending") return c.json([]);
    const memberships = world.state.orgs
      .filter((org) => orgMembership(world, org.login, caller.login))
      .map((org) => ({
        url: `${world.config.apiUrl}/orgs/${org.login}/memberships/${caller.login}`,
        state: "active",
        role: orgMembership(world, org.login, caller.login)!,
        organization_url: `${world.config.apiUrl}/orgs/${org.login}`,
        organization: orgHookJson(world, org),
        user: simpleUser(world, caller.login),
      }));
    return c.json(paginate(c, memberships));
  });

  app.get("/orgs/:org/repos", (c) => {
    const org = world.org(c.req.param("org"));
    if (!org) return notFound(c);
    const caller = c.get("caller");
    const login = caller.kind === "user" ? caller.login : undefined;
    const repos = world.state.repos.filter((r) => r.owner.toLowerCase() === org.login.toLowerCase() && canRead(world, caller, r));
    const key = SORT_KEYS[c.req.query("sort") ?? "created"];
    repos.sort(key ? (a, b) => key(a).localeCompare(key(b)) || byFullName(a, b) : byFullName);
    const direction = c.req.query("direction") ?? (c.req.query("sort") === "full_name" ? "asc" : "desc");
    if (direction === "desc") repos.reverse();
    return c.json(paginate(c, repos).map((r) => repoJson(world, r, login ? permissionsOf(roleOf(world, r, login), r) : undefined)));
  });

  return app;
}
