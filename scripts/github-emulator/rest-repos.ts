/**
 * Repository-scoped REST: resolving /repos/{owner}/{repo} (and
 * /repositories/{id}) with GitHub's visibility rule (a private repository is
 * a 404 to anyone who cannot see it) and rename redirects, the repository
 * itself, and collaborator permissions.
 */
import type { Hono, MiddlewareHandler } from "hono";
import { canRead, permissionsOf, roleOf, type Caller } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, DOCS_URL, notFound, paginate, type ApiEnv } from "./http.ts";
import { simpleUser } from "./shapes-accounts.ts";
import { repoJson } from "./shapes-repos.ts";
import type { RepoRecord, Role } from "./state.ts";
import type { World } from "./world.ts";

/** Sets `repo`. Former names answer 301 to /repositories/{id}/..., like GitHub after a rename or transfer. */
export function repoScope(world: World): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const byId = c.req.param("repository_id");
    const owner = c.req.param("owner") ?? "";
    const name = c.req.param("repo") ?? "";
    const found = byId !== undefined ? { repo: world.repoById(Number(byId)), moved: false } : world.findRepo(owner, name);
    const repo = found?.repo;
    if (!repo || !canRead(world, c.get("caller"), repo)) return notFound(c);
    if (found.moved) {
      const rest = c.req.path.split(`/repos/${owner}/${name}`)[1] ?? "";
      const url = `${world.config.apiUrl}/repositories/${repo.id}${rest}`;
      c.header("Location", url);
      return c.json({ message: "Moved Permanently", url, documentation_url: DOCS_URL }, 301);
    }
    c.set("repo", repo);
    await next();
  };
}

/** Users see their permissions on a repository; installations and anonymous callers get none. */
function callerPermissions(world: World, caller: Caller, repo: RepoRecord) {
  return caller.kind === "user" ? permissionsOf(roleOf(world, repo, caller.login), repo) : undefined;
}

/** The legacy `permission` names the endpoint reports: maintain counts as write, triage as read. */
const LEGACY_PERMISSION: Record<Role, string> = { admin: "admin", maintain: "write", write: "write", triage: "read", read: "read" };

export function registerRepoRoutes(repos: Hono<ApiEnv>, { world }: EmulatorContext): void {
  repos.get("/", (c) => {
    const repo = c.get("repo");
    return c.json(repoJson(world, repo, callerPermissions(world, c.get("caller"), repo)));
  });

  repos.get("/collaborators/:username/permission", (c) => {
    const repo = c.get("repo");
    const caller = c.get("caller");
    if (caller.kind === "anonymous") return apiError(c, 401, "Requires authentication");
    if (caller.kind === "user" && !permissionsOf(roleOf(world, repo, caller.login), repo).push) {
      return apiError(c, 403, "Must have push access to view repository collaborators.");
    }
    const user = world.user(c.req.param("username"));
    if (!user) return apiError(c, 404, `${c.req.param("username")} is not a user`);
    const role = roleOf(world, repo, user.login);
    // Everyone can read a public repository, so a stranger still reports "read" there.
    const roleName = role ?? (repo.private ? "none" : "read");
    const permission = role ? LEGACY_PERMISSION[role] : roleName;
    return c.json({
      permission,
      role_name: roleName,
      user: { ...simpleUser(world, user.login), permissions: permissionsOf(role, repo), role_name: roleName },
    });
  });

  /**
   * GET /repos/{owner}/{repo}/contributors. GitHub counts commits; the
   * emulator has none, so it counts merged pull requests per author, and one
   * for each collaborator who can push (their own commits), most first.
   */
  repos.get("/contributors", (c) => {
    const repo = c.get("repo");
    const counts = new Map<string, number>();
    for (const [login, role] of Object.entries(repo.collaborators)) {
      if (role === "admin" || role === "maintain" || role === "write") counts.set(login, 1);
    }
    for (const issue of world.issuesOf(repo.id)) {
      if (issue.pull?.mergedAt) counts.set(issue.author, (counts.get(issue.author) ?? 0) + 1);
    }
    const list = [...counts.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([login, contributions]) => ({ ...simpleUser(world, login), contributions }));
    return c.json(paginate(c, list));
  });
}
