/** REST JSON for repositories and labels, as GitHub documents them. */
import type { RepoPermissions } from "./access.ts";
import { simpleUser, type Json } from "./shapes-accounts.ts";
import type { LabelRecord, RepoRecord } from "./state.ts";
import { fullName, nodeId, type World } from "./world.ts";

/** The hypermedia URL templates GitHub puts on every repository, relative to its API URL. */
const REPO_LINKS: Record<string, string> = {
  forks_url: "/forks",
  keys_url: "/keys{/key_id}",
  collaborators_url: "/collaborators{/collaborator}",
  teams_url: "/teams",
  hooks_url: "/hooks",
  issue_events_url: "/issues/events{/number}",
  events_url: "/events",
  assignees_url: "/assignees{/user}",
  branches_url: "/branches{/branch}",
  tags_url: "/tags",
  statuses_url: "/statuses/{sha}",
  languages_url: "/languages",
  stargazers_url: "/stargazers",
  contributors_url: "/contributors",
  subscribers_url: "/subscribers",
  commits_url: "/commits{/sha}",
  comments_url: "/comments{/number}",
  issue_comment_url: "/issues/comments{/number}",
  contents_url: "/contents/{+path}",
  compare_url: "/compare/{base}...{head}",
  merges_url: "/merges",
  issues_url: "/issues{/number}",
  pulls_url: "/pulls{/number}",
  milestones_url: "/milestones{/number}",
  labels_url: "/labels{/name}",
  releases_url: "/releases{/id}",
  deployments_url: "/deployments",
  // The rest of GitHub's URL templates (its description requires every one of them).
  archive_url: "/{archive_format}{/ref}",
  blobs_url: "/git/blobs{/sha}",
  downloads_url: "/downloads",
  git_commits_url: "/git/commits{/sha}",
  git_refs_url: "/git/refs{/sha}",
  git_tags_url: "/git/tags{/sha}",
  notifications_url: "/notifications{?since,all,participating}",
  subscription_url: "/subscription",
  trees_url: "/git/trees{/sha}",
};

export function repoApiUrl(world: World, repo: RepoRecord): string {
  return `${world.config.apiUrl}/repos/${fullName(repo)}`;
}

export function repoHtmlUrl(world: World, repo: RepoRecord): string {
  return `${world.config.webUrl}/${fullName(repo)}`;
}

function openIssuesCount(world: World, repo: RepoRecord): number {
  return world.issuesOf(repo.id).filter((i) => i.state === "open").length;
}

/** `permissions` is present only when the caller is a user or an installation, as on GitHub. */
export function repoJson(world: World, repo: RepoRecord, permissions?: RepoPermissions): Json {
  const api = repoApiUrl(world, repo);
  const html = repoHtmlUrl(world, repo);
  const links = Object.fromEntries(Object.entries(REPO_LINKS).map(([key, path]) => [key, api + path]));
  const open = openIssuesCount(world, repo);
  const host = new URL(world.config.webUrl).host;
  return {
    id: repo.id,
    node_id: nodeId("Repository", repo.id),
    name: repo.name,
    full_name: fullName(repo),
    private: repo.private,
    owner: simpleUser(world, repo.owner),
    html_url: html,
    description: repo.description,
    fork: false,
    url: api,
    ...links,
    created_at: repo.createdAt,
    updated_at: repo.updatedAt,
    pushed_at: repo.pushedAt,
    git_url: `git://${host}/${fullName(repo)}.git`,
    ssh_url: `git@${host}:${fullName(repo)}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    homepage: null,
    size: 1024,
    stargazers_count: repo.stars,
    watchers_count: repo.stars,
    language: repo.language,
    has_issues: true,
    has_projects: true,
    has_downloads: true,
    has_wiki: true,
    has_pages: false,
    has_discussions: false,
    forks_count: repo.forks,
    mirror_url: null,
    archived: false,
    disabled: false,
    open_issues_count: open,
    license: null,
    allow_forking: true,
    is_template: false,
    web_commit_signoff_required: false,
    topics: [],
    custom_properties: {},
    visibility: repo.private ? "private" : "public",
    forks: repo.forks,
    open_issues: open,
    watchers: repo.stars,
    network_count: repo.forks,
    subscribers_count: Math.max(1, Math.round(repo.stars / 10)),
    default_branch: repo.defaultBranch,
    ...(permissions ? { permissions } : {}),
  };
}

export function labelJson(world: World, repo: RepoRecord, label: LabelRecord): Json {
  return {
    id: label.id,
    node_id: nodeId("Label", label.id),
    url: `${repoApiUrl(world, repo)}/labels/${encodeURIComponent(label.name)}`,
    name: label.name,
    color: label.color,
    default: label.default,
    description: label.description,
  };
}

export function findLabel(repo: RepoRecord, name: string): LabelRecord | undefined {
  return repo.labels.find((l) => l.name.toLowerCase() === name.toLowerCase());
}
