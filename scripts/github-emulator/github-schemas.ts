/**
 * GitHub's published descriptions, for checking the emulator against them in
 * tests: the 200-response schemas of the REST API (`@octokit/openapi`,
 * dereferenced) and the webhook payload schemas (`@octokit/webhooks-schemas`),
 * validated with Ajv. Test-only (devDependencies).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };
let paths: Record<string, Record<string, Operation>> | undefined;
const compiled = new Map<string, ValidateFunction>();

function ajv(): Ajv {
  // OpenAPI 3.0 schemas: `nullable`, and keywords Ajv's strict mode does not know (examples, x-github...).
  const instance = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(instance);
  return instance;
}
const restAjv = ajv();

/** Errors of `body` against the 2xx JSON response schema of `method path` (a path template of GitHub's description). */
export function restSchemaErrors(method: string, template: string, body: unknown, status = "200"): string[] {
  paths ??= JSON.parse(readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.deref.json"), "utf8")).paths;
  const key = `${method} ${template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    const schema = paths![template]?.[method.toLowerCase()]?.responses?.[status]?.content?.["application/json"]?.schema;
    if (!schema) throw new Error(`GitHub's description has no ${status} JSON response for ${method} ${template}`);
    validate = restAjv.compile(fromOpenApi30(schema) as object);
    compiled.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema has it (a "null" type, or a null alternative when there is no type). */
function fromOpenApi30(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fromOpenApi30);
  if (!schema || typeof schema !== "object") return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  // A known slip of GitHub's description: an installation's account is "allOf" [Simple User, Enterprise], which
  // no account can be (it is one or the other; real GitHub answers fail it too). Read as the "anyOf" it means.
  if (Array.isArray(rest.allOf) && rest.allOf.length === 2 && (rest.allOf as { title?: string }[]).map((x) => x.title).join() === "Simple User,Enterprise") {
    rest.anyOf = rest.allOf;
    delete rest.allOf;
  }
  const converted: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) converted[k] = k === "properties" || k === "patternProperties" ? mapValues(v, fromOpenApi30) : fromOpenApi30(v);
  if (nullable !== true) return converted;
  if (typeof converted.type === "string") {
    converted.type = [converted.type, "null"];
    if (Array.isArray(converted.enum)) converted.enum = [...converted.enum, null];
    return converted;
  }
  return { anyOf: [converted, { type: "null" }] };
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
}

let webhookAjv: Ajv | undefined;

/** Errors of a webhook payload against GitHub's schema of that event and action (e.g. `issues$opened`). */
export function webhookSchemaErrors(event: string, payload: Record<string, unknown>): string[] {
  if (!webhookAjv) {
    webhookAjv = ajv();
    // The webhook schemas lag GitHub's REST description by a few fields that GitHub now sends in payloads too
    // (user_view_type, an installation's node_id and client_id...), and they close objects with
    // additionalProperties: false. Every required field and every type is still checked; a field the schemas do
    // not know yet is not refused.
    const schema = openObjects(JSON.parse(readFileSync(require.resolve("@octokit/webhooks-schemas/schema.json"), "utf8")));
    webhookAjv.addSchema({ ...(schema as object), $id: "webhooks" });
  }
  const name = typeof payload.action === "string" ? `${event}$${payload.action}` : `${event}_event`;
  const validate = webhookAjv.getSchema(`webhooks#/definitions/${name}`);
  if (!validate) throw new Error(`GitHub's webhook schemas have no ${name}`);
  return validate(payload) ? [] : (validate.errors ?? []).slice(0, 20).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
}

function openObjects(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openObjects);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "additionalProperties" && v === false) continue;
    out[k] = openObjects(v);
  }
  return out;
}
