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
  const phase = new Map<number, number>();
  for (const task of plan.tasks) phase.set(task.id, 1 + Math.max(0, ...task.dependencies.map((d) => phase.get(d) ?? 0)));
  const phases: number[][] = [];
  for (const [id, p] of phase) (phases[p - 1] ??= []).push(id);
  return phases;
}
