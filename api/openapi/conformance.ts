import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { apiDocument } from "./document.ts";
import { BREAKS_DOCUMENT_LOG } from "./broken-answers.ts";

/**
 * Checks answers against the API document: the integration suite runs every
 * JSON response of `/api/*` through `checkResponse` (testing/context.ts wraps
 * the app's fetch), so a field the code answers differently from its
 * declaration fails the test that received it. Not used in production: the
 * server never validates its own answers (that would cost every request).
 */

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>; "x-error-codes"?: string[] };
type Document = { paths: Record<string, Record<string, Operation>>; components?: unknown };

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  params: number;
  operation: Operation;
}

export interface Conformance {
  /** The problems of one answer, in words (empty when it matches). */
  problems(method: string, path: string, status: number, body: unknown): string[];
  /** The document's path template for a request path, if any. */
  match(method: string, path: string): Route | undefined;
}

/**
 * The document's schemas as the tests read them: every object that lists its
 * properties is closed (`unevaluatedProperties: false`), so a field the code
 * answers without declaring it fails the test too, not only a declared field
 * answered wrongly. Closed where an object is used, not inside an `allOf`
 * (whose members each see only part of the object; the `allOf` itself is
 * closed, and draft 2020-12's unevaluatedProperties sees what its members
 * and `$ref`s evaluated). The published document stays open: clients must
 * ignore fields they do not know, so adding one is not a breaking change.
 */
function closedObjects<T>(schema: T): T {
  const close = (node: unknown, partOfAllOf: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => close(n, false));
    if (!node || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "allOf" && Array.isArray(value)) out[key] = value.map((member) => close(member, true));
      else if (key === "properties" && value && typeof value === "object") {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, close(property, false)]));
      } else out[key] = close(value, false);
    }
    const objectLike = "properties" in out || "allOf" in out || ("$ref" in out && String(out.$ref).startsWith("#/components/schemas/"));
    if (objectLike && !partOfAllOf && !("additionalProperties" in out) && !("unevaluatedProperties" in out)) out.unevaluatedProperties = false;
    return out;
  };
  return close(schema, false) as T;
}

export function conformanceTo(document: Document): Conformance {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const routes: Route[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    const params = (template.match(/\{/g) ?? []).length;
    for (const [method, operation] of Object.entries(methods)) routes.push({ method: method.toUpperCase(), template, pattern, params, operation });
  }
  // A literal segment wins over a parameter (/api/repos/details before /api/repos/{repoId}).
  routes.sort((a, b) => a.params - b.params);
  const compiled = new Map<unknown, ValidateFunction>();
  // Component definitions are closed where they are used (a $ref outside an allOf), not where they are defined:
  // inside each definition objects are closed, its own root stays open.
  const definitions = (document.components as { schemas?: Record<string, Record<string, unknown>> } | undefined)?.schemas ?? {};
  const components = {
    ...(document.components as object),
    schemas: Object.fromEntries(
      Object.entries(definitions).map(([name, definition]) => {
        const closed = closedObjects(definition) as Record<string, unknown>;
        if (!("unevaluatedProperties" in definition)) delete closed.unevaluatedProperties;
        return [name, closed];
      }),
    ),
  };
  const validatorOf = (schema: unknown) => {
    let validate = compiled.get(schema);
    if (!validate) {
      // References point at #/components/...: compile the schema with the document's components beside it.
      validate = ajv.compile({ ...(closedObjects(schema) as object), components });
      compiled.set(schema, validate);
    }
    return validate;
  };
  const match = (method: string, path: string) => {
    const wanted = method === "HEAD" ? "GET" : method;
    return routes.find((r) => r.method === wanted && r.pattern.test(path));
  };
  const errorSchema = () => {
    for (const methods of Object.values(document.paths)) for (const op of Object.values(methods)) {
      const schema = op.responses?.default?.content?.["application/json"]?.schema;
      if (schema) return schema;
    }
    throw new Error("the document declares no error response");
  };
  return {
    match,
    problems(method, path, status, body) {
      const route = match(method, path);
      // Unrouted paths answer errors only, in the shared shape (the 404 of errors.ts noApiEndpoint; a 413 or 403 of the
      // middleware that runs before routing).
      const declared = route
        ? (route.operation.responses?.[String(status)] ?? (status >= 400 ? route.operation.responses?.default : undefined))
        : status >= 400
          ? { content: { "application/json": { schema: errorSchema() } } }
          : undefined;
      const where = `${method} ${path} → ${status}${route ? ` (${route.method} ${route.template})` : ""}`;
      if (!declared && !route) return [`${where}: no operation in the API document answers this path`];
      const schema = declared?.content?.["application/json"]?.schema;
      if (!schema) return [`${where}: the API document declares no JSON response for status ${status}`];
      const validate = validatorOf(schema);
      if (validate(body)) {
        // An error answer carries a code its operation documents (x-error-codes, api/openapi/declare.ts).
        const code = status >= 400 && body && typeof body === "object" ? (body as { code?: unknown }).code : undefined;
        const documented = route?.operation["x-error-codes"];
        if (typeof code === "string" && documented && !documented.includes(code)) {
          return [`${where}: code "${code}" is not among the operation's x-error-codes (${documented.join(", ")}): add it to the declaration's errors`];
        }
        return [];
      }
      const field = (params: Record<string, unknown>) => params.additionalProperty ?? params.unevaluatedProperty;
      return (validate.errors ?? []).map((e) => `${where}: ${e.instancePath || "(body)"} ${e.message}${field(e.params) !== undefined ? ` (${String(field(e.params))})` : ""}`);
    },
  };
}

let shared: Conformance | undefined;
/** The checker for this build's document. */
export function apiConformance(): Conformance {
  return (shared ??= conformanceTo(apiDocument() as unknown as Document));
}

export class ResponseBreaksApiDocument extends Error {
  override name = "ResponseBreaksApiDocument";
}

/**
 * Wraps a fetch handler: every JSON answer under /api is checked against the
 * document, and one that breaks it rejects the call (the test that made it
 * fails, naming the field).
 */
export function checkedFetch<F extends (request: Request, ...rest: never[]) => Response | Promise<Response>>(fetch: F, conformance = apiConformance()): F {
  return (async (request: Request, ...rest: never[]) => {
    const response = await fetch(request, ...rest);
    const problem = await answerProblem(request, response, conformance);
    if (problem) throw new ResponseBreaksApiDocument(problem);
    return response;
  }) as F;
}

/** What is wrong with one answer against the document, in words; undefined when it matches or is not a JSON answer under /api. */
async function answerProblem(request: Request, response: Response, conformance: Conformance): Promise<string | undefined> {
  const path = new URL(request.url).pathname;
  const type = response.headers.get("content-type") ?? "";
  if (!path.startsWith("/api/") || !type.includes("application/json") || request.method === "HEAD" || response.status === 304) return undefined;
  // Cached public reads leave gzipped (response-cache.ts); a browser or fetch would inflate them.
  const raw = new Uint8Array(await response.clone().arrayBuffer());
  const text = new TextDecoder().decode(/\bgzip\b/.test(response.headers.get("content-encoding") ?? "") ? Bun.gunzipSync(raw) : raw);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `${request.method} ${path} → ${response.status}: the body is not JSON although it says so`;
  }
  const problems = conformance.problems(request.method, path, response.status, body);
  if (problems.length) return `The answer breaks the API document (api/openapi/):\n  ${problems.join("\n  ")}\n  body: ${text.slice(0, 500)}`;
  return undefined;
}

/**
 * For a server in its own process: checks its answers like `checkedFetch`,
 * but logs a mismatch (error level, BREAKS_DOCUMENT_LOG) and sends the
 * answer on unchanged, since no test runs in that process to fail. The test
 * harness that started it reads its log when it stops it.
 */
export function answersCheckedAgainstDocument<F extends (request: Request, ...rest: never[]) => Response | Promise<Response>>(
  fetch: F,
  log: { error(msg: string, fields?: Record<string, unknown>): void },
): F {
  const conformance = apiConformance();
  return (async (request: Request, ...rest: never[]) => {
    const response = await fetch(request, ...rest);
    const problem = await answerProblem(request, response, conformance).catch((err: Error) => `the answer could not be checked: ${err.message}`);
    if (problem) log.error(BREAKS_DOCUMENT_LOG, { problems: problem });
    return response;
  }) as F;
}
