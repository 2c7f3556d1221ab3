import { useCallback, useEffect, useRef, useState } from "react";
import { badgeClass } from "../../lib/ui.ts";
import { DEMO_STEP_MS, demoStatus, type DemoIssue, type DemoIssueType } from "../../lib/onboarding-demo.ts";
import { Icon } from "../ui/icon.tsx";

/**
 * A simulated run of steps, one every 1.5 s (spec section 9, "Demo"):
 * `done` counts the finished steps; `running` while it advances. Stops when
 * the component goes away.
 */
export function useSimulatedSteps(count: number, onFinished?: () => void) {
  const [done, setDone] = useState(0);
  const [running, setRunning] = useState(false);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  const stop = useCallback(() => {
    clearInterval(timer.current);
    timer.current = undefined;
    setRunning(false);
  }, []);
  const start = useCallback(() => {
    clearInterval(timer.current);
    setDone(0);
    setRunning(true);
    let step = 0;
    timer.current = setInterval(() => {
      step += 1;
      setDone(step);
      if (step >= count) {
        clearInterval(timer.current);
        timer.current = undefined;
        setRunning(false);
        finished.current?.();
      }
    }, DEMO_STEP_MS);
  }, [count]);
  const reset = useCallback(() => {
    stop();
    setDone(0);
  }, [stop]);
  useEffect(() => () => clearInterval(timer.current), []);
  return { done, running, start, reset };
}

/** The steps of a simulated run, ticked off as they finish, with a progress bar. */
export function StepProgress({ steps, done, running, label }: { steps: string[]; done: number; running: boolean; label: string }) {
  const percent = Math.round((done / steps.length) * 100);
  return (
    <div>
      <div className="flex items-center justify-between text-xs text-muted-foreground">
        <span>{label}</span>
        <span aria-hidden="true">Step {Math.min(done + (running ? 1 : 0), steps.length) || 1} of {steps.length}</span>
      </div>
      <div
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={steps.length}
        aria-valuenow={done}
        aria-valuetext={`${done} of ${steps.length} steps done`}
        className="mt-1.5 h-2 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full rounded-full bg-primary transition-[width] duration-500" style={{ width: `${percent}%` }} />
      </div>
      <ol className="mt-3 flex flex-col gap-2">
        {steps.map((step, i) => {
          const state = i < done ? "done" : i === done && running ? "active" : "todo";
          return (
            <li key={step} className="flex items-center gap-2 text-sm" data-step-state={state}>
              <span
                className={
                  "flex h-5 w-5 shrink-0 items-center justify-center rounded-full border text-[10px] font-semibold " +
                  (state === "done" ? "border-success bg-success text-white" : state === "active" ? "animate-pulse border-primary text-primary" : "border-border text-muted-foreground")
                }
              >
                {state === "done" ? <Icon name="check" className="h-3 w-3" /> : i + 1}
              </span>
              <span className={state === "todo" ? "text-muted-foreground" : ""}>{step}</span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

const TYPE_LABEL: Record<DemoIssueType, string> = { "minor-bug": "Minor bug", "major-bug": "Major bug", feature: "Feature" };
const TYPE_CLASS: Record<DemoIssueType, string> = {
  "minor-bug": "border-warning/40 bg-warning/10",
  "major-bug": "border-destructive/30 bg-destructive/10 text-destructive",
  feature: "border-primary/30 bg-primary/10 text-primary",
};

export function TypeBadge({ type }: { type: DemoIssueType }) {
  return <span className={`${badgeClass} ${TYPE_CLASS[type]}`}>{TYPE_LABEL[type]}</span>;
}

export function StatusBadge({ issue }: { issue: Pick<DemoIssue, "reward"> }) {
  const status = demoStatus(issue);
  return (
    <span className={`${badgeClass} ${status === "funded" ? "border-success/30 bg-success/10 text-success" : "border-border text-muted-foreground"}`}>
      {status === "funded" ? "Funded" : "Open"}
    </span>
  );
}

/** Marks a demo so nobody mistakes its numbers for real ones. */
export function DemoNotice({ children }: { children: React.ReactNode }) {
  return (
    <p className="mt-4 flex items-start gap-2 rounded-lg border border-primary/25 bg-primary/5 px-3 py-2 text-xs text-muted-foreground">
      <Icon name="alert" className="mt-0.5 h-3.5 w-3.5 shrink-0 text-primary" />
      <span>{children}</span>
    </p>
  );
}
