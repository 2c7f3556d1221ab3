/**
 * The scoping plan's shape as the site and the API both read it (spec
 * section 3). The API checks it with zod (api/services/scoping/plan.ts).
 */
export const COMPLEXITIES = ["Low", "Medium", "High"] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

export interface PlanTask {
  id: number;
  title: string;
  description: string;
  estimatedComplexity: Complexity;
  /** Why the complexity is what it is ("external API (MedDesk)", "scheduled job"); plans made before it have none. */
  complexityReasons?: string[];
  /** The document's milestone or release this task belongs to; empty or absent when it names none. */
  phase?: string;
  dependencies: number[];
}

export interface Plan {
  projectName: string;
  summary: string;
  tasks: PlanTask[];
}

/** How often the page asks for a job's result (spec: 3 s). */
export const SCOPING_POLL_MS = 3000;

/**
 * The plan's tasks grouped into phases: phase 1 needs nothing, phase k needs
 * only tasks of earlier phases. The page shows it as the order of work.
 */
export function phasesOf(plan: Pick<Plan, "tasks">): number[][] {
  return namedPhasesOf(plan).map((p) => p.ids);
}

/**
 * The phases with their names when every task names one (the document's
 * milestones) and no task needs one of a later phase; else the layers of
 * the dependencies, unnamed.
 */
export function namedPhasesOf(plan: Pick<Plan, "tasks">): { name?: string; ids: number[] }[] {
  const names = plan.tasks.map((t) => t.phase?.trim() ?? "");
  if (plan.tasks.length && names.every(Boolean)) {
    const index = new Map<string, number>();
    for (const name of names) if (!index.has(name)) index.set(name, index.size);
    const of = new Map(plan.tasks.map((t, i) => [t.id, index.get(names[i]!)!]));
    if (plan.tasks.every((t) => t.dependencies.every((d) => (of.get(d) ?? 0) <= of.get(t.id)!))) {
      const named = [...index.keys()].map((name) => ({ name, ids: [] as number[] }));
      for (const t of plan.tasks) named[of.get(t.id)!]!.ids.push(t.id);
      return named;
    }
  }
  return layersOf(plan).map((ids) => ({ ids }));
}

function layersOf(plan: Pick<Plan, "tasks">): number[][] {
  const phase = new Map<number, number>();
  for (const task of plan.tasks) phase.set(task.id, 1 + Math.max(0, ...task.dependencies.map((d) => phase.get(d) ?? 0)));
  const phases: number[][] = [];
  for (const [id, p] of phase) (phases[p - 1] ??= []).push(id);
  return phases;
}
