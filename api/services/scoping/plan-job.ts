import { builtinPlanner } from "./builtin-planner.ts";
import { PlannerFailure, type PlannerFailureKind } from "./openai-planner.ts";
import { checkPlan, InvalidPlanError, type Plan, type Planner, type ScopingDocument } from "./plan.ts";

export interface PlanOutcome {
  plan: Plan;
  /** The planner whose plan this is. */
  planner: Planner["name"];
  /** Why the model's plan was not used (the built-in one is), for the page; null when it was. */
  fallback: string | null;
}

/**
 * Plans with the job's planner; when a model fails for good (answers badly
 * twice, leaves requirements out, refuses, does not answer in time), the
 * built-in planner's plan is used instead and the outcome says why. Passing
 * failures (a model server down, 429, 5xx) are thrown for the worker to
 * retry, unless `lastAttempt`.
 */
export async function planWithFallback(planner: Planner, document: ScopingDocument, options: { signal?: AbortSignal; lastAttempt?: boolean } = {}): Promise<PlanOutcome> {
  if (planner.name === "builtin") return { plan: checkPlan(await planner.plan(document, options.signal)), planner: "builtin", fallback: null };
  try {
    return { plan: checkPlan(await planner.plan(document, options.signal)), planner: planner.name, fallback: null };
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const permanent = err instanceof PlannerFailure || err instanceof InvalidPlanError || options.lastAttempt;
    if (!permanent) throw err;
    return { plan: checkPlan(await builtinPlanner.plan(document)), planner: "builtin", fallback: fallbackReason(err) };
  }
}

/** How a planner failed, from the error's type and kind (never its text). */
function failureKind(err: unknown): PlannerFailureKind | undefined {
  if (err instanceof PlannerFailure) return err.kind;
  if (err instanceof InvalidPlanError) return err.incomplete ? "incomplete" : "invalid";
  return undefined;
}

/** The owner's sentence for why the model's plan was not used (details stay in the log). */
export function fallbackReason(err: unknown): string {
  switch (failureKind(err)) {
    case "incomplete":
      return "The language model's plan left requirements out.";
    case "timeout":
      return "The language model did not answer in time.";
    case "invalid":
      return "The language model's plan was not valid.";
    case "refused":
      return "The language model refused the request.";
    default:
      return "The language model could not be reached.";
  }
}

/** What the owner reads on a job that failed for good (details stay in the log); jobs.ts shows only these. */
export const FAILED_JOB_TEXTS = {
  timeout: "The language model did not answer in time.",
  invalid: "The language model's plan was not valid.",
  other: "The plan could not be made.",
} as const;

export function failedJobText(err: unknown): string {
  const kind = failureKind(err);
  if (kind === "timeout") return FAILED_JOB_TEXTS.timeout;
  if (kind === "invalid" || kind === "incomplete") return FAILED_JOB_TEXTS.invalid;
  return FAILED_JOB_TEXTS.other;
}
