import { z } from "zod";

/**
 * The one shape every plan has, whichever planner made it (spec section 3:
 * projectName, summary, tasks of id, title, description,
 * estimatedComplexity, dependencies). Checked once, after any planner.
 */
import { COMPLEXITIES, type Plan } from "../../../lib/scoping.ts";
export { COMPLEXITIES, phasesOf, type Plan, type PlanTask } from "../../../lib/scoping.ts";

export const PLAN_LIMITS = {
  tasks: 40,
  projectName: 120,
  summary: 1200,
  title: 120,
  description: 2000,
  dependencies: 10,
  reasons: 8,
  reason: 100,
  phase: 80,
} as const;

/** The shape alone: what a model is asked to produce (also its JSON schema). */
export const PlanShape = z
  .object({
    projectName: z.string().describe("Short name of the project the document describes"),
    summary: z.string().describe("Two to four sentences on what is to be built"),
    tasks: z
      .array(
        z
          .object({
            id: z.number().int().describe("1 for the first task, then 2, 3, ... in order"),
            title: z.string().describe("Imperative title of the task, fit for a GitHub issue"),
            description: z.string().describe("What to build and how to tell it is done (acceptance criteria)"),
            estimatedComplexity: z.enum(COMPLEXITIES),
            complexityReasons: z.array(z.string()).describe('What in the requirement makes it as complex as it is, a few words each ("external API (MedDesk)", "scheduled job", "GDPR")'),
            phase: z.string().describe("The document's milestone or release this task belongs to, as the document names it; empty when the document names none"),
            dependencies: z.array(z.number().int()).describe("ids of earlier tasks this one needs"),
          })
          .strict(),
      )
      .describe("The work, in an order it can be done"),
  })
  .strict();

/** A stored plan as the API answers it: plans made before a field existed lack it. */
export const PlanAnswerShape = PlanShape.extend({
  tasks: z.array(PlanShape.shape.tasks.element.extend({ complexityReasons: z.array(z.string()).optional(), phase: z.string().optional() }).strict()),
}).strict();

const text = (max: number) => z.string().trim().min(1).max(max);

/** The full check: sizes, ids 1..n in order, dependencies on existing earlier tasks only (so no cycles). */
export const PlanSchema = z
  .object({
    projectName: text(PLAN_LIMITS.projectName),
    summary: text(PLAN_LIMITS.summary),
    tasks: z
      .array(
        z
          .object({
            id: z.number().int().min(1),
            title: text(PLAN_LIMITS.title),
            description: text(PLAN_LIMITS.description),
            estimatedComplexity: z.enum(COMPLEXITIES),
            complexityReasons: z.array(text(PLAN_LIMITS.reason)).max(PLAN_LIMITS.reasons).optional(),
            phase: z.string().trim().max(PLAN_LIMITS.phase).optional(),
            dependencies: z.array(z.number().int().min(1)).max(PLAN_LIMITS.dependencies),
          })
          .strict(),
      )
      .min(1)
      .max(PLAN_LIMITS.tasks),
  })
  .strict()
  .superRefine((plan: Plan, ctx) => {
    plan.tasks.forEach((task, index) => {
      if (task.id !== index + 1) ctx.addIssue({ code: "custom", path: ["tasks", index, "id"], message: `Task ids must be 1..n in order; expected ${index + 1}` });
      if (new Set(task.dependencies).size !== task.dependencies.length)
        ctx.addIssue({ code: "custom", path: ["tasks", index, "dependencies"], message: "A dependency is listed twice" });
      for (const dep of task.dependencies)
        if (dep >= task.id) ctx.addIssue({ code: "custom", path: ["tasks", index, "dependencies"], message: `Task ${task.id} may only depend on earlier tasks, not ${dep}` });
    });
  });

/** Checks a planner's answer; throws InvalidPlanError with the reasons. */
export function checkPlan(candidate: unknown): Plan {
  const parsed = PlanSchema.safeParse(candidate);
  if (!parsed.success) throw new InvalidPlanError(parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`));
  return parsed.data;
}

export class InvalidPlanError extends Error {
  /** `incomplete`: the plan is well formed but leaves requirements of the document out. */
  constructor(
    readonly problems: string[],
    readonly incomplete = false,
  ) {
    super(`The plan is not valid: ${problems.join("; ")}`);
    this.name = "InvalidPlanError";
  }
}

/** A document handed to a planner. */
export interface ScopingDocument {
  fileName: string;
  /** Extracted text; Markdown where the format carried structure. */
  text: string;
}

/** Turns a document into a plan. Implementations may be slow (a model) or instant (the built-in). */
export interface Planner {
  readonly name: "builtin" | "openai";
  plan(document: ScopingDocument, signal?: AbortSignal): Promise<unknown>;
}
