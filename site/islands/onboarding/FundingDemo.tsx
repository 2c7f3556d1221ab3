import { useEffect, useState } from "react";
import { Dialog } from "../ui/dialog.tsx";
import { Button } from "../ui/button.tsx";
import { inputClass } from "../../lib/ui.ts";
import {
  assignDemoReward,
  DEMO_STEP_MS,
  DEMO_WALLET_XDC,
  demoFunding,
  demoFundingMax,
  demoFundingProblem,
  fundingDemoIssues,
  suggestedReward,
  type DemoIssue,
} from "../../lib/onboarding-demo.ts";
import { DemoNotice, StatusBadge, StepProgress, TypeBadge, useSimulatedSteps } from "./parts.tsx";

const FUND_STEPS = ["Sign the funding transaction", "Wait for the block to be final", "Pool funded"];
const xdc = (n: number) => n.toLocaleString("en-US", { minimumFractionDigits: 4, maximumFractionDigits: 4 });

/**
 * The pool manager's Funding Demo: a demo wallet of 2000 XDC funds a
 * simulated repository (at most min(balance, 1000), the 0.5 % fee shown),
 * then rewards are assigned to its issues, which turn from open to funded.
 */
export function FundingDemo(props: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const [balance, setBalance] = useState(DEMO_WALLET_XDC);
  const [pool, setPool] = useState(0);
  const [amount, setAmount] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [issues, setIssues] = useState<DemoIssue[]>(fundingDemoIssues);
  const [assigning, setAssigning] = useState<number | null>(null);
  const [phase, setPhase] = useState<"fund" | "assign">("fund");
  const funding = useSimulatedSteps(FUND_STEPS.length, () => setPhase("assign"));

  useEffect(() => {
    if (!props.open) return;
    setBalance(DEMO_WALLET_XDC);
    setPool(0);
    setAmount("");
    setProblem(null);
    setIssues(fundingDemoIssues());
    setAssigning(null);
    setPhase("fund");
    funding.reset();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- start afresh each time it opens
  }, [props.open]);

  const value = Number(amount);
  const breakdown = Number.isFinite(value) && value > 0 ? demoFunding(value) : null;

  const fund = () => {
    const why = demoFundingProblem(value, balance);
    setProblem(why);
    if (why) return;
    const { net } = demoFunding(value);
    setBalance((b) => Math.round((b - value) * 10_000) / 10_000);
    setPool((p) => Math.round((p + net) * 10_000) / 10_000);
    funding.start();
  };

  const assign = (issue: DemoIssue) => {
    const next = assignDemoReward(issues, issue.number, suggestedReward(issue.type), pool);
    if (!next) {
      setProblem(`The pool holds ${xdc(pool)} XDC: not enough for this reward.`);
      return;
    }
    setProblem(null);
    setAssigning(issue.number);
    setTimeout(() => {
      setIssues(next.issues);
      setPool(next.pool);
      setAssigning(null);
    }, DEMO_STEP_MS);
  };

  const funded = issues.filter((i) => i.reward !== null).length;

  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title="Funding Demo"
      description="Fund a simulated repository, then put rewards on its issues."
      className="sm:max-w-2xl"
    >
      <dl className="mt-5 grid grid-cols-2 gap-3">
        <div className="rounded-xl border border-border p-3">
          <dt className="text-xs text-muted-foreground">Demo wallet</dt>
          <dd className="mt-1 font-semibold tabular-nums" data-demo-balance>{xdc(balance)} XDC</dd>
        </div>
        <div className="rounded-xl border border-border p-3">
          <dt className="text-xs text-muted-foreground">Repository pool</dt>
          <dd className="mt-1 font-semibold tabular-nums" data-demo-pool>{xdc(pool)} XDC</dd>
        </div>
      </dl>

      {phase === "fund" ? (
        <section className="mt-5" aria-labelledby="demo-fund-title">
          <h3 id="demo-fund-title" className="font-semibold">1. Fund the repository</h3>
          {funding.running || funding.done > 0 ? (
            <div className="mt-3">
              <StepProgress steps={FUND_STEPS} done={funding.done} running={funding.running} label="Funding the pool" />
            </div>
          ) : (
            <form
              className="mt-3"
              noValidate
              onSubmit={(event) => {
                event.preventDefault();
                fund();
              }}
            >
              <label htmlFor="demo-amount" className="text-sm font-medium">Amount (XDC)</label>
              <div className="mt-1.5 flex gap-2">
                <input
                  id="demo-amount"
                  type="number"
                  inputMode="decimal"
                  min="1.01"
                  step="0.01"
                  placeholder="100"
                  value={amount}
                  onChange={(e) => {
                    setAmount(e.target.value);
                    setProblem(null);
                  }}
                  aria-invalid={problem ? true : undefined}
                  aria-describedby={problem ? "demo-problem" : "demo-cap"}
                  className={inputClass}
                />
                <Button variant="outline" onClick={() => setAmount(String(demoFundingMax(balance)))}>Max</Button>
                <Button type="submit" disabled={!amount}>Fund Repository</Button>
              </div>
              <p id="demo-cap" className="mt-1.5 text-xs text-muted-foreground">At most {xdc(demoFundingMax(balance))} XDC: your balance, capped by the 1000 XDC daily limit.</p>
              {breakdown && (
                <dl className="mt-3 grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm">
                  <dt className="text-muted-foreground">Platform fee (0.5%)</dt>
                  <dd className="text-right tabular-nums">{xdc(breakdown.fee)} XDC</dd>
                  <dt className="text-muted-foreground">Added to the pool</dt>
                  <dd className="text-right font-medium tabular-nums">{xdc(breakdown.net)} XDC</dd>
                </dl>
              )}
            </form>
          )}
        </section>
      ) : (
        <section className="mt-5" aria-labelledby="demo-assign-title">
          <h3 id="demo-assign-title" className="font-semibold">2. Assign rewards</h3>
          <ul className="mt-3 flex flex-col gap-2">
            {issues.map((issue) => (
              <li key={issue.number} className="flex flex-col gap-2 rounded-xl border border-border p-3 sm:flex-row sm:items-center sm:justify-between">
                <div className="min-w-0">
                  <p className="truncate text-sm font-medium">#{issue.number} {issue.title}</p>
                  <div className="mt-1 flex flex-wrap gap-1.5">
                    <TypeBadge type={issue.type} />
                    <StatusBadge issue={issue} />
                  </div>
                </div>
                {issue.reward !== null ? (
                  <span className="shrink-0 text-sm font-semibold tabular-nums">{issue.reward} XDC</span>
                ) : (
                  <Button size="sm" disabled={assigning !== null} onClick={() => assign(issue)}>
                    {assigning === issue.number ? "Setting Bounty..." : `Set ${suggestedReward(issue.type)} XDC Reward`}
                  </Button>
                )}
              </li>
            ))}
          </ul>
          <p aria-live="polite" className="mt-3 text-sm text-muted-foreground">
            {funded === 0 ? "Rewards come out of the pool; an issue is funded once its reward is set." : `${funded} of ${issues.length} issues funded.`}
          </p>
        </section>
      )}
      {problem && <p id="demo-problem" role="alert" className="mt-3 text-sm text-destructive">{problem}</p>}
      <DemoNotice>A simulation: the wallet, the pool and the issues are not real, and nothing is sent.</DemoNotice>

      <div className="mt-5 flex justify-end">
        <Button variant={phase === "assign" && funded > 0 ? "default" : "outline"} onClick={() => props.onOpenChange(false)}>
          {phase === "assign" && funded > 0 ? "Finish Demo" : "Close Demo"}
        </Button>
      </div>
    </Dialog>
  );
}
