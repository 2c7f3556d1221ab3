/**
 * Mounts the Toaster (React + Radix Toast) the first time a toast is shown,
 * so pages that never toast never download React.
 */
let mounting: Promise<void> | undefined;

export function mountToaster(): Promise<void> {
  mounting ??= (async () => {
    const [{ createElement }, { createRoot }, { default: Toaster }] = await Promise.all([
      import("react"),
      import("react-dom/client"),
      import("../islands/Toaster.tsx"),
    ]);
    const host = document.createElement("div");
    host.id = "toaster";
    document.body.append(host);
    createRoot(host).render(createElement(Toaster));
  })();
  return mounting;
}
