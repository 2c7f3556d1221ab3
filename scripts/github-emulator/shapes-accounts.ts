/**
 * REST JSON for users, organisations, the app, its bot user and its
 * installations, field for field as GitHub documents them.
 */
import { APP_EVENTS, APP_PERMISSIONS, nodeId, type World } from "./world.ts";
import type { InstallationRecord, OrgRecord, RepoRecord, UserRecord } from "./state.ts";

export type Json = Record<string, unknown>;

/** GitHub's placeholder for deleted accounts. */
const GHOST = { login: "ghost", id: 10137 };

export function avatarUrl(world: World, id: number): string {
  return `${world.config.webUrl}/avatars/u/${id}?v=4`;
}

type Account = { type: "User"; record: UserRecord } | { type: "Organization"; record: OrgRecord } | { type: "Bot" } | { type: "Ghost" };

export function account(world: World, login: string): Account {
  if (world.isBot(login)) return { type: "Bot" };
  const user = world.user(login);
  if (user) return { type: "User", record: user };
  const org = world.org(login);
  return org ? { type: "Organization", record: org } : { type: "Ghost" };
}

export function accountId(world: World, login: string): number {
  const a = account(world, login);
  return a.type === "Bot" ? world.botId : a.type === "Ghost" ? GHOST.id : a.record.id;
}

/** The "simple user" object embedded everywhere (owner, user, sender, actor, ...). */
export function simpleUser(world: World, login: string): Json {
  const { webUrl, apiUrl } = world.config;
  const a = account(world, login);
  const name = a.type === "Bot" ? world.botLogin : a.type === "Ghost" ? GHOST.login : a.record.login;
  const id = accountId(world, login);
  const type = a.type === "Ghost" ? "User" : a.type === "User" && a.record.type === "Bot" ? "Bot" : a.type;
  const api = `${apiUrl}/users/${encodeURIComponent(name)}`;
  return {
    login: name,
    id,
    node_id: nodeId(type, id),
    avatar_url: avatarUrl(world, id),
    gravatar_id: "",
    url: api,
    html_url: a.type === "Bot" ? `${webUrl}/apps/${world.config.app.slug}` : `${webUrl}/${name}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type,
    user_view_type: "public",
    site_admin: false,
  };
}

/** GET /users/{username}: the public profile. Undefined for unknown logins. */
export function publicProfile(world: World, login: string): Json | undefined {
  const a = account(world, login);
  if (a.type === "Ghost") return undefined;
  const owned = world.state.repos.filter((r) => r.owner.toLowerCase() === login.toLowerCase());
  const base = { ...simpleUser(world, login), public_repos: owned.filter((r) => !r.private).length, public_gists: 0, followers: 0, following: 0 };
  // The bot user appears with its app, whose owner is the first organisation.
  const appCreated = world.state.orgs[0]!.createdAt;
  if (a.type === "Bot") return { ...base, name: null, created_at: appCreated, updated_at: appCreated };
  const r = a.record;
  const profile = a.type === "User" ? { name: r.name, blog: a.record.blog, location: a.record.location, email: a.record.email, bio: a.record.bio } : { name: r.name, blog: "", location: null, email: null, bio: null };
  return { ...base, ...profile, company: null, hireable: null, twitter_username: null, created_at: r.createdAt, updated_at: r.createdAt };
}

/** GET /user adds the private fields of the account. */
export function privateProfile(world: World, user: UserRecord): Json {
  const owned = world.state.repos.filter((r) => r.owner === user.login);
  const privateCount = owned.filter((r) => r.private).length;
  return {
    ...publicProfile(world, user.login),
    private_gists: 0,
    total_private_repos: privateCount,
    owned_private_repos: privateCount,
    disk_usage: owned.length * 1024,
    collaborators: 0,
    two_factor_authentication: true,
    plan: { name: "free", space: 976562499, collaborators: 0, private_repos: 10000 },
  };
}

/** The `organization` object of webhook payloads. */
export function orgHookJson(world: World, org: OrgRecord): Json {
  const api = `${world.config.apiUrl}/orgs/${org.login}`;
  return {
    login: org.login,
    id: org.id,
    node_id: nodeId("Organization", org.id),
    url: api,
    repos_url: `${api}/repos`,
    events_url: `${api}/events`,
    hooks_url: `${api}/hooks`,
    issues_url: `${api}/issues`,
    members_url: `${api}/members{/member}`,
    public_members_url: `${api}/public_members{/member}`,
    avatar_url: avatarUrl(world, org.id),
    description: null,
  };
}

export function appJson(world: World): Json {
  const { app, webUrl } = world.config;
  const owner = world.state.orgs[0]!;
  return {
    id: app.id,
    client_id: app.clientId,
    slug: app.slug,
    node_id: nodeId("Integration", app.id),
    owner: simpleUser(world, owner.login),
    name: app.slug,
    description: "Issuepool bounties for your issues.",
    external_url: new URL(app.setupUrl).origin,
    html_url: `${webUrl}/apps/${app.slug}`,
    created_at: owner.createdAt,
    updated_at: owner.createdAt,
    permissions: APP_PERMISSIONS,
    events: APP_EVENTS,
    installations_count: world.state.installations.length,
  };
}

function installationHtmlUrl(world: World, inst: InstallationRecord): string {
  const org = world.org(inst.account);
  return org ? `${world.config.webUrl}/organizations/${org.login}/settings/installations/${inst.id}` : `${world.config.webUrl}/settings/installations/${inst.id}`;
}

export function installationJson(world: World, inst: InstallationRecord): Json {
  const { app, apiUrl } = world.config;
  const target = account(world, inst.account);
  return {
    id: inst.id,
    node_id: nodeId("IntegrationInstallation", inst.id),
    client_id: app.clientId,
    account: simpleUser(world, inst.account),
    repository_selection: inst.selection,
    access_tokens_url: `${apiUrl}/app/installations/${inst.id}/access_tokens`,
    repositories_url: `${apiUrl}/installation/repositories`,
    html_url: installationHtmlUrl(world, inst),
    app_id: app.id,
    app_slug: app.slug,
    target_id: accountId(world, inst.account),
    target_type: target.type === "Organization" ? "Organization" : "User",
    permissions: APP_PERMISSIONS,
    events: APP_EVENTS,
    created_at: inst.createdAt,
    updated_at: inst.updatedAt,
    single_file_name: null,
    has_multiple_single_files: false,
    single_file_paths: [],
    suspended_by: null,
    suspended_at: null,
  };
}

/** The short repository entries of installation webhooks. */
export function shortRepo(r: RepoRecord): Json {
  return { id: r.id, node_id: nodeId("Repository", r.id), name: r.name, full_name: `${r.owner}/${r.name}`, private: r.private };
}
