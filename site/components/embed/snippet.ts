/**
 * The iframe code a maintainer pastes into their site for
 * /embed/{owner}/{repo}. Built in the browser from the address the visitor
 * sees (`location.origin`): the public page is cached for everyone, so a
 * host taken from the request (a forgeable Host header) must never end up
 * in it.
 */
export const EMBED_HEIGHT_PX = 360;

export function embedPath(fullName: string): string {
  return `/embed/${fullName.split("/").map(encodeURIComponent).join("/")}`;
}

export function embedSnippet(origin: string, fullName: string): string {
  const src = new URL(embedPath(fullName), origin).href;
  const title = `${fullName} bounties on Issuepool`;
  return `<iframe src="${attr(src)}" title="${attr(title)}" width="100%" height="${EMBED_HEIGHT_PX}" style="border:0;border-radius:12px" loading="lazy"></iframe>`;
}

const attr = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
