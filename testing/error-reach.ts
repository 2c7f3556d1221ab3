/**
 * Which error codes each route's handler can raise, read from the source (issue 37, item 3): a syntactic call
 * graph over api/ (TypeScript's parser, no type checking), from each route's handler and middleware through the
 * functions it calls, collecting every `ErrorCode.X` it can throw. Over-approximate by design (a function that
 * raises a code on one path counts), and blind to what no source names (an upstream's error the edge maps), so
 * api/openapi/error-codes.test.ts checks that every operation declares at least what is found here.
 *
 * Resolved: plain calls and references to functions of the same file or imported (re-exports followed), `this.m`
 * inside a class, `new C`, top-level tables a function reads (a refusal table), the context's ports
 * (`ctx.outbox.submit`, `ctx.compute.…`) to the classes that implement them, and calls dispatched through a
 * registry (`kind.confirm(…)`: every registered intent kind's `confirm`). Not followed: `hasCode(err, …)`
 * and comparisons (they test a code, they do not raise it).
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { ErrorCode } from "../api/errors.ts";

const ROOT = resolve(import.meta.dir, "..");
const CODES = new Map(Object.entries(ErrorCode));

/** Ports of the context to the class that implements them. */
const PORTS: Record<string, { file: string; cls: string }> = {
  outbox: { file: "api/chain/outbox.ts", cls: "Outbox" },
  indexer: { file: "api/chain/indexer.ts", cls: "RewardsIndexer" },
  compute: { file: "api/workers/compute-dispatch.ts", cls: "ComputeDispatcher" },
};

/**
 * Calls dispatched through a registry: `kind.confirm(…)` in the intents route runs the `confirm` of whichever kind
 * the intent names, i.e. every `defineIntentKind(name, { confirm … })` in api/ (its member of that name).
 */
const DISPATCH: Record<string, { registrar: string; member: string }> = {
  "kind.confirm": { registrar: "defineIntentKind", member: "confirm" },
  "kind.describe": { registrar: "defineIntentKind", member: "describe" },
};

const registered = new Map<string, Definition[]>();

/** The members `member` of the object literals passed to `registrar(…)` anywhere in api/ (not tests). */
function registeredMembers(registrar: string, member: string): Definition[] {
  const key = `${registrar}.${member}`;
  const known = registered.get(key);
  if (known) return known;
  const found: Definition[] = [];
  registered.set(key, found);
  for (const file of [...new Bun.Glob("api/**/*.ts").scanSync({ cwd: ROOT })].sort()) {
    if (file.endsWith(".test.ts") || !readFileSync(join(ROOT, file), "utf8").includes(`${registrar}(`)) continue;
    const visit = (n: ts.Node) => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === registrar) {
        for (const arg of n.arguments) {
          if (!ts.isObjectLiteralExpression(arg)) continue;
          for (const p of arg.properties) {
            if (!p.name || !ts.isIdentifier(p.name) || p.name.text !== member) continue;
            if (ts.isMethodDeclaration(p)) found.push({ file, node: p });
            else if (ts.isPropertyAssignment(p)) found.push({ file, node: p.initializer });
          }
        }
      }
      n.forEachChild(visit);
    };
    visit(moduleAt(file)!.source);
  }
  return found;
}

type Fn = ts.FunctionLikeDeclaration | ts.ClassDeclaration;
interface Definition {
  file: string;
  node: ts.Node;
  cls?: string;
}

interface Module {
  file: string;
  source: ts.SourceFile;
  /** Local name → the definition (function, class method "C.m", class, top-level const). */
  locals: Map<string, Definition>;
  /** Local name → [module, exported name] (`*` for a namespace import). */
  imports: Map<string, [string, string]>;
  /** Exported name → local name, or [module, name] re-exported. */
  exports: Map<string, string | [string, string]>;
  starExports: string[];
}

const modules = new Map<string, Module>();

function moduleAt(file: string): Module | undefined {
  if (modules.has(file)) return modules.get(file);
  let text: string;
  try {
    text = readFileSync(join(ROOT, file), "utf8");
  } catch {
    return undefined;
  }
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const mod: Module = { file, source, locals: new Map(), imports: new Map(), exports: new Map(), starExports: [] };
  modules.set(file, mod);
  const target = (spec: string) => relative(ROOT, resolve(ROOT, dirname(file), spec));
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text.startsWith(".")) {
      const from = target(statement.moduleSpecifier.text);
      const clause = statement.importClause;
      if (clause?.name) mod.imports.set(clause.name.text, [from, "default"]);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) mod.imports.set(bindings.name.text, [from, "*"]);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) mod.imports.set(e.name.text, [from, (e.propertyName ?? e.name).text]);
    } else if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) && statement.moduleSpecifier.text.startsWith(".") ? target(statement.moduleSpecifier.text) : undefined;
      if (!statement.exportClause) {
        if (from) mod.starExports.push(from);
      } else if (ts.isNamedExports(statement.exportClause)) {
        for (const e of statement.exportClause.elements) {
          const local = (e.propertyName ?? e.name).text;
          mod.exports.set(e.name.text, from ? [from, local] : local);
        }
      }
    } else if (ts.isFunctionDeclaration(statement) && statement.name) {
      mod.locals.set(statement.name.text, { file, node: statement });
      if (exported) mod.exports.set(statement.name.text, statement.name.text);
    } else if (ts.isClassDeclaration(statement) && statement.name) {
      const cls = statement.name.text;
      mod.locals.set(cls, { file, node: statement, cls });
      for (const member of statement.members) {
        if ((ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isPropertyDeclaration(member)) && member.name && ts.isIdentifier(member.name)) {
          mod.locals.set(`${cls}.${member.name.text}`, { file, node: member, cls });
        }
        if (ts.isConstructorDeclaration(member)) mod.locals.set(`${cls}.constructor`, { file, node: member, cls });
      }
      if (exported) mod.exports.set(cls, cls);
    } else if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) {
        if (!ts.isIdentifier(d.name)) continue;
        mod.locals.set(d.name.text, { file, node: d });
        if (exported) mod.exports.set(d.name.text, d.name.text);
      }
    }
  }
  return mod;
}

function resolveExport(file: string, name: string, seen = new Set<string>()): Definition | undefined {
  const key = `${file}#${name}`;
  if (seen.has(key)) return undefined;
  seen.add(key);
  const mod = moduleAt(file);
  if (!mod) return undefined;
  const exported = mod.exports.get(name);
  if (typeof exported === "string") return resolveLocal(mod, exported, seen);
  if (exported) return resolveExport(exported[0], exported[1], seen);
  for (const star of mod.starExports) {
    const found = resolveExport(star, name, seen);
    if (found) return found;
  }
  return undefined;
}

function resolveLocal(mod: Module, name: string, seen = new Set<string>()): Definition | undefined {
  const local = mod.locals.get(name);
  if (local) return local;
  const imported = mod.imports.get(name);
  if (imported && imported[1] !== "*") return resolveExport(imported[0], imported[1], seen);
  return undefined;
}

/** A name declared in a block around `n` (a handler or helper made inside a route factory). */
function resolveLexical(file: string, n: ts.Identifier): Definition | undefined {
  for (let p: ts.Node | undefined = n.parent; p && !ts.isSourceFile(p); p = p.parent) {
    if (!ts.isBlock(p)) continue;
    for (const statement of p.statements) {
      if (ts.isFunctionDeclaration(statement) && statement.name?.text === n.text) return { file, node: statement };
      if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === n.text && d.name !== n) return { file, node: d };
      }
    }
  }
  return undefined;
}

/** `a.b.c(…)` → ["a", "b", "c"]; undefined when the chain is not made of names. */
function chain(node: ts.Expression): string[] | undefined {
  if (ts.isIdentifier(node)) return [node.text];
  if (node.kind === ts.SyntaxKind.ThisKeyword) return ["this"];
  if (ts.isPropertyAccessExpression(node)) {
    const head = chain(node.expression);
    return head && [...head, node.name.text];
  }
  return undefined;
}

/** A code named in a test of a code (hasCode(err, X), err.is(X), `=== X`, `case X`) is read, not raised. */
function onlyTested(node: ts.Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (ts.isCallExpression(p)) {
      const callee = chain(p.expression);
      const last = callee?.at(-1);
      return last === "hasCode" || last === "is" || last === "includes";
    }
    if (ts.isBinaryExpression(p) && [ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken].includes(p.operatorToken.kind)) return true;
    if (ts.isCaseClause(p)) return true;
    if (ts.isParameter(p)) return true;
    if (ts.isFunctionLike(p) || ts.isBlock(p)) return false;
  }
  return false;
}

/** Whether a catch handler can throw (anything: a rethrow passes the caught code on). */
function throws(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isThrowStatement(n)) found = true;
    else if (n !== node && ts.isFunctionLike(n) && !ts.isArrowFunction(n)) return;
    else n.forEachChild(visit);
  };
  visit(node);
  return found;
}

interface Reach {
  codes: Set<string>;
  /** Files of every definition reached (to tell whether GitHub or the chain is read). */
  files: Set<string>;
  /** Texts of the member calls reached (`chain.client.readContract`), for the upstream check. */
  calls: Set<string>;
}

interface Summary {
  codes: Set<string>;
  calls: Set<string>;
  callees: Definition[];
}

const summaries = new Map<ts.Node, Summary>();

/** What one definition (or a handler's argument) raises itself, and the definitions it calls: read once. */
function summary(file: string, node: ts.Node, cls?: string): Summary {
  const known = summaries.get(node);
  if (known) return known;
  const own: Summary = { codes: new Set(), calls: new Set(), callees: [] };
  summaries.set(node, own);
  const mod = moduleAt(file)!;
  const callee = (d: Definition | undefined) => {
    if (!d || d.node === node) return;
    // A class reached as a value: its constructor (methods come through `this.m` or a port).
    if (ts.isClassDeclaration(d.node)) {
      const ctor = moduleAt(d.file)!.locals.get(`${d.cls}.constructor`);
      if (ctor) own.callees.push(ctor);
      return;
    }
    own.callees.push(d);
  };
  const code = (n: ts.Node) => {
    if (ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "ErrorCode") return CODES.get(n.name.text);
    return undefined;
  };
  const visit = (n: ts.Node) => {
    // What a catch swallows does not reach the caller: a try whose catch never throws, a `.catch(…)` that never throws.
    if (ts.isTryStatement(n) && n.catchClause && !throws(n.catchClause.block)) {
      n.catchClause.forEachChild(visit);
      if (n.finallyBlock) visit(n.finallyBlock);
      return;
    }
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "catch" && n.arguments[0] && ts.isFunctionLike(n.arguments[0]) && !throws(n.arguments[0])) {
      visit(n.arguments[0]);
      return;
    }
    const named = code(n);
    if (named) {
      if (!onlyTested(n)) own.codes.add(named);
      return;
    }
    if (ts.isCallExpression(n) || ts.isNewExpression(n)) {
      const names = chain(n.expression);
      if (names) {
        own.calls.add(names.join("."));
        if (names.length === 1 && ts.isNewExpression(n)) {
          const d = resolveLocal(mod, names[0]!);
          if (d?.cls) callee(moduleAt(d.file)!.locals.get(`${d.cls}.constructor`));
        } else if (names.length === 2 && names[0] === "this" && cls) {
          callee(mod.locals.get(`${cls}.${names[1]}`));
        } else if (names.length >= 2) {
          const dispatch = DISPATCH[names.slice(-2).join(".")];
          if (dispatch) for (const d of registeredMembers(dispatch.registrar, dispatch.member)) callee(d);
          const port = PORTS[names.at(-2)!];
          if (port) callee(moduleAt(port.file)?.locals.get(`${port.cls}.${names.at(-1)}`));
          const imported = mod.imports.get(names[0]!);
          if (names.length === 2 && imported?.[1] === "*") callee(resolveExport(imported[0], names[1]!));
        }
        // Defaults a call leaves out (conflict(message) raises the helper's default code).
        const d = names.length === 1 ? (resolveLexical(file, n.expression as ts.Identifier) ?? resolveLocal(mod, names[0]!)) : undefined;
        const fn = d && (ts.isVariableDeclaration(d.node) ? d.node.initializer : d.node);
        if (fn && ts.isFunctionLike(fn)) {
          fn.parameters.forEach((p, i) => {
            if (i < (n.arguments?.length ?? 0) || !p.initializer) return;
            const walk = (c: ts.Node): void => {
              const found = code(c);
              if (found) own.codes.add(found);
              c.forEachChild(walk);
            };
            walk(p.initializer);
          });
        }
      }
    }
    if (ts.isIdentifier(n) && !(ts.isPropertyAccessExpression(n.parent) && n.parent.name === n) && !(ts.isPropertyAssignment(n.parent) && n.parent.name === n)) {
      const d = resolveLexical(file, n) ?? resolveLocal(mod, n.text);
      if (d && !(ts.isVariableDeclaration(d.node) && d.node.name === n)) callee(d);
    }
    n.forEachChild(visit);
  };
  if (ts.isVariableDeclaration(node)) {
    if (node.initializer) visit(node.initializer);
  } else if (ts.isFunctionLike(node) || ts.isPropertyDeclaration(node)) node.forEachChild(visit);
  else visit(node);
  return own;
}

/** Every code reachable from these nodes (in `file`). */
export function reachFrom(file: string, nodes: ts.Node[], enclosingClass?: string): Reach {
  const reach: Reach = { codes: new Set(), files: new Set([file]), calls: new Set() };
  const visited = new Set<ts.Node>();
  const queue: { file: string; node: ts.Node; cls?: string }[] = nodes.map((node) => ({ file, node, cls: enclosingClass }));
  while (queue.length) {
    const { file: at, node, cls } = queue.pop()!;
    if (visited.has(node)) continue;
    visited.add(node);
    reach.files.add(at);
    const own = summary(at, node, cls);
    for (const c of own.codes) reach.codes.add(c);
    for (const c of own.calls) reach.calls.add(c);
    for (const d of own.callees) if (!visited.has(d.node)) queue.push({ file: d.file, node: d.node, cls: d.cls });
  }
  return reach;
}

export interface RouteHandler {
  method: string;
  /** Hono's path inside its module ("/:repoId/fund"). */
  path: string;
  nodes: ts.Node[];
  /** The module's `.use(…)` middleware. */
  shared: ts.Node[];
}

const VERBS = new Set(["get", "post", "put", "patch", "delete", "all", "on"]);

/** The route registrations of a module: `.get("/x", mw, handler)` and its `.use(…)` middleware. */
const handlersByFile = new Map<string, RouteHandler[]>();

export function routeHandlers(file: string): RouteHandler[] {
  const cached = handlersByFile.get(file);
  if (cached) return cached;
  const mod = moduleAt(file);
  if (!mod) return [];
  const found: RouteHandler[] = [];
  const shared: ts.Node[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const verb = n.expression.name.text;
      const [first, ...rest] = n.arguments;
      if (VERBS.has(verb) && first && ts.isStringLiteralLike(first)) found.push({ method: verb, path: first.text, nodes: [...rest], shared });
      else if (verb === "use") shared.push(...n.arguments.filter((a) => !ts.isStringLiteralLike(a)));
    }
    n.forEachChild(visit);
  };
  visit(mod.source);
  handlersByFile.set(file, found);
  return found;
}

/**
 * How well Hono's path inside a module (`/:repoId/fund`, `/*`) matches the end of an operation's path: -1 when it
 * does not; otherwise 2 per literal segment and 1 per parameter matched (a Hono parameter takes a literal segment
 * too: `/api/repos/details` is routed as `/:repoId`).
 */
function tailMatch(honoPath: string, fullPath: string): number {
  const hono = honoPath.split("/").filter(Boolean);
  const full = fullPath.split("/").filter(Boolean);
  if (hono.at(-1) === "*") return 0;
  if (hono.length > full.length) return -1;
  let score = 0;
  for (let i = 1; i <= hono.length; i++) {
    const h = hono[hono.length - i]!;
    const f = full[full.length - i]!;
    if (h.startsWith(":")) score += 1;
    else if (h === f) score += 2;
    else return -1;
  }
  return score;
}

/** A route module's handlers for `method fullPath` (empty when none matches). */
function handlersFor(file: string, method: string, fullPath: string): RouteHandler[] {
  const candidates = routeHandlers(file)
    .filter((h) => h.method === method || h.method === "all")
    .map((h) => ({ h, score: tailMatch(h.path, fullPath) }))
    .filter((c) => c.score >= 0);
  if (!candidates.length) return [];
  // The handler whose path matches most of the operation's path ("/" or "/*" only when nothing longer matches).
  const best = Math.max(...candidates.map((c) => c.score));
  return candidates.filter((c) => c.score === best && (best > 0 || c.h.method === method)).map((c) => c.h);
}

/** The codes a route module's handler for `method fullPath` can raise, or undefined when no handler matches. */
export function codesOfRoute(file: string, method: string, fullPath: string): Reach | undefined {
  const handlers = handlersFor(file, method, fullPath);
  if (!handlers.length) return undefined;
  const reach = reachFrom(file, [...handlers.flatMap((h) => h.nodes), ...handlers[0]!.shared]);
  // An upstream that fails is mapped at the edge (api/middleware/errors.ts): GitHub's client, the chain's RPC.
  if ([...reach.files].some((f) => f.startsWith("api/github/"))) reach.codes.add(ErrorCode.GITHUB_UNAVAILABLE);
  if ([...reach.calls].some((c) => /(^|\.)chain\.client\./.test(c))) reach.codes.add(ErrorCode.CHAIN_UNAVAILABLE);
  return reach;
}

/**
 * The route module that handles an operation: the one that declares it (its operationId written there), or for
 * the few declared through a helper or routed elsewhere, the module whose handler matches.
 */
let routeFiles: { file: string; text: string }[] | undefined;

export function handlerModule(operationId: string, method: string, path: string): string | undefined {
  routeFiles ??= [...new Bun.Glob("api/routes/**/*.ts").scanSync({ cwd: ROOT })]
    .filter((f) => !f.endsWith(".test.ts"))
    .sort()
    .map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));
  const files = routeFiles.map((r) => r.file);
  const declaring = routeFiles.find((r) => r.text.includes(`"${operationId}"`))?.file;
  if (declaring && handlersFor(declaring, method, path).length) return declaring;
  return files.find((f) => handlersFor(f, method, path).length);
}

export { ROOT as REACH_ROOT };
