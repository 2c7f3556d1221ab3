import type { ClientDirective } from "astro";

/**
 * `client:session` hydrates an island only for signed-in visitors (the
 * `ip_signed_in` hint cookie, read into <html data-auth> by the head script),
 * so anonymous visitors of a page never download React for it.
 */
const sessionDirective: ClientDirective = async (load) => {
  if (document.documentElement.getAttribute("data-auth") !== "yes") return;
  const hydrate = await load();
  await hydrate();
};

export default sessionDirective;
