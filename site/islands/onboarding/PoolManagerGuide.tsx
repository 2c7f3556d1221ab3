import { useEffect, useState } from "react";
import { Dialog } from "../ui/dialog.tsx";
import { Button, ButtonLink } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import type { IconName } from "../../lib/icons.ts";

const STEPS: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "github",
    title: "Install the GitHub App",
    text: "On your profile, 'My GitHub Repositories (Admin)' lists the repositories you administer. 'Install App & Register' installs the Issuepool app on GitHub and brings you back.",
  },
  {
    icon: "check",
    title: "Register the repository",
    text: "Registration needs admin rights on the repository. Once registered, it appears under Explore with its own public page.",
  },
  {
    icon: "coins",
    title: "Fund the pool",
    text: "Add XDC or ROXN from your Issuepool wallet. A 0.5% platform fee is taken; keep at least 0.1 XDC for gas; a repository accepts at most 1000 XDC a day.",
  },
  {
    icon: "sparkles",
    title: "Put a bounty on issues",
    text: "Set Reward on an issue fixes its bounty: at least 1 XDC, or 0.0001 ROXN or USDC. A bounty cannot be changed once it is set.",
  },
  {
    icon: "wallet",
    title: "Merge, and the contributor is paid",
    text: "When you merge a pull request that fixes the issue, the bounty is paid from the pool to the contributor's wallet on-chain, once.",
  },
];

/** The pool manager's guide: five steps from installing the app to paying a bounty, then the Funding Demo. */
export function PoolManagerGuide(props: { open: boolean; onOpenChange: (open: boolean) => void; onFundingDemo: () => void }) {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (props.open) setIndex(0);
  }, [props.open]);
  const step = STEPS[index]!;
  const last = index === STEPS.length - 1;

  return (
    <Dialog open={props.open} onOpenChange={props.onOpenChange} title="Pool Manager Guide" description="Fund a repository and reward the people who fix its issues.">
      <div className="mt-5" aria-live="polite">
        <p className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Step {index + 1} of {STEPS.length}</p>
        <div className="mt-3 flex gap-4">
          <span className="flex h-11 w-11 shrink-0 items-center justify-center rounded-xl bg-primary/12 text-primary">
            <Icon name={step.icon} className="h-5 w-5" />
          </span>
          <div>
            <h3 className="font-semibold">{step.title}</h3>
            <p className="mt-1 text-sm text-muted-foreground">{step.text}</p>
          </div>
        </div>
      </div>
      <StepDots count={STEPS.length} current={index} className="mt-6" />
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:items-center sm:justify-between">
        <ButtonLink href="/faq#pool-manager" variant="link" size="sm" className="px-0">Read the full guide</ButtonLink>
        <div className="flex flex-col-reverse gap-2 sm:flex-row">
          {index > 0 && <Button variant="outline" onClick={() => setIndex(index - 1)}>Back</Button>}
          {last ? (
            <Button onClick={props.onFundingDemo}>Try the Funding Demo</Button>
          ) : (
            <Button onClick={() => setIndex(index + 1)}>Next</Button>
          )}
        </div>
      </div>
    </Dialog>
  );
}

/** Dots that show where a paged guide is (here, not in parts.tsx: the guide opens by itself on a first visit, without the demos' parts). */
function StepDots({ count, current, className = "" }: { count: number; current: number; className?: string }) {
  return (
    <div className={`flex justify-center gap-1.5 ${className}`} aria-hidden="true">
      {Array.from({ length: count }, (_, i) => (
        <span key={i} className={`h-1.5 rounded-full transition-all ${i === current ? "w-6 bg-primary" : "w-1.5 bg-border"}`} />
      ))}
    </div>
  );
}
