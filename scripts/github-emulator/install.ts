/**
 * The GitHub App's install and configure pages: the signed-in user installs
 * the app on their account or an organisation they own, on all or selected
 * repositories. Saving creates or updates the installation, delivers its
 * webhooks, then sends the browser to the app's setup URL with
 * installation_id and setup_action, as GitHub does.
 */
import { Hono, type Context } from "hono";
import { html } from "hono/html";
import { ActionError } from "./actions.ts";
import { administeredAccounts, installationCovers, installationOfAccount } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { hiddenFields, layout, type Html } from "./html.ts";
import { notFoundPage, sessionUser } from "./oauth.ts";
import type { InstallationRecord } from "./state.ts";
import { fullName, type World } from "./world.ts";

function accountForm(world: World, account: string, state: string | undefined): Html {
  const { slug } = world.config.app;
  const installation = installationOfAccount(world, account);
  const repos = world.state.repos.filter((r) => r.owner.toLowerCase() === account.toLowerCase());
  const all = !installation || installation.selection === "all";
  return html`<section>
<h2>${account} <span class="muted">(${world.org(account) ? "Organization" : "User"})</span></h2>
<p>${installation ? html`Installed: installation ${installation.id}, ${installation.selection === "all" ? "all repositories" : "selected repositories"}. <a href="${`/settings/installations/${installation.id}`}">Configure</a>` : "Not installed."}</p>
<form method="post" action="/apps/${slug}/installations">
${hiddenFields({ account, state })}
<fieldset><legend>Repository access for ${account}</legend>
<label><input type="radio" name="repository_selection" value="all" ${all ? "checked" : ""}> All repositories</label><br>
<label><input type="radio" name="repository_selection" value="selected" ${all ? "" : "checked"}> Only select repositories</label>
<ul>${repos.map(
    (r) =>
      html`<li><label><input type="checkbox" name="repository_ids" value="${r.id}" ${installation && !all && installationCovers(installation, r) ? "checked" : ""}> ${fullName(r)}${r.private ? " (private)" : ""}</label></li>`,
  )}</ul>
</fieldset>
<button type="submit">${installation ? `Save ${account}` : `Install on ${account}`}</button>
</form>
</section>`;
}

export function installRoutes({ world, actions }: EmulatorContext): Hono {
  const app = new Hono();
  const { slug, setupUrl } = world.config.app;

  /** The signed-in user, or a redirect to the sign-in page that comes back here. */
  const signedIn = (c: Context) => {
    const user = sessionUser(c, world);
    if (user) return user;
    const here = new URL(c.req.url);
    return c.redirect(`/login?return_to=${encodeURIComponent(here.pathname + here.search)}`, 302);
  };

  app.get(`/apps/${slug}`, (c) =>
    c.html(layout(slug, html`<h1>${slug}</h1><p>Issuepool bounties for your issues.</p><p><a href="/apps/${slug}/installations/new">Install</a></p>`, sessionUser(c, world)?.login)),
  );

  app.get(`/apps/${slug}/installations/new`, (c) => {
    const user = signedIn(c);
    if (user instanceof Response) return user;
    const state = c.req.query("state");
    const body = html`<h1>Install ${slug}</h1><p>Where do you want to install ${slug}?</p>${administeredAccounts(world, user.login).map((a) => accountForm(world, a, state))}`;
    return c.html(layout(`Install ${slug}`, body, user.login));
  });

  app.post(`/apps/${slug}/installations`, async (c) => {
    const user = signedIn(c);
    if (user instanceof Response) return user;
    const form = await c.req.parseBody({ all: true });
    const account = String(form.account ?? "");
    if (!administeredAccounts(world, user.login).some((a) => a.toLowerCase() === account.toLowerCase())) return notFoundPage(c, world);
    const ids = ([] as unknown[]).concat(form.repository_ids ?? []).map(Number);
    const selection = form.repository_selection === "selected" ? "selected" : "all";
    try {
      const { value, deliveries } = actions.install({ account, selection, repoIds: ids, sender: user.login });
      await Promise.all(deliveries.map((d) => d.done));
      const target = new URL(setupUrl);
      target.searchParams.set("installation_id", String(value.installation.id));
      target.searchParams.set("setup_action", value.setupAction);
      if (typeof form.state === "string" && form.state) target.searchParams.set("state", form.state);
      return c.redirect(target.toString(), 302);
    } catch (err) {
      if (!(err instanceof ActionError)) throw err;
      return c.html(layout("Cannot install", html`<h1>Cannot install</h1><p>${err.message}</p><p><a href="/apps/${slug}/installations/new">Back</a></p>`, user.login), 422);
    }
  });

  /** GitHub's configure page lives under the user's or the organisation's settings. */
  const configure = (c: Context, installation: InstallationRecord | undefined) => {
    const user = signedIn(c);
    if (user instanceof Response) return user;
    if (!installation || !administeredAccounts(world, user.login).some((a) => a.toLowerCase() === installation.account.toLowerCase())) return notFoundPage(c, world);
    const body = html`<h1>Configure ${slug}</h1>${accountForm(world, installation.account, undefined)}
<form method="post" action="/settings/installations/${installation.id}/delete"><button type="submit">Uninstall ${slug} from ${installation.account}</button></form>`;
    return c.html(layout(`Configure ${slug}`, body, user.login));
  };
  const byId = (c: Context) => world.state.installations.find((i) => i.id === Number(c.req.param("id")));
  app.get("/settings/installations/:id{[0-9]+}", (c) => configure(c, byId(c)));
  app.get("/organizations/:org/settings/installations/:id{[0-9]+}", (c) => configure(c, byId(c)));

  app.post("/settings/installations/:id{[0-9]+}/delete", async (c) => {
    const user = signedIn(c);
    if (user instanceof Response) return user;
    const installation = byId(c);
    if (!installation || !administeredAccounts(world, user.login).some((a) => a.toLowerCase() === installation.account.toLowerCase())) return notFoundPage(c, world);
    const { deliveries } = actions.uninstall({ installation, sender: user.login });
    await Promise.all(deliveries.map((d) => d.done));
    return c.redirect(`/apps/${slug}/installations/new`, 303);
  });

  return app;
}
