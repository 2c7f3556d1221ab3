import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/**
 * False while React hydrates the server's HTML, true from then on: server
 * HTML and the first render must agree, and a component mounted after
 * hydration (a dialog opening) is true from its first render, so it can take
 * focus at once. (React reads the server snapshot only while hydrating.)
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}
