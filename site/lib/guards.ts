import type { AstroGlobal } from "astro";

type Viewer = NonNullable<Awaited<ReturnType<NonNullable<App.Locals["viewer"]>>>>;

/**
 * Route guards of spec sections 2 and 6, decided on the server before the
 * page renders (no flash, no client-side bounce). These pages are never
 * cached.
 */
export async function signedInOrRedirect(Astro: AstroGlobal): Promise<Viewer | Response> {
  Astro.response.headers.set("Cache-Control", "private, no-store");
  const viewer = await Astro.locals.viewer?.();
  if (viewer) return viewer;
  const returnTo = Astro.url.pathname + Astro.url.search;
  return Astro.redirect(`/auth?returnTo=${encodeURIComponent(returnTo)}`, 302);
}

/** /my-repos: pool managers only; everyone else, anonymous included, goes to /repos. */
export async function poolManagerOrRedirect(Astro: AstroGlobal): Promise<Viewer | Response> {
  Astro.response.headers.set("Cache-Control", "private, no-store");
  const viewer = await Astro.locals.viewer?.();
  if (viewer?.role === "poolmanager") return viewer;
  return Astro.redirect("/repos", 302);
}
