import { builtinPlanner } from "./builtin-planner.ts";
import { PlannerFailure } from "./openai-planner.ts";
import { checkPlan, type Plan, type Planner, type ScopingDocument } from "./plan.ts";

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
    const permanent = err instanceof PlannerFailure || (err as Error).name === "InvalidPlanError" || options.lastAttempt;
    if (!permanent) throw err;
    return { plan: checkPlan(await builtinPlanner.plan(document)), planner: "builtin", fallback: fallbackReason(err as Error) };
  }
}

/** The owner's sentence for why the model's plan was not used (details stay in the log). */
export function fallbackReason(err: Error): string {
  const m = err.message;
  if (/leaves out/.test(m)) return "The language model's plan left requirements out.";
  if (/did not answer within/.test(m)) return "The language model did not answer in time.";
  if (/invalid twice|not a valid plan|not valid/.test(m)) return "The language model's plan was not valid.";
  if (/refused/.test(m)) return "The language model refused the request.";
  return "The language model could not be reached.";
}
