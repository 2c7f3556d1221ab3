import { createRoot, type Root } from "react-dom/client";
import { atom } from "nanostores";
import { useStore } from "../ui/use-store.ts";
import { markSeen } from "../../lib/onboarding-flags.ts";
import type { GuideName } from "../../lib/onboarding-flags.ts";
import { ContributionDemo } from "./ContributionDemo.tsx";
import { PoolManagerGuide } from "./PoolManagerGuide.tsx";
import { FundingDemo } from "./FundingDemo.tsx";

type ReactGuide = Exclude<GuideName, "welcome">;

/** The guide on screen, or null. One at a time; closing one marks it seen. */
const $openGuide = atom<ReactGuide | null>(null);
let root: Root | undefined;

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
  return (
    <>
      <ContributionDemo open={open === "contribution-demo"} onOpenChange={closer("contribution-demo")} />
      <PoolManagerGuide
        open={open === "pool-manager-guide"}
        onOpenChange={closer("pool-manager-guide")}
        onFundingDemo={() => switchTo("pool-manager-guide", "funding-demo")}
      />
      <FundingDemo open={open === "funding-demo"} onOpenChange={closer("funding-demo")} />
    </>
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
