/**
 * Plain web pages for the links the platform shows: profiles, repositories,
 * issues and pull requests (title, body, labels, state, comments), plus
 * generated avatars. Private repositories are a 404 unless the signed-in
 * demo user can see them; former names redirect, as on GitHub.
 */
import { Hono, type Context } from "hono";
import { html } from "hono/html";
import { roleOf } from "./access.ts";
import { labelChip, layout, type Html } from "./html.ts";
import { notFoundPage, sessionUser } from "./oauth.ts";
import { commentsOf } from "./shapes-issues.ts";
import { findLabel } from "./shapes-repos.ts";
import type { IssueRecord, RepoRecord } from "./state.ts";
import { fullName, type World } from "./world.ts";

function issueRow(repo: RepoRecord, i: IssueRecord): Html {
  return html`<tr><td>#${i.number}</td><td><a href="/${fullName(repo)}/${i.pull ? "pull" : "issues"}/${i.number}">${i.title}</a></td><td>${stateText(i)}</td><td>${labels(repo, i)}</td><td>${i.author}</td></tr>`;
}

function stateText(i: IssueRecord): string {
  if (i.pull?.merged) return "merged";
  return i.state === "closed" && i.stateReason === "not_planned" ? "closed (not planned)" : i.state;
}

function labels(repo: RepoRecord, i: IssueRecord): Html {
  return html`${i.labels.map((name) => labelChip(name, findLabel(repo, name)?.color ?? "ededed"))}`;
}

export function pageRoutes(world: World): Hono {
  const app = new Hono();

  app.get("/avatars/u/:id{[0-9]+}", (c) => {
    const id = Number(c.req.param("id"));
    const login = world.state.users.find((u) => u.id === id)?.login ?? world.state.orgs.find((o) => o.id === id)?.login ?? (id === world.botId ? world.config.app.slug : "?");
    const hue = (id * 47) % 360;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120" viewBox="0 0 120 120"><rect width="120" height="120" fill="hsl(${hue} 55% 45%)"/><text x="60" y="76" font-family="sans-serif" font-size="48" text-anchor="middle" fill="#fff">${login.slice(0, 2).toUpperCase()}</text></svg>`;
    return c.body(svg, 200, { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=3600" });
  });

  /** The repository, if the signed-in user may see it; a redirect for former names. */
  const visibleRepo = (c: Context): RepoRecord | Response | undefined => {
    const owner = c.req.param("owner") ?? "";
    const name = c.req.param("repo") ?? "";
    const found = world.findRepo(owner, name);
    const user = sessionUser(c, world);
    if (!found || (found.repo.private && !(user && roleOf(world, found.repo, user.login)))) return undefined;
    if (found.moved) return c.redirect(c.req.path.replace(`/${owner}/${name}`, `/${fullName(found.repo)}`), 301);
    return found.repo;
  };

  const issuePage = (c: Context, kind: "issues" | "pull") => {
    const repo = visibleRepo(c);
    if (repo instanceof Response) return repo;
    const issue = repo && world.issue(repo.id, Number(c.req.param("number")));
    if (!repo || !issue) return notFoundPage(c, world);
    // GitHub sends /issues/N of a pull request to /pull/N.
    if (kind === "issues" && issue.pull) return c.redirect(`/${fullName(repo)}/pull/${issue.number}`, 301);
    if (kind === "pull" && !issue.pull) return notFoundPage(c, world);
    const pull = issue.pull;
    const body = html`<p><a href="/${fullName(repo)}">${fullName(repo)}</a></p>
<h1>${issue.title} <span class="muted">#${issue.number}</span></h1>
<p><span class="state">${stateText(issue)}</span> · opened by ${issue.author} on ${issue.createdAt}${pull ? html` · ${pull.headOwner}:${pull.head} → ${pull.base}${pull.merged ? html` · merged by ${pull.mergedBy} (${pull.mergeCommitSha})` : ""}` : ""}</p>
<p>${labels(repo, issue)}</p>
<pre>${issue.body}</pre>
<h2>Comments</h2>
${commentsOf(world, issue).map((cm) => html`<article id="issuecomment-${cm.id}"><p><strong>${cm.author}</strong> <span class="muted">${cm.createdAt}</span></p><pre>${cm.body}</pre></article>`)}`;
    return c.html(layout(`${issue.title} · ${fullName(repo)}`, body, sessionUser(c, world)?.login));
  };

  app.get("/:owner/:repo/issues/:number{[0-9]+}", (c) => issuePage(c, "issues"));
  app.get("/:owner/:repo/pull/:number{[0-9]+}", (c) => issuePage(c, "pull"));

  app.get("/:owner/:repo", (c) => {
    const repo = visibleRepo(c);
    if (repo instanceof Response) return repo;
    if (!repo) return notFoundPage(c, world);
    const items = world.issuesOf(repo.id).sort((a, b) => b.number - a.number);
    const table = (rows: IssueRecord[]) =>
      html`<table><thead><tr><th>#</th><th>Title</th><th>State</th><th>Labels</th><th>Author</th></tr></thead><tbody>${rows.map((i) => issueRow(repo, i))}</tbody></table>`;
    const body = html`<h1>${fullName(repo)} <span class="muted">${repo.private ? "Private" : "Public"}</span></h1>
<p>${repo.description}</p><p class="muted">${repo.language} · ${repo.stars} stars · ${repo.forks} forks</p>
<h2>Issues</h2>${table(items.filter((i) => !i.pull))}
<h2>Pull requests</h2>${table(items.filter((i) => i.pull))}`;
    return c.html(layout(fullName(repo), body, sessionUser(c, world)?.login));
  });

  app.get("/:owner", (c) => {
    const login = c.req.param("owner");
    const account = world.user(login) ?? world.org(login);
    if (!account) return notFoundPage(c, world);
    const user = sessionUser(c, world);
    const repos = world.state.repos.filter((r) => r.owner === account.login && (!r.private || (user && roleOf(world, r, user.login))));
    const persona = "persona" in account ? html`<p class="muted">${account.persona}</p>` : "";
    const body = html`<h1>${account.name} <span class="muted">${account.login}</span></h1>${persona}
<h2>Repositories</h2><ul>${repos.map((r) => html`<li><a href="/${fullName(r)}">${fullName(r)}</a> — ${r.description}</li>`)}</ul>`;
    return c.html(layout(account.login, body, user?.login));
  });

  return app;
}
