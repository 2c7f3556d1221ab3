import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { decimalToUnits, formatFull } from "../../lib/format.ts";
import { namedPhasesOf, type Complexity, type Plan } from "../../../lib/scoping.ts";
import { badgeClass, cardClass } from "../../lib/ui.ts";
import { Button } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";

const CreateIssues = lazy(() => import("./create-issues.tsx"));

type ScopedIssue = ApiResponse<"listScopedIssues">["issues"][number];

const COMPLEXITY_CLASS: Record<Complexity, string> = {
  Low: "border-emerald-500/40 bg-emerald-500/10 text-emerald-800 dark:text-emerald-300",
  Medium: "border-amber-500/40 bg-amber-500/10 text-amber-800 dark:text-amber-300",
  High: "border-red-500/40 bg-red-500/10 text-red-800 dark:text-red-300",
};

export function ComplexityBadge({ value }: { value: Complexity }) {
  return <span className={`${badgeClass} ${COMPLEXITY_CLASS[value]}`}>{value}</span>;
}

/**
 * A plan as a person reads it: what the project is, the order of work (tasks
 * grouped into phases: each needs only tasks of earlier phases), then every
 * task with its complexity, what it depends on (links to those tasks) and
 * its description. Pool managers can tick tasks and open them as issues.
 */
/** Which planner made the plan, in words for the page (issue 28). */
export function PlannerNote(props: { planner: string; fallback: string | null }) {
  if (props.planner !== "builtin") return <p className="mt-3 text-xs text-muted-foreground" data-planner="model">Planned by the configured language model.</p>;
  return (
    <p className="mt-3 rounded-lg border border-border bg-muted/40 px-3 py-2 text-xs text-muted-foreground" data-planner="builtin">
      {props.fallback && <span className="font-medium text-foreground" data-planner-fallback>{props.fallback} The built-in plan is shown instead. </span>}
      Built-in planner: reads the document's structure. A configured language model gives richer plans.{" "}
      <a href="/faq#technical" className="font-medium text-primary underline-offset-2 hover:underline">How to set one up</a>
    </p>
  );
}

export function PlanView(props: { jobId: string; plan: Plan; isPoolManager: boolean; planner: string; fallback: string | null }) {
  const { plan } = props;
  const named = useMemo(() => namedPhasesOf(plan), [plan]);
  const phases = useMemo(() => named.map((p) => p.ids), [named]);
  const byId = useMemo(() => new Map(plan.tasks.map((t) => [t.id, t])), [plan]);
  const [selected, setSelected] = useState<Set<number>>(() => new Set(plan.tasks.map((t) => t.id)));
  const [creating, setCreating] = useState(false);
  // Which tasks were opened as issues, read with the plan (issue 38: after a reload the plan no longer showed them).
  const [opened, setOpened] = useState<Map<number, ScopedIssue>>(new Map());
  const loadOpened = useCallback(() => {
    api(`/api/ai-scoping/results/${props.jobId}/issues`).then(
      ({ issues }) => setOpened(new Map(issues.filter((i) => i.issueNumber !== null).map((i) => [i.taskId, i]))),
      () => undefined,
    );
  }, [props.jobId]);
  useEffect(() => {
    if (props.isPoolManager) loadOpened();
  }, [loadOpened, props.isPoolManager]);
  const count = (c: Complexity) => plan.tasks.filter((t) => t.estimatedComplexity === c).length;
  const toggle = (id: number) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <div className="space-y-6" data-plan>
      <section className={`${cardClass} p-5 sm:p-6`} aria-labelledby="plan-title">
        <p className="text-xs font-semibold uppercase tracking-wide text-primary">Project plan</p>
        <h2 id="plan-title" className="mt-1 break-words text-2xl font-bold tracking-tight" data-plan-name>{plan.projectName}</h2>
        <p className="mt-2 max-w-prose text-sm leading-relaxed">{plan.summary}</p>
        <PlannerNote planner={props.planner} fallback={props.fallback} />
        <dl className="mt-4 flex flex-wrap gap-x-6 gap-y-2 text-sm">
          <div className="flex gap-1.5"><dt className="text-muted-foreground">Tasks</dt><dd className="font-semibold">{plan.tasks.length}</dd></div>
          <div className="flex gap-1.5"><dt className="text-muted-foreground">Phases</dt><dd className="font-semibold">{phases.length}</dd></div>
          <div className="flex items-center gap-1.5"><dt className="sr-only">Complexity</dt><dd className="flex gap-1.5"><ComplexityBadge value="High" /> {count("High")} <ComplexityBadge value="Medium" /> {count("Medium")} <ComplexityBadge value="Low" /> {count("Low")}</dd></div>
        </dl>
      </section>

      <section className={`${cardClass} p-5 sm:p-6`} aria-labelledby="order-title" data-order-of-work>
        <h3 id="order-title" className="text-lg font-semibold">Order of work</h3>
        <p className="mt-1 text-sm text-muted-foreground">
          {named[0]?.name ? "The phases are the document's milestones; a task needs only tasks of its own or earlier phases." : "Each phase needs only what earlier phases build; tasks within a phase can be worked on side by side."}
        </p>
        <ol className="mt-4 grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
          {phases.map((ids, index) => (
            <li key={index} className="rounded-lg border border-border bg-muted/30 p-3">
              <p className="text-xs font-semibold uppercase tracking-wide text-muted-foreground" data-phase-name>Phase {index + 1}{named[index]?.name ? `: ${named[index]!.name}` : ""}</p>
              <ul className="mt-2 space-y-1.5">
                {ids.map((id) => (
                  <li key={id}>
                    <a href={`#task-${id}`} className="flex items-start gap-2 rounded-md p-1 text-sm hover:bg-muted">
                      <span className="font-mono text-xs text-muted-foreground">#{id}</span>
                      <span className="min-w-0 flex-1">{byId.get(id)!.title}</span>
                      <ComplexityBadge value={byId.get(id)!.estimatedComplexity} />
                    </a>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="tasks-title" data-task-list>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h3 id="tasks-title" className="text-lg font-semibold">Tasks</h3>
          {props.isPoolManager && !creating && (
            <Button size="sm" onClick={() => setCreating(true)} data-open-create-issues>
              <Icon name="gitPullRequest" /> Create GitHub issues…
            </Button>
          )}
        </div>
        {props.isPoolManager && creating && (
          <Suspense fallback={<p className="mt-3 text-sm text-muted-foreground">Loading…</p>}>
            <CreateIssues jobId={props.jobId} plan={plan} selected={selected} onClose={() => setCreating(false)} onCreated={loadOpened} />
          </Suspense>
        )}
        <ol className="mt-3 space-y-3">
          {plan.tasks.map((task) => (
            <li key={task.id} id={`task-${task.id}`} className={`${cardClass} scroll-mt-24 p-4 sm:p-5`} data-task={task.id}>
              <div className="flex flex-wrap items-start gap-x-3 gap-y-2">
                {props.isPoolManager && creating && (
                  <input
                    type="checkbox"
                    className="mt-1 h-4 w-4 accent-[var(--color-primary)]"
                    checked={selected.has(task.id)}
                    onChange={() => toggle(task.id)}
                    aria-label={`Open task ${task.id} as an issue`}
                  />
                )}
                <h4 className="min-w-0 flex-1 font-semibold">
                  <span className="mr-1.5 font-mono text-sm text-muted-foreground">#{task.id}</span>
                  {task.title}
                </h4>
                <ComplexityBadge value={task.estimatedComplexity} />
              </div>
              {opened.get(task.id) && (
                <p className="mt-1 text-sm" data-task-issue={opened.get(task.id)!.issueNumber}>
                  <Icon name="check" className="mr-1 inline h-3.5 w-3.5 text-success" />
                  Opened as{" "}
                  {opened.get(task.id)!.issueUrl ? (
                    <a href={opened.get(task.id)!.issueUrl!} target="_blank" rel="noopener noreferrer" className="font-medium text-primary underline-offset-2 hover:underline">
                      issue #{opened.get(task.id)!.issueNumber}
                    </a>
                  ) : (
                    <span className="font-medium">issue #{opened.get(task.id)!.issueNumber}</span>
                  )}
                  {opened.get(task.id)!.bounty &&
                    ` with a bounty of ${formatFull(decimalToUnits(opened.get(task.id)!.bounty!.amount, opened.get(task.id)!.bounty!.currency) ?? 0n, opened.get(task.id)!.bounty!.currency)} ${opened.get(task.id)!.bounty!.currency}`}
                </p>
              )}
              {task.complexityReasons && task.complexityReasons.length > 0 && (
                <p className="mt-1 text-xs text-muted-foreground" data-complexity-reasons>
                  {task.estimatedComplexity}: {task.complexityReasons.join(", ")}
                </p>
              )}
              {task.dependencies.length > 0 && (
                <p className="mt-2 text-sm">
                  <span className="text-muted-foreground">Depends on </span>
                  {task.dependencies.map((id, i) => (
                    <span key={id}>
                      {i > 0 && ", "}
                      <a href={`#task-${id}`} className="font-medium text-primary underline-offset-2 hover:underline">#{id} {byId.get(id)?.title}</a>
                    </span>
                  ))}
                </p>
              )}
              <p className="mt-2 whitespace-pre-wrap break-words text-sm leading-relaxed text-muted-foreground">{task.description}</p>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
