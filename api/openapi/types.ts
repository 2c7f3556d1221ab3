import type { z } from "zod";
import type { DECLARATIONS } from "./document.ts";

/**
 * The API's shapes as TypeScript types, from the same declarations as the
 * document: the site's client reads its answers through these (type-only
 * imports: nothing of the API reaches the browser's bundle).
 *
 *   const nodes = await api<ApiResponse<"listOwnNodes">>("/api/node/nodes");
 */
type Declaration = (typeof DECLARATIONS)[number];
export type OperationId = Declaration["operationId"];
type OperationOf<Id extends OperationId> = Extract<Declaration, { operationId: Id }>;
type JsonSchemaOf<R> = R extends { content: { "application/json": { schema: infer S } } } ? S : never;

/** The JSON body an operation answers with `Status` (its success status unless given: 200, 201 or 202). */
export type ApiResponse<Id extends OperationId, Status extends number = 200 | 201 | 202> =
  JsonSchemaOf<OperationOf<Id>["responses"][Status & keyof OperationOf<Id>["responses"]]> extends infer S extends z.ZodType ? z.output<S> : never;

/** The JSON body an operation takes. */
export type ApiRequestBody<Id extends OperationId> = OperationOf<Id> extends { request: { body: { content: { "application/json": { schema: infer S extends z.ZodType } } } } }
  ? z.input<S>
  : never;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Segments<P extends string> = P extends `${infer Head}/${infer Tail}` ? [Head, ...Segments<Tail>] : [P];
/** Segment by segment: a `{name}` segment takes any one segment, others must be equal. */
type SegmentsMatch<Actual extends string[], Template extends string[]> = Actual extends [infer A, ...infer AR extends string[]]
  ? Template extends [infer T, ...infer TR extends string[]]
    ? T extends `{${string}}`
      ? SegmentsMatch<AR, TR>
      : A extends T
        ? SegmentsMatch<AR, TR>
        : false
    : false
  : Template extends []
    ? true
    : false;
type WithoutQuery<P extends string> = P extends `${infer Path}?${string}` ? Path : P;
type DeclarationAt<Path extends string, M extends Method> = Declaration extends infer D
  ? D extends { method: infer DM extends string; path: infer DP extends string }
    ? Uppercase<DM> extends M
      ? SegmentsMatch<Segments<WithoutQuery<Path>>, Segments<DP>> extends true
        ? D
        : never
      : never
    : never
  : never;

/**
 * The success answer of the route a request path reaches, e.g.
 * ResponseAt<`/api/blockchain/pool-info/${number}`> is the pool-info body.
 * `unknown` when the path is a plain `string` (the caller names the operation).
 */
export type ResponseAt<Path extends string, M extends Method = "GET"> = string extends Path
  ? unknown
  : [DeclarationAt<Path, M>] extends [never]
    ? unknown
    : ApiResponse<DeclarationAt<Path, M>["operationId"]>;
