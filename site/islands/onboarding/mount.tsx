import { lazy, Suspense } from "react";
import { createRoot, type Root } from "react-dom/client";
import { atom } from "nanostores";
import { useStore } from "../ui/use-store.ts";
import { markSeen } from "../../lib/onboarding-flags.ts";
import type { GuideName } from "../../lib/onboarding-flags.ts";

/**
 * Each guide is loaded when it first opens: a first visit opens one of them by itself, and the page should not
 * carry the other two (issue 27: a pool manager's first /my-repos took 105.9 KB of JavaScript, over the budget).
 */
const ContributionDemo = lazy(() => import("./ContributionDemo.tsx").then((m) => ({ default: m.ContributionDemo })));
const PoolManagerGuide = lazy(() => import("./PoolManagerGuide.tsx").then((m) => ({ default: m.PoolManagerGuide })));
const FundingDemo = lazy(() => import("./FundingDemo.tsx").then((m) => ({ default: m.FundingDemo })));

type ReactGuide = Exclude<GuideName, "welcome">;

/** The guide on screen, or null. One at a time; closing one marks it seen. */
const $openGuide = atom<ReactGuide | null>(null);
let root: Root | undefined;
const opened = new Set<ReactGuide>();

function Guides() {
  const open = useStore($openGuide, null);
  const closer = (name: ReactGuide) => (isOpen: boolean) => {
    if (isOpen) return;
    markSeen(name);
    if ($openGuide.get() === name) $openGuide.set(null);
  };
  const switchTo = (from: ReactGuide, to: ReactGuide) => {
    markSeen(from);
    $openGuide.set(to);
  };
  // A guide once opened stays mounted (closed), as before: it keeps its state and can animate out.
  if (open) opened.add(open);
  return (
    <Suspense fallback={null}>
      {opened.has("contribution-demo") && <ContributionDemo open={open === "contribution-demo"} onOpenChange={closer("contribution-demo")} />}
      {opened.has("pool-manager-guide") && (
        <PoolManagerGuide
          open={open === "pool-manager-guide"}
          onOpenChange={closer("pool-manager-guide")}
          onFundingDemo={() => switchTo("pool-manager-guide", "funding-demo")}
        />
      )}
      {opened.has("funding-demo") && <FundingDemo open={open === "funding-demo"} onOpenChange={closer("funding-demo")} />}
    </Suspense>
  );
}

export function showGuide(name: ReactGuide): void {
  if (!root) {
    const host = document.createElement("div");
    host.id = "onboarding-guides";
    document.body.append(host);
    root = createRoot(host);
    root.render(<Guides />);
  }
  $openGuide.set(name);
}
