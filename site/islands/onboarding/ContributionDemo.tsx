import { useEffect, useMemo, useState } from "react";
import { Dialog } from "../ui/dialog.tsx";
import { Button, ButtonLink } from "../ui/button.tsx";
import { contributionDemoIssues, rupeesFor, type DemoIssue } from "../../lib/onboarding-demo.ts";
import { DemoNotice, StatusBadge, StepProgress, TypeBadge, useSimulatedSteps } from "./parts.tsx";

const rupees = new Intl.NumberFormat("en-IN", { style: "currency", currency: "INR", maximumFractionDigits: 0 });

/**
 * The contributor's Contribution Demo: three simulated funded issues; pick
 * one and watch a contribution go from claim to payment, one step every
 * 1.5 s. Earnings add up across the issues you complete.
 */
export function ContributionDemo(props: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const issues = useMemo(contributionDemoIssues, []);
  const [selected, setSelected] = useState<DemoIssue>(issues[0]!);
  const [paid, setPaid] = useState<number[]>([]);
  const run = useSimulatedSteps(selected.steps.length, () => setPaid((list) => (list.includes(selected.number) ? list : [...list, selected.number])));

  useEffect(() => {
    if (!props.open) return;
    setSelected(issues[0]!);
    setPaid([]);
    run.reset();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- start afresh each time it opens
  }, [props.open]);

  const earned = issues.filter((i) => paid.includes(i.number)).reduce((sum, i) => sum + (i.reward ?? 0), 0);
  const isPaid = paid.includes(selected.number);
  const choose = (issue: DemoIssue) => {
    if (run.running) return;
    setSelected(issue);
    run.reset();
  };

  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Contribution Demo"
      description="See how fixing a funded issue turns into a reward. These issues are simulated."
      className="sm:max-w-2xl"
    >
      <fieldset className="mt-5">
        <legend className="text-sm font-medium">Simulated issues</legend>
        <div className="mt-2 flex flex-col gap-2" role="radiogroup" aria-label="Simulated issues">
          {issues.map((issue) => {
            const checked = issue.number === selected.number;
            return (
              <button
                key={issue.number}
                type="button"
                role="radio"
                aria-checked={checked}
                disabled={run.running && !checked}
                onClick={() => choose(issue)}
                className={
                  "flex flex-col gap-2 rounded-xl border p-3 text-left transition-colors sm:flex-row sm:items-center sm:justify-between " +
                  (checked ? "border-primary bg-primary/5" : "border-border hover:bg-muted disabled:opacity-60")
                }
              >
                <span className="min-w-0">
                  <span className="block truncate text-sm font-medium">#{issue.number} {issue.title}</span>
                  <span className="mt-1 flex flex-wrap gap-1.5">
                    <TypeBadge type={issue.type} />
                    <StatusBadge issue={issue} />
                    {paid.includes(issue.number) && <span className="text-xs font-medium text-success">Paid</span>}
                  </span>
                </span>
                <span className="shrink-0 text-sm font-semibold tabular-nums">{issue.reward} ROXN</span>
              </button>
            );
          })}
        </div>
      </fieldset>

      <div className="mt-5 rounded-xl border border-border p-4">
        <StepProgress steps={selected.steps} done={run.done} running={run.running} label={`Contributing to #${selected.number}`} />
        <div aria-live="polite" className="mt-3 min-h-5 text-sm">
          {isPaid && !run.running && (
            <p className="font-medium text-success">
              Reward received: +{selected.reward} ROXN ({rupees.format(rupeesFor(selected.reward ?? 0))} test value)
            </p>
          )}
        </div>
      </div>

      <div className="mt-4 flex items-center justify-between rounded-xl bg-muted px-4 py-3 text-sm">
        <span className="text-muted-foreground">Demo earnings</span>
        <span className="font-semibold tabular-nums" data-demo-earnings>
          {earned} ROXN · {rupees.format(rupeesFor(earned))}
        </span>
      </div>
      <DemoNotice>Demo values: 3 rupees per ROXN. Nothing here is paid or recorded.</DemoNotice>

      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <ButtonLink href="/repos" variant="outline">Browse real bounties</ButtonLink>
        <Button onClick={run.start} disabled={run.running || isPaid}>
          {run.running ? "Contributing..." : isPaid ? "Reward paid" : "Start Contribution"}
        </Button>
      </div>
    </Dialog>
  );
}
