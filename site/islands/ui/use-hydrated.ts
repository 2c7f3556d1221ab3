import { useEffect, useState } from "react";

/**
 * True after the first client render: server HTML and the first render must
 * agree. Buttons whose work needs the island's script stay disabled until
 * then, so a click before hydration is never silently lost.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
