/**
 * POST /graphql for the part of GitHub's schema the platform reads: a
 * repository's pull requests and issues, authors, and a pull request's
 * closingIssuesReferences, and an issue's closedByPullRequestsReferences. Queries are validated against that schema first
 * (unknown fields are errors, in GitHub's wording); then resolved, with
 * NOT_FOUND errors and nulls for what the caller cannot see.
 */
import { Hono } from "hono";
import { canRead, type Caller } from "./access.ts";
import type { EmulatorContext } from "./context.ts";
import { parseQuery, GqlSyntaxError, type GqlField, type GqlLocation, type GqlOperation, type GqlValue } from "./graphql-parse.ts";
import { jsonBody, type ApiEnv } from "./http.ts";
import { closingReferences } from "./references.ts";
import { account, avatarUrl, accountId } from "./shapes-accounts.ts";
import { issueHtmlUrl } from "./shapes-issues.ts";
import { repoHtmlUrl } from "./shapes-repos.ts";
import type { IssueRecord, RepoRecord } from "./state.ts";
import { fullName, issueId, nodeId, pullId, type World } from "./world.ts";

interface Ctx {
  world: World;
  caller: Caller;
}
type Item = { repo: RepoRecord; issue: IssueRecord };
type Args = Record<string, unknown>;
/** Resolvers receive their parent's value, whose type the schema below fixes per field. */
type Resolve = (source: any, args: Args, ctx: Ctx) => unknown;
interface FieldDef {
  type: string;
  list?: boolean;
  args?: Record<string, boolean>; // name -> required
  resolve: Resolve;
}

class NotFound extends Error {
  constructor(
    message: string,
    readonly type = "NOT_FOUND",
  ) {
    super(message);
  }
}

const up = (s: string | null) => (s ? s.toUpperCase() : null);

const actorFields: Record<string, FieldDef> = {
  login: { type: "String", resolve: (login: string, _, { world }) => (world.isBot(login) ? world.config.app.slug : login) },
  url: { type: "URI", resolve: (login: string, _, { world }) => (world.isBot(login) ? `${world.config.webUrl}/apps/${world.config.app.slug}` : `${world.config.webUrl}/${login}`) },
  avatarUrl: { type: "URI", args: { size: false }, resolve: (login: string, _, { world }) => avatarUrl(world, accountId(world, login)) },
};

const commonIssueFields: Record<string, FieldDef> = {
  number: { type: "Int", resolve: ({ issue }: Item) => issue.number },
  title: { type: "String", resolve: ({ issue }: Item) => issue.title },
  body: { type: "String", resolve: ({ issue }: Item) => issue.body },
  closed: { type: "Boolean", resolve: ({ issue }: Item) => issue.state === "closed" },
  closedAt: { type: "DateTime", resolve: ({ issue }: Item) => issue.closedAt },
  createdAt: { type: "DateTime", resolve: ({ issue }: Item) => issue.createdAt },
  updatedAt: { type: "DateTime", resolve: ({ issue }: Item) => issue.updatedAt },
  url: { type: "URI", resolve: ({ repo, issue }: Item, _, { world }) => issueHtmlUrl(world, repo, issue) },
  author: { type: "Actor", resolve: ({ issue }: Item) => issue.author },
  repository: { type: "Repository", resolve: ({ repo }: Item) => repo },
};

const SCHEMA: Record<string, Record<string, FieldDef>> = {
  Query: {
    repository: {
      type: "Repository",
      args: { owner: true, name: true, followRenames: false },
      resolve: (_, { owner, name }, { world, caller }) => {
        const repo = world.findRepo(String(owner), String(name))?.repo;
        if (!repo || !canRead(world, caller, repo)) throw new NotFound(`Could not resolve to a Repository with the name '${owner}/${name}'.`);
        return repo;
      },
    },
    viewer: { type: "User", resolve: (_, __, { world, caller }) => (caller.kind === "user" ? caller.login : world.botLogin) },
  },
  Repository: {
    id: { type: "ID", resolve: (r: RepoRecord) => nodeId("Repository", r.id) },
    databaseId: { type: "Int", resolve: (r: RepoRecord) => r.id },
    name: { type: "String", resolve: (r: RepoRecord) => r.name },
    nameWithOwner: { type: "String", resolve: (r: RepoRecord) => fullName(r) },
    description: { type: "String", resolve: (r: RepoRecord) => r.description },
    url: { type: "URI", resolve: (r: RepoRecord, _, { world }) => repoHtmlUrl(world, r) },
    isPrivate: { type: "Boolean", resolve: (r: RepoRecord) => r.private },
    visibility: { type: "RepositoryVisibility", resolve: (r: RepoRecord) => (r.private ? "PRIVATE" : "PUBLIC") },
    owner: { type: "Actor", resolve: (r: RepoRecord) => r.owner },
    pullRequest: {
      type: "PullRequest",
      args: { number: true },
      resolve: (repo: RepoRecord, { number }, { world }) => {
        const issue = world.issue(repo.id, Number(number));
        if (!issue?.pull) throw new NotFound(`Could not resolve to a PullRequest with the number of ${number}.`);
        return { repo, issue };
      },
    },
    issue: {
      type: "Issue",
      args: { number: true },
      resolve: (repo: RepoRecord, { number }, { world }) => {
        const issue = world.issue(repo.id, Number(number));
        if (!issue || issue.pull) throw new NotFound(`Could not resolve to an Issue with the number of ${number}.`);
        return { repo, issue };
      },
    },
  },
  PullRequest: {
    ...commonIssueFields,
    id: { type: "ID", resolve: ({ repo, issue }: Item) => nodeId("PullRequest", pullId(repo.id, issue.number)) },
    databaseId: { type: "Int", resolve: ({ repo, issue }: Item) => pullId(repo.id, issue.number) },
    state: { type: "PullRequestState", resolve: ({ issue }: Item) => (issue.pull!.merged ? "MERGED" : up(issue.state)) },
    merged: { type: "Boolean", resolve: ({ issue }: Item) => issue.pull!.merged },
    mergedAt: { type: "DateTime", resolve: ({ issue }: Item) => issue.pull!.mergedAt },
    mergedBy: { type: "Actor", resolve: ({ issue }: Item) => issue.pull!.mergedBy },
    headRefName: { type: "String", resolve: ({ issue }: Item) => issue.pull!.head },
    baseRefName: { type: "String", resolve: ({ issue }: Item) => issue.pull!.base },
    closingIssuesReferences: {
      type: "IssueConnection",
      args: { first: false, last: false, after: false, before: false, userLinkedOnly: false, orderBy: false },
      resolve: ({ repo, issue }: Item, { first, last }, { world, caller }) => {
        const limit = (first ?? last) as number | undefined;
        if (typeof limit !== "number") throw new NotFound("You must provide a `first` or `last` value to properly paginate the `closingIssuesReferences` connection.", "MISSING_PAGINATION_BOUNDARIES");
        if (limit > 100) throw new NotFound(`Requesting ${limit} records on the \`closingIssuesReferences\` connection exceeds the \`${first !== undefined ? "first" : "last"}\` limit of 100 records.`, "EXCESSIVE_PAGINATION");
        const nodes = closingReferences(issue.body, repo.owner, repo.name, world.config.webUrl).flatMap((ref) => {
          const target = world.findRepo(ref.owner, ref.name)?.repo;
          const closed = target && world.issue(target.id, ref.number);
          return target && closed && !closed.pull && canRead(world, caller, target) ? [{ repo: target, issue: closed }] : [];
        });
        return { nodes: first !== undefined ? nodes.slice(0, limit) : nodes.slice(-limit), totalCount: nodes.length };
      },
    },
  },
  Issue: {
    ...commonIssueFields,
    id: { type: "ID", resolve: ({ repo, issue }: Item) => nodeId("Issue", issueId(repo.id, issue.number)) },
    databaseId: { type: "Int", resolve: ({ repo, issue }: Item) => issueId(repo.id, issue.number) },
    state: { type: "IssueState", resolve: ({ issue }: Item) => up(issue.state) },
    stateReason: { type: "IssueStateReason", resolve: ({ issue }: Item) => up(issue.stateReason) },
    // The pull requests whose description closes this issue: open ones, and closed or merged ones too with includeClosedPrs.
    closedByPullRequestsReferences: {
      type: "PullRequestConnection",
      args: { first: false, last: false, after: false, before: false, includeClosedPrs: false, orderByState: false, userLinkedOnly: false },
      resolve: ({ repo, issue }: Item, { first, last, includeClosedPrs }, { world, caller }) => {
        const limit = (first ?? last) as number | undefined;
        if (typeof limit !== "number") throw new NotFound("You must provide a `first` or `last` value to properly paginate the `closedByPullRequestsReferences` connection.", "MISSING_PAGINATION_BOUNDARIES");
        if (limit > 100) throw new NotFound(`Requesting ${limit} records on the \`closedByPullRequestsReferences\` connection exceeds the \`${first !== undefined ? "first" : "last"}\` limit of 100 records.`, "EXCESSIVE_PAGINATION");
        const nodes = world.state.issues.flatMap((candidate) => {
          if (!candidate.pull || (!includeClosedPrs && candidate.state !== "open")) return [];
          const source = world.repoById(candidate.repoId);
          if (!source || !canRead(world, caller, source)) return [];
          const closes = closingReferences(candidate.body, source.owner, source.name, world.config.webUrl).some(
            (ref) => world.findRepo(ref.owner, ref.name)?.repo.id === repo.id && ref.number === issue.number,
          );
          return closes ? [{ repo: source, issue: candidate }] : [];
        });
        return { nodes: first !== undefined ? nodes.slice(0, limit) : nodes.slice(-limit), totalCount: nodes.length };
      },
    },
  },
  PullRequestConnection: {
    totalCount: { type: "Int", resolve: (c: { totalCount: number }) => c.totalCount },
    nodes: { type: "PullRequest", list: true, resolve: (c: { nodes: Item[] }) => c.nodes },
    pageInfo: { type: "PageInfo", resolve: (c: { nodes: Item[]; totalCount: number }) => c },
  },
  IssueConnection: {
    totalCount: { type: "Int", resolve: (c: { totalCount: number }) => c.totalCount },
    nodes: { type: "Issue", list: true, resolve: (c: { nodes: Item[] }) => c.nodes },
    pageInfo: { type: "PageInfo", resolve: (c: { nodes: Item[]; totalCount: number }) => c },
  },
  PageInfo: {
    hasNextPage: { type: "Boolean", resolve: (c: { nodes: Item[]; totalCount: number }) => c.nodes.length < c.totalCount },
    hasPreviousPage: { type: "Boolean", resolve: () => false },
    startCursor: { type: "String", resolve: (c: { nodes: Item[] }) => (c.nodes.length ? btoa("cursor:1") : null) },
    endCursor: { type: "String", resolve: (c: { nodes: Item[] }) => (c.nodes.length ? btoa(`cursor:${c.nodes.length}`) : null) },
  },
  Actor: actorFields,
  User: {
    ...actorFields,
    id: { type: "ID", resolve: (login: string, _, { world }) => nodeId(account(world, login).type, accountId(world, login)) },
    databaseId: { type: "Int", resolve: (login: string, _, { world }) => accountId(world, login) },
    name: { type: "String", resolve: (login: string, _, { world }) => world.user(login)?.name ?? null },
    email: { type: "String", resolve: (login: string, _, { world }) => world.user(login)?.email ?? "" },
  },
};

interface GqlError {
  message: string;
  locations?: GqlLocation[];
  path?: (string | number)[];
  type?: string;
  extensions?: Record<string, unknown>;
}

function typename(type: string, source: unknown, world: World): string {
  if (type !== "Actor") return type;
  const a = account(world, source as string);
  return a.type === "Ghost" ? "User" : a.type;
}

/** Static checks, as GitHub makes before executing anything: fields, selections, arguments, variables. */
function validate(op: GqlOperation, variables: Args): GqlError[] {
  const errors: GqlError[] = [];
  for (const v of op.variables) {
    if (v.nonNull && variables[v.name] == null && !v.defaultValue) errors.push({ message: `Variable $${v.name} of type ${v.type} was provided invalid value`, locations: [v.loc] });
  }
  const declared = new Set(op.variables.map((v) => v.name));
  const visitValue = (value: GqlValue, loc: GqlLocation): void => {
    if (value.kind === "variable" && !declared.has(value.name)) errors.push({ message: `Variable $${value.name} is used by anonymous query but not declared`, locations: [loc] });
    if (value.kind === "list") value.items.forEach((v) => visitValue(v, loc));
    if (value.kind === "object") Object.values(value.fields).forEach((v) => visitValue(v, loc));
  };
  const visit = (type: string, fields: GqlField[], path: string[]): void => {
    for (const field of fields) {
      const here = [...path, field.alias ?? field.name];
      const fail = (message: string, extensions: Record<string, unknown>) => errors.push({ path: here, extensions, locations: [field.loc], message });
      Object.values(field.args).forEach((v) => visitValue(v, field.loc));
      if (field.name === "__typename") continue;
      const def = SCHEMA[type]?.[field.name];
      if (!def) {
        fail(`Field '${field.name}' doesn't exist on type '${type}'`, { code: "undefinedField", typeName: type, fieldName: field.name });
        continue;
      }
      const unknownArg = Object.keys(field.args).find((a) => !(def.args && a in def.args));
      if (unknownArg) fail(`Field '${field.name}' doesn't accept argument '${unknownArg}'`, { code: "argumentNotAccepted", name: field.name, typeName: "Field", argumentName: unknownArg });
      const missing = Object.entries(def.args ?? {}).filter(([a, required]) => required && !(a in field.args)).map(([a]) => a);
      if (missing.length) fail(`Field '${field.name}' is missing required arguments: ${missing.join(", ")}`, { code: "missingRequiredArguments", className: "Field", name: field.name, arguments: missing.join(", ") });
      const isObject = def.type in SCHEMA;
      if (isObject && !field.selections) fail(`Field must have selections (field '${field.name}' returns ${def.type} but has no selections. Did you mean '${field.name} { ... }'?)`, { code: "selectionMismatch", nodeName: `field '${field.name}'`, typeName: def.type });
      else if (!isObject && field.selections) fail(`Selections can't be made on scalars (field '${field.name}' returns ${def.type} but has selections [${field.selections.map((s) => s.name).join(", ")}])`, { code: "selectionMismatch", nodeName: `field '${field.name}'`, typeName: def.type });
      else if (isObject) visit(def.type, field.selections!, here);
    }
  };
  visit("Query", op.selections, ["query"]);
  return errors;
}

function argValue(value: GqlValue, variables: Args): unknown {
  switch (value.kind) {
    case "variable":
      return variables[value.name];
    case "literal":
      return value.value;
    case "list":
      return value.items.map((v) => argValue(v, variables));
    case "object":
      return Object.fromEntries(Object.entries(value.fields).map(([k, v]) => [k, argValue(v, variables)]));
  }
}

function execute(type: string, source: unknown, fields: GqlField[], path: (string | number)[], ctx: Ctx & { variables: Args; errors: GqlError[] }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const key = field.alias ?? field.name;
    if (field.name === "__typename") {
      out[key] = typename(type, source, ctx.world);
      continue;
    }
    const def = SCHEMA[type]![field.name]!;
    const args = Object.fromEntries(Object.entries(field.args).map(([k, v]) => [k, argValue(v, ctx.variables)]));
    let value: unknown;
    try {
      value = def.resolve(source, args, ctx);
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      ctx.errors.push({ type: err.type, path: [...path, key], locations: [field.loc], message: err.message });
      value = null;
    }
    const complete = (v: unknown, at: (string | number)[]) => (v == null ? null : def.type in SCHEMA ? execute(def.type, v, field.selections!, at, ctx) : v);
    out[key] = value == null ? null : def.list ? (value as unknown[]).map((v, i) => complete(v, [...path, key, i])) : complete(value, [...path, key]);
  }
  return out;
}

export function graphqlRoutes({ world }: EmulatorContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/graphql", async (c) => {
    const caller = c.get("caller");
    if (caller.kind === "anonymous") {
      return c.json({ message: "This endpoint requires you to be authenticated.", documentation_url: "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql" }, 401);
    }
    const body = await jsonBody(c);
    if (typeof body?.query !== "string") return c.json({ errors: [{ message: "A query attribute must be specified and must be a string." }] });
    const variables = (body.variables && typeof body.variables === "object" ? body.variables : {}) as Args;
    let op: GqlOperation;
    try {
      op = parseQuery(body.query, typeof body.operationName === "string" ? body.operationName : undefined);
    } catch (err) {
      if (!(err instanceof GqlSyntaxError)) throw err;
      return c.json({ errors: [{ message: err.message, locations: [err.loc] }] });
    }
    const invalid = validate(op, variables);
    if (invalid.length) return c.json({ errors: invalid });
    const ctx = { world, caller, variables, errors: [] as GqlError[] };
    const data = execute("Query", undefined, op.selections, [], ctx);
    return c.json(ctx.errors.length ? { data, errors: ctx.errors } : { data });
  });
  return app;
}
