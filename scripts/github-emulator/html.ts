/**
 * The page frame and the pieces the web pages share. Hono's `html` template
 * escapes every interpolated value, so fixture and user text is safe.
 */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { World } from "./world.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const STYLE = `
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1f2328; }
  header { background: #24292f; color: #fff; padding: .6rem 1rem; display: flex; gap: 1rem; align-items: center; }
  header a { color: #fff; }
  main { max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; }
  table { border-collapse: collapse; width: 100%; margin-bottom: 1.5rem; }
  th, td { border-bottom: 1px solid #d0d7de; padding: .35rem .5rem; text-align: left; vertical-align: top; }
  form.inline { display: inline-flex; gap: .25rem; align-items: center; margin: .1rem .25rem .1rem 0; flex-wrap: wrap; }
  button { cursor: pointer; }
  .users button { display: block; width: 100%; text-align: left; padding: .6rem; margin: .4rem 0; }
  .muted { color: #59636e; }
  .label { display: inline-block; border-radius: 1em; padding: 0 .5em; font-size: .85em; border: 1px solid #d0d7de; }
  .state { font-weight: 600; }
  pre { white-space: pre-wrap; background: #f6f8fa; padding: .75rem; }
`;

export function layout(title: string, body: Html, signedIn?: string): Html {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · GitHub emulator</title><style>${STYLE}</style></head>
<body>
<header><strong>GitHub emulator</strong><a href="/_emulator">Control panel</a><span>${signedIn ? html`Signed in as <strong>${signedIn}</strong> · <a href="/logout">Sign out</a>` : html`<a href="/login">Sign in</a>`}</span></header>
<main>${body}</main>
</body>
</html>`;
}

/** One submit button per demo user: login, name and persona, so a person (or a test) can pick by name. */
export function userButtons(world: World, name = "login"): Html {
  return html`<div class="users">${world.state.users.filter((u) => u.type !== "Bot").map(
    (u) => html`<button type="submit" name="${name}" value="${u.login}"><strong>${u.login}</strong> — ${u.name}<br><span class="muted">${u.persona}</span></button>`,
  )}</div>`;
}

/** Hidden inputs carrying request parameters through a form post. */
export function hiddenFields(params: Record<string, string | undefined>): Html {
  return html`${Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}`;
}

export function labelChip(name: string, color: string): Html {
  return html`<span class="label" style="background:#${color}33">${name}</span>`;
}
