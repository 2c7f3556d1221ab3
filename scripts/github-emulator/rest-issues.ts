/**
 * Issues and pull requests: the issues list (pull requests mixed in, as on
 * GitHub), single issues, the pulls list and single pulls, and timelines.
 */
import type { Hono } from "hono";
import { canRead } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { notFound, paginate, type ApiContext, type ApiEnv } from "./http.ts";
import { commentsOf, issueJson, pullCommitJson, pullJson, timelineCommentJson, timelineEventJson } from "./shapes-issues.ts";
import type { IssueRecord } from "./state.ts";

const ISSUE_SORTS: Record<string, (i: IssueRecord, comments: number) => string | number> = {
  created: (i) => i.createdAt,
  updated: (i) => i.updatedAt,
  comments: (_, n) => n,
};

function stateFilter(c: ApiContext): (i: IssueRecord) => boolean {
  const state = c.req.query("state") ?? "open";
  return state === "all" ? () => true : (i) => i.state === (state === "closed" ? "closed" : "open");
}

export function registerIssueRoutes(repos: Hono<ApiEnv>, { world }: EmulatorContext): void {
  const issueParam = (c: ApiContext) => world.issue(c.get("repo").id, Number(c.req.param("number")));

  repos.get("/issues", (c) => {
    const repo = c.get("repo");
    const labels = (c.req.query("labels") ?? "").split(",").map((l) => l.trim().toLowerCase()).filter(Boolean);
    const since = c.req.query("since");
    const creator = c.req.query("creator")?.toLowerCase();
    const byState = stateFilter(c);
    const sortKey = ISSUE_SORTS[c.req.query("sort") ?? "created"] ?? ISSUE_SORTS.created!;
    const ascending = c.req.query("direction") === "asc";
    const items = world
      .issuesOf(repo.id)
      .filter(byState)
      .filter((i) => labels.every((l) => i.labels.some((name) => name.toLowerCase() === l)))
      .filter((i) => !since || Date.parse(i.updatedAt) >= Date.parse(since))
      .filter((i) => !creator || i.author.toLowerCase() === creator)
      .map((i) => ({ issue: i, key: sortKey(i, commentsOf(world, i).length) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.issue.number - b.issue.number) * (ascending ? 1 : -1))
      .map((entry) => entry.issue);
    return c.json(paginate(c, items).map((i) => issueJson(world, repo, i)));
  });

  repos.get("/issues/:number{[0-9]+}", (c) => {
    const issue = issueParam(c);
    return issue ? c.json(issueJson(world, c.get("repo"), issue, true)) : notFound(c);
  });

  repos.get("/pulls", (c) => {
    const repo = c.get("repo");
    const byState = stateFilter(c);
    const base = c.req.query("base");
    const pulls = world
      .issuesOf(repo.id)
      .filter((i) => i.pull && byState(i) && (!base || i.pull.base === base))
      .sort((a, b) => b.number - a.number);
    if (c.req.query("direction") === "asc") pulls.reverse();
    return c.json(paginate(c, pulls).map((i) => pullJson(world, repo, i)));
  });

  repos.get("/pulls/:number{[0-9]+}", (c) => {
    const issue = issueParam(c);
    return issue?.pull ? c.json(pullJson(world, c.get("repo"), issue, true)) : notFound(c);
  });

  /** GET /pulls/{n}/commits: the commits with git's author (name, e-mail) and the account GitHub matched, oldest first. */
  repos.get("/pulls/:number{[0-9]+}/commits", (c) => {
    const repo = c.get("repo");
    const issue = issueParam(c);
    if (!issue?.pull) return notFound(c);
    const commits = issue.pull.commits ?? [{ sha: issue.pull.headSha, message: issue.title, authorName: issue.author, authorEmail: world.user(issue.author)?.email ?? "", authorLogin: issue.author, date: issue.createdAt }];
    return c.json(paginate(c, commits).map((cm) => pullCommitJson(world, repo, cm)));
  });

  repos.get("/issues/:number{[0-9]+}/timeline", (c) => {
    const repo = c.get("repo");
    const issue = issueParam(c);
    if (!issue) return notFound(c);
    const caller = c.get("caller");
    const events = world.state.events
      .filter((e) => e.repoId === repo.id && e.number === issue.number)
      // A mention from a repository the caller cannot see stays hidden, as on GitHub.
      .filter((e) => !e.source || canRead(world, caller, world.repoById(e.source.repoId)!))
      .map((e) => ({ at: e.createdAt, order: e.id, json: timelineEventJson(world, repo, e) }));
    const comments = commentsOf(world, issue).map((cm) => ({ at: cm.createdAt, order: cm.id, json: timelineCommentJson(world, repo, issue, cm) }));
    const timeline = [...events, ...comments].sort((a, b) => a.at.localeCompare(b.at) || a.order - b.order);
    return c.json(paginate(c, timeline).map((t) => t.json));
  });
}
