import { z } from "zod";
import { checkPlan, InvalidPlanError, PLAN_LIMITS, PlanShape, type Plan, type Planner, type ScopingDocument } from "./plan.ts";
import { canonicalId, idsIn, readDocument } from "./requirements-reader.ts";

/**
 * A planner on any OpenAI-compatible Chat Completions server (hosted models,
 * llama.cpp's server, Ollama, exo). The answer is constrained with
 * `response_format: json_schema` (strict) built from the plan's zod shape,
 * then checked like every plan; an invalid answer gets one repair request
 * with the problems named, then the job fails.
 */
export interface OpenAiPlannerOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/**
 * How the model failed for good: too slow, refused (the server or the model), its plan invalid twice (or leaving
 * requirements out), or its answer not a chat completion. The owner's sentence is chosen from this, never from the text.
 */
export type PlannerFailureKind = "timeout" | "refused" | "invalid" | "incomplete" | "unusable";

/** Errors the worker must not retry: the model answered, but not usefully, or too slowly. */
export class PlannerFailure extends Error {
  constructor(
    message: string,
    readonly kind: PlannerFailureKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PlannerFailure";
  }
}

/** The model may read this much of the document; longer texts are cut (the prompt says so). */
export const MAX_PROMPT_CHARS = 200_000;

const SYSTEM_PROMPT = [
  "You are a senior engineering lead scoping a software project from its requirements document.",
  "Split the work into concrete tasks a contributor could take as one GitHub issue each, in an order they can be done.",
  `Give at most ${PLAN_LIMITS.tasks} tasks. Task ids are 1, 2, 3, ... in order; dependencies list only ids of earlier tasks.`,
  "Every requirement of the document is in some task, with its identifier (FR-1, 3.2.1, US-3) when it has one; background, users and roles, out of scope, assumptions, glossary, milestones and acceptance sections are context, not tasks.",
  "estimatedComplexity is Low, Medium or High, and complexityReasons says why in a few words each (external API (name), payments, GDPR, offline sync, real-time, concurrency, scheduled job, performance target).",
  "phase is the document's milestone or release the task belongs to, or an empty string when it names none. Each description says what to build and how to tell it is done.",
  "Answer with JSON only, matching the given schema.",
].join(" ");

/** The JSON schema the model is held to (strict mode: no keywords OpenAI's strict subset refuses). */
export function planJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(PlanShape, { target: "draft-2020-12" }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }) })).min(1),
});

export function openAiPlanner(options: OpenAiPlannerOptions): Planner {
  const doFetch = options.fetch ?? fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const schema = planJsonSchema();

  async function complete(messages: { role: string; content: string }[], signal?: AbortSignal): Promise<string> {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    let response: Response;
    try {
      response = await doFetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
        body: JSON.stringify({
          model: options.model,
          messages,
          temperature: 0,
          response_format: { type: "json_schema", json_schema: { name: "scoping_plan", strict: true, schema } },
        }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      if (timeout.aborted) throw new PlannerFailure(`The model did not answer within ${Math.round(options.timeoutMs / 1000)} s`, "timeout", { cause: err });
      throw err; // unreachable or reset: the worker retries with backoff
    }
    const body = await response.text().catch(() => "");
    if (response.status === 429 || response.status >= 500) throw new Error(`The model server answered ${response.status}`);
    if (!response.ok) throw new PlannerFailure(`The model server refused the request (${response.status}): ${body.slice(0, 200)}`, "refused");
    let parsed: z.infer<typeof Completion>;
    try {
      parsed = Completion.parse(JSON.parse(body));
    } catch {
      throw new PlannerFailure("The model server's answer is not a chat completion", "unusable");
    }
    const message = parsed.choices[0]!.message;
    if (message.refusal) throw new PlannerFailure(`The model refused: ${message.refusal.slice(0, 200)}`, "refused");
    return message.content ?? "";
  }

  return {
    name: "openai",
    async plan(document: ScopingDocument, signal?: AbortSignal) {
      const text = document.text.length > MAX_PROMPT_CHARS ? `${document.text.slice(0, MAX_PROMPT_CHARS)}\n\n[The rest of the document is cut.]` : document.text;
      const messages = [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: `Requirements document "${document.fileName}":\n\n${text}` },
      ];
      const check = (answer: string) => {
        const plan = checkPlan(JSON.parse(answer));
        const left = leftOut(plan, document.text);
        if (left.length) throw new InvalidPlanError([`the plan leaves out ${left.length} requirement${left.length === 1 ? "" : "s"} of the document (${left.slice(0, 8).join(", ")}${left.length > 8 ? ", …" : ""})`], true);
        return plan;
      };
      let answer = await complete(messages, signal);
      try {
        return check(answer);
      } catch (first) {
        const problems = first instanceof InvalidPlanError ? first.problems.join("; ") : "the answer is not valid JSON";
        messages.push({ role: "assistant", content: answer.slice(0, 20_000) }, { role: "user", content: `That answer is not a valid plan (${problems}). Answer again with the whole plan as JSON that matches the schema.` });
        answer = await complete(messages, signal);
        try {
          return check(answer);
        } catch (second) {
          const incomplete = second instanceof InvalidPlanError && second.incomplete;
          throw new PlannerFailure(`The model's plan was invalid twice: ${second instanceof InvalidPlanError ? second.problems.join("; ") : "not JSON"}`, incomplete ? "incomplete" : "invalid");
        }
      }
    },
  };
}

/**
 * The identified requirements of the document (FR-1, 3.2.1) no task of the
 * plan names: a model that leaves work out has answered badly.
 */
export function leftOut(plan: Plan, text: string): string[] {
  const wanted = readDocument(text).requirements.flatMap((r) => (r.id ? [r.id] : []));
  if (!wanted.length) return [];
  const named = new Set(plan.tasks.flatMap((t) => idsIn(`${t.title} ${t.description}`.replace(/\b([A-Z]+-?\d+)[a-d]\b/g, "$1"))));
  return wanted.filter((id) => !named.has(canonicalId(id)));
}
