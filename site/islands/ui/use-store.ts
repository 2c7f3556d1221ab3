import { useCallback, useSyncExternalStore } from "react";
import type { ReadableAtom } from "nanostores";
import type { Resource, ResourceState } from "../../lib/wallet-resource.ts";

/**
 * A nanostore read in an island, safe to hydrate. While React hydrates
 * server HTML it renders with `serverValue`, the value the server rendered
 * with (a server never holds browser data: no session, no balances); right
 * after, it renders with the store's live value. Reading the live value
 * during hydration made /wallet render a balance the header had already
 * loaded where the server had rendered a spinner: React error #418 on every
 * load (issue 16). `serverValue` must be the same object on every call.
 */
export function useStore<T>(store: ReadableAtom<T>, serverValue: T): T {
  const subscribe = useCallback((changed: () => void) => store.listen(changed), [store]);
  const live = useCallback(() => store.get(), [store]);
  return useSyncExternalStore(subscribe, live, () => serverValue);
}

/** A wallet resource's state, starting from its initial (server) state while hydrating. */
export function useResourceState<T>(resource: Resource<T>): ResourceState<T> {
  return useStore(resource.$state, resource.initial);
}
