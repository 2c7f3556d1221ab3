/**
 * GitHub App endpoints: as the app (JWT) — the app, its installations,
 * installation access tokens, the installation of a repository or account;
 * as an installation — its repositories; as a user through the app's user
 * token — the installations and repositories that user can reach.
 */
import { Hono, type Context } from "hono";
import { installationFor, installationOfAccount, installationRepos, permissionsOf, roleOf, userCanAccessInstallation } from "./access.ts";
import { mintInstallationToken } from "./app-auth.ts";
import type { EmulatorContext } from "./context.ts";
import { apiError, notFound, paginate, type ApiContext, type ApiEnv } from "./http.ts";
import { appJson, installationJson } from "./shapes-accounts.ts";
import { repoJson } from "./shapes-repos.ts";
import { APP_PERMISSIONS } from "./world.ts";

/** Anything but a valid JWT on an app endpoint is answered like GitHub: the token "could not be decoded". */
function notApp(c: ApiContext): Response | undefined {
  return c.get("caller").kind === "app" ? undefined : apiError(c, 401, "A JSON web token could not be decoded");
}

export function installationRoutes({ world }: EmulatorContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const byId = (c: Context) => world.state.installations.find((i) => i.id === Number(c.req.param("installation_id")));

  app.get("/app", (c) => notApp(c) ?? c.json(appJson(world)));

  app.get("/app/installations", (c) => notApp(c) ?? c.json(paginate(c, world.state.installations).map((i) => installationJson(world, i))));

  app.get("/app/installations/:installation_id{[0-9]+}", (c) => {
    const installation = byId(c);
    return notApp(c) ?? (installation ? c.json(installationJson(world, installation)) : notFound(c));
  });

  app.post("/app/installations/:installation_id{[0-9]+}/access_tokens", (c) => {
    const denied = notApp(c);
    if (denied) return denied;
    const installation = byId(c);
    if (!installation) return notFound(c);
    const token = mintInstallationToken(world, installation.id);
    return c.json({ token: token.token, expires_at: token.expiresAt, permissions: APP_PERMISSIONS, repository_selection: installation.selection }, 201);
  });

  for (const path of ["/users/:account/installation", "/orgs/:account/installation"]) {
    app.get(path, (c) => {
      const installation = installationOfAccount(world, c.req.param("account") ?? "");
      return notApp(c) ?? (installation ? c.json(installationJson(world, installation)) : notFound(c));
    });
  }

  app.get("/installation/repositories", (c) => {
    const caller = c.get("caller");
    if (caller.kind !== "installation") return apiError(c, 403, "You must authenticate with an installation access token in order to list repositories for an installation.");
    const repos = installationRepos(world, caller.installation);
    return c.json({ total_count: repos.length, repository_selection: caller.installation.selection, repositories: paginate(c, repos).map((r) => repoJson(world, r)) });
  });

  /** Only a GitHub App's user token may list installations, as on GitHub (an OAuth app's token is refused). */
  const appUser = (c: ApiContext) => {
    const caller = c.get("caller");
    if (caller.kind === "anonymous") return apiError(c, 401, "Requires authentication");
    if (caller.kind !== "user" || !caller.viaApp) return apiError(c, 403, "You must authenticate with an access token authorized to a GitHub App in order to list installations");
    return caller;
  };

  app.get("/user/installations", (c) => {
    const caller = appUser(c);
    if (caller instanceof Response) return caller;
    const installations = world.state.installations.filter((i) => userCanAccessInstallation(world, caller.login, i));
    return c.json({ total_count: installations.length, installations: paginate(c, installations).map((i) => installationJson(world, i)) });
  });

  app.get("/user/installations/:installation_id{[0-9]+}/repositories", (c) => {
    const caller = appUser(c);
    if (caller instanceof Response) return caller;
    const installation = byId(c);
    if (!installation || !userCanAccessInstallation(world, caller.login, installation)) return notFound(c);
    const repos = installationRepos(world, installation).filter((r) => roleOf(world, r, caller.login) !== null);
    const page = paginate(c, repos).map((r) => repoJson(world, r, permissionsOf(roleOf(world, r, caller.login), r)));
    return c.json({ total_count: repos.length, repository_selection: installation.selection, repositories: page });
  });

  return app;
}

/** GET /repos/{owner}/{repo}/installation (JWT). */
export function registerRepoInstallationRoute(repos: Hono<ApiEnv>, { world }: EmulatorContext): void {
  repos.get("/installation", (c) => {
    const installation = installationFor(world, c.get("repo"));
    return notApp(c) ?? (installation ? c.json(installationJson(world, installation)) : notFound(c));
  });
}
