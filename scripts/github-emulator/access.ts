/**
 * Who may see and do what, by GitHub's rules: repository roles (owner,
 * organisation owners, collaborators, the organisation's default "read" base
 * permission for members), installation coverage, and the intersection rule
 * for GitHub App user tokens (they reach private repositories only where the
 * app is installed).
 */
import type { InstallationRecord, RepoRecord, Role, TokenRecord } from "./state.ts";
import { fullName, type World } from "./world.ts";

export type Caller =
  | { kind: "anonymous"; ip: string }
  | { kind: "user"; login: string; token: TokenRecord; viaApp: boolean; scopes: string[] }
  | { kind: "installation"; installation: InstallationRecord; token: TokenRecord }
  | { kind: "app" };

export interface RepoPermissions {
  admin: boolean;
  maintain: boolean;
  push: boolean;
  triage: boolean;
  pull: boolean;
}

const RANK: Record<Role, number> = { read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function lookup<T>(map: Record<string, T>, login: string): T | undefined {
  const key = Object.keys(map).find((k) => same(k, login));
  return key === undefined ? undefined : map[key];
}

export function orgMembership(world: World, org: string, login: string): "admin" | "member" | undefined {
  const record = world.org(org);
  return record ? lookup(record.members, login) : undefined;
}

/** The user's effective role on the repository, or null when they have none (public repositories are still readable). */
export function roleOf(world: World, repo: RepoRecord, login: string): Role | null {
  if (same(repo.owner, login)) return "admin";
  const membership = orgMembership(world, repo.owner, login);
  if (membership === "admin") return "admin";
  let best: Role | null = membership ? "read" : null;
  const collaborator = lookup(repo.collaborators, login);
  if (collaborator && (!best || RANK[collaborator] > RANK[best])) best = collaborator;
  return best;
}

export function permissionsOf(role: Role | null, repo: RepoRecord): RepoPermissions {
  const rank = role ? RANK[role] : 0;
  return { admin: rank >= 5, maintain: rank >= 4, push: rank >= 3, triage: rank >= 2, pull: rank >= 1 || !repo.private };
}

export function installationCovers(inst: InstallationRecord, repo: RepoRecord): boolean {
  if (!same(repo.owner, inst.account)) return false;
  return inst.selection === "all" || inst.repoIds.includes(repo.id);
}

export function installationFor(world: World, repo: RepoRecord): InstallationRecord | undefined {
  return world.state.installations.find((inst) => installationCovers(inst, repo));
}

export function installationOfAccount(world: World, account: string): InstallationRecord | undefined {
  return world.state.installations.find((inst) => same(inst.account, account));
}

export function installationRepos(world: World, inst: InstallationRecord): RepoRecord[] {
  return world.state.repos.filter((r) => installationCovers(inst, r)).sort(byFullName);
}

export function byFullName(a: RepoRecord, b: RepoRecord): number {
  return fullName(a).toLowerCase().localeCompare(fullName(b).toLowerCase());
}

/**
 * OAuth app tokens are limited by scopes: private repositories need `repo`,
 * writing to public ones `public_repo` (or `repo`). GitHub App user tokens
 * have no scopes; the app's installations limit them instead.
 */
export function scopeAllows(caller: Extract<Caller, { kind: "user" }>, repo: RepoRecord, write: boolean): boolean {
  if (caller.viaApp) return true;
  return caller.scopes.includes("repo") || (!repo.private && (!write || caller.scopes.includes("public_repo")));
}

export function canRead(world: World, caller: Caller, repo: RepoRecord): boolean {
  if (!repo.private) return true;
  switch (caller.kind) {
    case "anonymous":
      return false;
    case "user":
      return roleOf(world, repo, caller.login) !== null && scopeAllows(caller, repo, false) && (!caller.viaApp || installationFor(world, repo) !== undefined);
    case "installation":
      return installationCovers(caller.installation, repo);
    case "app":
      return installationFor(world, repo) !== undefined;
  }
}

/** Creating issue comments: any reader may comment as a user (token scopes permitting); an installation needs the repository in scope. */
export function canComment(world: World, caller: Caller, repo: RepoRecord): boolean {
  if (caller.kind === "installation") return installationCovers(caller.installation, repo);
  if (caller.kind !== "user" || !canRead(world, caller, repo) || !scopeAllows(caller, repo, true)) return false;
  return !caller.viaApp || installationFor(world, repo) !== undefined;
}

/** Editing a comment: its author, or anyone with push access (as on GitHub); an installation with issues:write on the repository. */
export function canEditComment(world: World, caller: Caller, repo: RepoRecord, author: string): boolean {
  if (caller.kind === "installation") return installationCovers(caller.installation, repo);
  if (caller.kind !== "user" || !canComment(world, caller, repo)) return false;
  return same(caller.login, author) || permissionsOf(roleOf(world, repo, caller.login), repo).push;
}

export function userCanAccessInstallation(world: World, login: string, inst: InstallationRecord): boolean {
  return same(inst.account, login) || orgMembership(world, inst.account, login) !== undefined;
}

/** Accounts the user may install the app on: their own and organisations they own. */
export function administeredAccounts(world: World, login: string): string[] {
  const orgs = world.state.orgs.filter((o) => lookup(o.members, login) === "admin").map((o) => o.login);
  const user = world.user(login);
  return user ? [user.login, ...orgs] : orgs;
}

export function authorAssociation(world: World, repo: RepoRecord, login: string): string {
  if (world.isBot(login)) return "NONE";
  if (same(repo.owner, login)) return "OWNER";
  if (orgMembership(world, repo.owner, login)) return "MEMBER";
  if (lookup(repo.collaborators, login)) return "COLLABORATOR";
  const merged = world.issuesOf(repo.id).some((i) => i.pull?.merged && same(i.author, login));
  return merged ? "CONTRIBUTOR" : "NONE";
}
