import type { ClientDirective } from "astro";

/**
 * `client:session` hydrates an island only for signed-in visitors (the
 * `ip_signed_in` hint cookie, read into <html data-auth> by the head script),
 * so anonymous pages never download React. `client:session="toast"` also
 * hydrates when something asks for it with requestHydration("toast").
 */
const sessionDirective: ClientDirective = (load, options) => {
  let started = false;
  const hydrate = async () => {
    if (started) return;
    started = true;
    const run = await load();
    await run();
  };
  const root = document.documentElement;
  if (root.getAttribute("data-auth") === "yes") {
    void hydrate();
    return;
  }
  const need = typeof options.value === "string" && options.value ? options.value : "";
  if (!need) return;
  if (root.hasAttribute(`data-need-${need}`)) void hydrate();
  else window.addEventListener(`ip:need:${need}`, () => void hydrate(), { once: true });
};

export default sessionDirective;
