/** GET /user, /user/emails, /users/{username}, /users/{username}/repos and /user/repos. */
import { Hono } from "hono";
import { byFullName, installationFor, orgMembership, permissionsOf, roleOf, scopeAllows } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, asUser, notFound, paginate, type ApiEnv } from "./http.ts";
import { privateProfile, publicProfile, simpleUser } from "./shapes-accounts.ts";
import { repoJson } from "./shapes-repos.ts";
import type { RepoRecord } from "./state.ts";

type Affiliation = "owner" | "collaborator" | "organization_member";

const SORT_KEYS: Record<string, (r: RepoRecord) => string> = {
  created: (r) => r.createdAt,
  updated: (r) => r.updatedAt,
  pushed: (r) => r.pushedAt,
};

/** `type` is the older filter; GitHub refuses it together with `visibility` or `affiliation`. */
const TYPE_FILTERS: Record<string, { visibility: string; affiliation: Affiliation[] }> = {
  all: { visibility: "all", affiliation: ["owner", "collaborator", "organization_member"] },
  owner: { visibility: "all", affiliation: ["owner"] },
  member: { visibility: "all", affiliation: ["collaborator", "organization_member"] },
  public: { visibility: "public", affiliation: ["owner", "collaborator", "organization_member"] },
  private: { visibility: "private", affiliation: ["owner", "collaborator", "organization_member"] },
};

export function userRoutes({ world }: EmulatorContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/user", (c) => {
    const caller = asUser(c);
    if (caller instanceof Response) return caller;
    return c.json(privateProfile(world, world.user(caller.login)!));
  });

  app.get("/user/emails", (c) => {
    const caller = asUser(c);
    if (caller instanceof Response) return caller;
    // OAuth tokens need the user:email (or user) scope; GitHub answers 404 without it.
    if (!caller.viaApp && !caller.scopes.some((s) => s === "user:email" || s === "user")) return notFound(c);
    const user = world.user(caller.login)!;
    return c.json([
      { email: user.email, primary: true, verified: true, visibility: "public" },
      { email: `${user.id}+${user.login}@users.noreply.github.com`, primary: false, verified: true, visibility: null },
    ]);
  });

  /**
   * GET /search/users?q=…: the part the platform uses, `<e-mail> in:email`
   * (GitHub matches public e-mail addresses only) and a bare login.
   */
  app.get("/search/users", (c) => {
    const q = (c.req.query("q") ?? "").trim();
    if (!q) return apiError(c, 422, "Validation Failed", { errors: [{ resource: "Search", field: "q", code: "missing" }] });
    const byEmail = /^(\S+@\S+)\s+in:email$/i.exec(q);
    const term = (byEmail ? byEmail[1]! : q).toLowerCase();
    const found = world.state.users.filter((u) => (byEmail ? u.email.toLowerCase() === term : u.login.toLowerCase() === term));
    return c.json({ total_count: found.length, incomplete_results: false, items: found.map((u) => ({ ...simpleUser(world, u.login), score: 1 })) });
  });

  app.get("/users/:username", (c) => {
    const profile = publicProfile(world, c.req.param("username"));
    return profile ? c.json(profile) : notFound(c);
  });

  /**
   * GET /users/{username}/repos: the public repositories an account owns,
   * readable by anyone. Permissions appear for an authenticated user, as on
   * GitHub; an app's user token sees these even where the app is not installed.
   */
  app.get("/users/:username/repos", (c) => {
    const owner = c.req.param("username").toLowerCase();
    if (!publicProfile(world, c.req.param("username"))) return notFound(c);
    const caller = c.get("caller");
    const repos = world.state.repos.filter((r) => !r.private && r.owner.toLowerCase() === owner).sort(byFullName);
    return c.json(
      paginate(c, repos).map((r) => repoJson(world, r, caller.kind === "user" ? permissionsOf(roleOf(world, r, caller.login), r) : undefined)),
    );
  });

  app.get("/user/repos", (c) => {
    const caller = asUser(c);
    if (caller instanceof Response) return caller;
    const type = c.req.query("type");
    const visibilityParam = c.req.query("visibility");
    const affiliationParam = c.req.query("affiliation");
    if (type && (visibilityParam || affiliationParam)) {
      return apiError(c, 422, "If you specify visibility or affiliation, you cannot specify type.");
    }
    const filter = TYPE_FILTERS[type ?? "all"] ?? TYPE_FILTERS.all!;
    const visibility = visibilityParam ?? filter.visibility;
    const affiliation = affiliationParam ? (affiliationParam.split(",").map((a) => a.trim()) as Affiliation[]) : filter.affiliation;
    const login = caller.login.toLowerCase();

    const repos = world.state.repos.filter((repo) => {
      if (visibility === "public" && repo.private) return false;
      if (visibility === "private" && !repo.private) return false;
      if (!scopeAllows(caller, repo, false)) return false;
      const mine: Affiliation[] = [];
      if (repo.owner.toLowerCase() === login) mine.push("owner");
      if (Object.keys(repo.collaborators).some((k) => k.toLowerCase() === login)) mine.push("collaborator");
      if (orgMembership(world, repo.owner, caller.login)) mine.push("organization_member");
      if (!mine.some((a) => affiliation.includes(a))) return false;
      // A GitHub App's user token only reaches repositories where the app is installed.
      return !caller.viaApp || installationFor(world, repo) !== undefined;
    });

    const sort = c.req.query("sort") ?? "full_name";
    const key = SORT_KEYS[sort];
    const direction = c.req.query("direction") ?? (key ? "desc" : "asc");
    repos.sort(key ? (a, b) => key(a).localeCompare(key(b)) || byFullName(a, b) : byFullName);
    if (direction === "desc") repos.reverse();
    return c.json(paginate(c, repos).map((r) => repoJson(world, r, permissionsOf(roleOf(world, r, caller.login), r))));
  });

  return app;
}
