import { describe, expect, test } from "bun:test";
import { apiDocument, DECLARATIONS } from "./document.ts";
import { conformanceTo } from "./conformance.ts";
import { edgeErrorCodes } from "./declare.ts";
import { ErrorCode } from "../errors.ts";
import { codesOfRoute, handlerModule } from "../../testing/error-reach.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Operation = { operationId: string; "x-error-codes"?: string[]; responses: { default?: { content: { "application/json": { schema: { $ref?: string } } } } } };
const operations = () => {
  const document = apiDocument() as unknown as { paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>; components: { schemas: Record<string, { properties: { code: { enum: string[] } } }> } };
  return { document, list: Object.entries(document.paths).flatMap(([path, item]) => METHODS.flatMap((method) => (item[method] ? [{ path, method, operation: item[method]! }] : []))) };
};

describe("each operation's error codes (issue 37, item 3)", () => {
  test("every operation lists its codes (x-error-codes), each one of the catalogue, the edge's among them; the error schema's code is the catalogue", () => {
    const { document, list } = operations();
    const catalogue = Object.values(ErrorCode) as string[];
    expect([...document.components.schemas.Error!.properties.code.enum].sort()).toEqual([...catalogue].sort());
    for (const { path, method, operation } of list) {
      const codes = operation["x-error-codes"];
      expect({ op: operation.operationId, listed: Array.isArray(codes) }).toEqual({ op: operation.operationId, listed: true });
      expect({ op: operation.operationId, unknown: codes!.filter((c) => !catalogue.includes(c)) }).toEqual({ op: operation.operationId, unknown: [] });
      const edge = edgeErrorCodes({ method, path } as never);
      expect({ op: operation.operationId, edgeMissing: edge.filter((c) => !codes!.includes(c)) }).toEqual({ op: operation.operationId, edgeMissing: [] });
      expect(operation.responses.default?.content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
    }
  });

  test("every code a route's handler, its middleware and the services they call can raise is declared (read from the source)", () => {
    const missing: string[] = [];
    const unmatched: string[] = [];
    for (const declaration of DECLARATIONS as unknown as { method: string; path: string; operationId: string }[]) {
      const file = handlerModule(declaration.operationId, declaration.method, declaration.path);
      const reach = file ? codesOfRoute(file, declaration.method, declaration.path) : undefined;
      if (!reach) {
        unmatched.push(declaration.operationId);
        continue;
      }
      const declared = new Set((apiDocument() as unknown as { paths: Record<string, Record<string, Operation>> }).paths[declaration.path]![declaration.method]!["x-error-codes"]);
      const absent = [...reach.codes].filter((c) => !declared.has(c)).sort();
      // Add them to the route's declareRoute({ …, errors: [...] }).
      if (absent.length) missing.push(`${declaration.operationId} (${file}): ${absent.join(", ")}`);
    }
    expect({ unmatched, missing }).toEqual({ unmatched: [], missing: [] });
    // Parsing the api/ sources takes a few seconds on a busy machine.
  }, 60_000);

  test("an error answer whose code its operation does not list breaks the document; a listed one passes", () => {
    const document = {
      paths: {
        "/api/things/{id}": {
          get: {
            "x-error-codes": ["not_found", "internal"],
            responses: {
              "200": { content: { "application/json": { schema: { type: "object" } } } },
              default: { content: { "application/json": { schema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] } } } },
            },
          },
        },
      },
    };
    const conformance = conformanceTo(document);
    expect(conformance.problems("GET", "/api/things/7", 404, { code: "not_found" })).toEqual([]);
    const problems = conformance.problems("GET", "/api/things/7", 400, { code: "bad_request" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('code "bad_request" is not among the operation\'s x-error-codes (not_found, internal)');
    // A success answer has no code to check.
    expect(conformance.problems("GET", "/api/things/7", 200, { code: "anything" })).toEqual([]);
  });
});
