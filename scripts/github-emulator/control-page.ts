/**
 * /_emulator: one page to see the emulated world (users, repositories,
 * installations, issues, pull requests, recent deliveries) and to act on it
 * with small forms that post to the control endpoints.
 */
import { Hono } from "hono";
import { html } from "hono/html";
import { installationRepos } from "./access.ts";
import { labelChip, layout, type Html } from "./html.ts";
import { sessionUser } from "./oauth.ts";
import { findLabel } from "./shapes-repos.ts";
import type { IssueRecord, RepoRecord } from "./state.ts";
import type { Webhooks } from "./webhooks.ts";
import { fullName, type World } from "./world.ts";

function userSelect(world: World, name: string, label: string): Html {
  return html`<label>${label} <select name="${name}">${world.state.users.map((u) => html`<option value="${u.login}">${u.login}</option>`)}</select></label>`;
}

/** A one-button form posting `fields` to a control endpoint. */
function button(path: string, text: string, fields: Record<string, string | number>, extra: Html | string = ""): Html {
  return html`<form class="inline" method="post" action="/_emulator${path}">${Object.entries(fields).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}${extra}<button type="submit">${text}</button></form>`;
}

function issueActions(world: World, repo: RepoRecord, i: IssueRecord): Html {
  const ref = { repo: fullName(repo), number: i.number };
  const state =
    i.state === "open"
      ? i.pull
        ? html`${button("/pulls/merge", `Merge #${i.number}`, ref)}${button("/pulls/close", `Close #${i.number}`, ref)}`
        : html`${button("/issues/close", `Close #${i.number} as completed`, { ...ref, reason: "completed" })}${button("/issues/close", `Close #${i.number} as not planned`, { ...ref, reason: "not_planned" })}`
      : i.pull?.merged
        ? ""
        : button("/issues/reopen", `Reopen #${i.number}`, ref);
  return html`${state}
${button("/issues/label", "Add label", ref, html`<label>Label for #${i.number} <input name="label" size="10" required></label>`)}
${button("/comments", "Comment", ref, html`${userSelect(world, "author", "as")}<label>Comment on #${i.number} <input name="body" size="18" required></label>`)}`;
}

function repoSection(world: World, repo: RepoRecord): Html {
  const name = fullName(repo);
  const items = world.issuesOf(repo.id).sort((a, b) => a.number - b.number);
  const owners = [...world.state.users.map((u) => u.login), ...world.state.orgs.map((o) => o.login)].filter((l) => l !== repo.owner);
  return html`<section>
<h3><a href="/${name}">${name}</a> <span class="muted">(${repo.private ? "private" : "public"}, id ${repo.id})</span></h3>
${button("/repos/rename", "Rename", { repo: name }, html`<label>New name for ${name} <input name="name" size="14" required></label>`)}
${button("/repos/transfer", "Transfer", { repo: name }, html`<label>New owner of ${name} <select name="newOwner">${owners.map((o) => html`<option>${o}</option>`)}</select></label>`)}
${button("/repos/visibility", repo.private ? "Make public" : "Make private", { repo: name, visibility: repo.private ? "public" : "private" })}
${button("/issues", "Open issue", { repo: name }, html`${userSelect(world, "author", "as")}<label>Title <input name="title" required></label><label>Labels <input name="labels" size="12" placeholder="bug, bounty"></label>`)}
${button("/pulls", "Open pull request", { repo: name }, html`${userSelect(world, "author", "as")}<label>Title <input name="title" required></label><label>Body <input name="body" placeholder="Fixes #1"></label><label>Head branch <input name="head" size="12" required></label><label>Commit message <textarea name="commitMessage" rows="3" cols="40" placeholder="Fix #1&#10;&#10;Co-authored-by: Carol Private &lt;1003+carol@users.noreply.github.com&gt;"></textarea></label>`)}
<table><thead><tr><th>#</th><th>Title</th><th>State</th><th>Labels</th><th>Actions</th></tr></thead><tbody>
${items.map(
  (i) =>
    html`<tr><td>${i.pull ? "PR" : "Issue"} #${i.number}</td><td><a href="/${name}/${i.pull ? "pull" : "issues"}/${i.number}">${i.title}</a></td><td>${i.pull?.merged ? "merged" : i.state}${i.stateReason ? ` (${i.stateReason})` : ""}</td><td>${i.labels.map((l) => labelChip(l, findLabel(repo, l)?.color ?? "ededed"))}</td><td>${issueActions(world, repo, i)}</td></tr>`,
)}
</tbody></table>
</section>`;
}

export function controlPageRoutes(world: World, webhooks: Webhooks): Hono {
  const app = new Hono();
  app.get("/_emulator", (c) => {
    const recent = webhooks.deliveries.slice(-30).reverse();
    const body = html`<h1>GitHub emulator</h1>
<p>Web and OAuth at <code>${world.config.webUrl}</code>, REST at <code>${world.config.apiUrl}</code>, webhooks to <code>${world.config.webhook.url}</code>. <a href="/apps/${world.config.app.slug}/installations/new">Install the app</a></p>
<h2>Users</h2>
<table><thead><tr><th>Login</th><th>Name</th><th>Persona</th><th>Id</th></tr></thead><tbody>
${world.state.users.map((u) => html`<tr><td><a href="/${u.login}">${u.login}</a></td><td>${u.name}</td><td>${u.persona}</td><td>${u.id}</td></tr>`)}
</tbody></table>
<h2>Installations</h2>
<table><thead><tr><th>Id</th><th>Account</th><th>Repositories</th><th></th></tr></thead><tbody>
${world.state.installations.map(
  (i) =>
    html`<tr><td>${i.id}</td><td>${i.account}</td><td>${i.selection === "all" ? "all: " : ""}${installationRepos(world, i).map(fullName).join(", ")}</td><td>${button("/installations/delete", `Uninstall ${i.id}`, { installationId: i.id })}</td></tr>`,
)}
</tbody></table>
<h2>Repositories, issues and pull requests</h2>
${world.state.repos.map((r) => repoSection(world, r))}
<h2>Recent deliveries</h2>
<table><thead><tr><th>When</th><th>Event</th><th>Delivery</th><th>Status</th><th>Attempts</th><th></th></tr></thead><tbody>
${recent.map(
  (d) =>
    html`<tr><td>${d.createdAt}</td><td>${d.event}${d.action ? `.${d.action}` : ""}</td><td><code>${d.id}</code></td><td>${d.status === null ? "pending" : d.status === 0 ? `failed: ${d.response}` : d.status}</td><td>${d.attempts.length}</td><td>${button(`/deliveries/${d.id}/redeliver`, "Redeliver", {})}</td></tr>`,
)}
</tbody></table>`;
    return c.html(layout("Control panel", body, sessionUser(c, world)?.login));
  });
  return app;
}
