/**
 * A small GraphQL reader for the query shapes the platform sends: named or
 * anonymous queries with variables, aliases, arguments and nested
 * selections. Fragments, directives' effects and mutations are not
 * emulated; they are reported as errors rather than guessed at.
 */
export interface GqlLocation {
  line: number;
  column: number;
}

export type GqlValue =
  | { kind: "variable"; name: string }
  | { kind: "literal"; value: unknown }
  | { kind: "list"; items: GqlValue[] }
  | { kind: "object"; fields: Record<string, GqlValue> };

export interface GqlField {
  alias?: string;
  name: string;
  args: Record<string, GqlValue>;
  selections?: GqlField[];
  loc: GqlLocation;
}

export interface GqlVariable {
  name: string;
  type: string;
  nonNull: boolean;
  defaultValue?: GqlValue;
  loc: GqlLocation;
}

export interface GqlOperation {
  variables: GqlVariable[];
  selections: GqlField[];
}

export class GqlSyntaxError extends Error {
  constructor(
    message: string,
    readonly loc: GqlLocation,
  ) {
    super(message);
  }
}

interface Token {
  kind: "punct" | "name" | "number" | "string" | "eof";
  value: string;
  loc: GqlLocation;
}

const TOKEN = /[\s,]+|#[^\n]*|(\.\.\.|[!$&()\:=@\[\]{|}])|([_A-Za-z][_0-9A-Za-z]*)|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|("(?:[^"\\\n]|\\.)*")/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let lineStart = 0;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const start = TOKEN.lastIndex;
    const loc = { line, column: start - lineStart + 1 };
    const m = TOKEN.exec(source);
    if (!m) throw new GqlSyntaxError(`Parse error on "${source[start]}" at [${loc.line}, ${loc.column}]`, loc);
    for (let i = start; i < TOKEN.lastIndex; i++) {
      if (source[i] === "\n") {
        line += 1;
        lineStart = i + 1;
      }
    }
    const [, punct, name, number, string] = m;
    if (punct) tokens.push({ kind: "punct", value: punct, loc });
    else if (name) tokens.push({ kind: "name", value: name, loc });
    else if (number) tokens.push({ kind: "number", value: number, loc });
    else if (string) tokens.push({ kind: "string", value: JSON.parse(string) as string, loc });
  }
  tokens.push({ kind: "eof", value: "end of file", loc: { line, column: source.length - lineStart + 1 } });
  return tokens;
}

class Parser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private fail(token = this.peek()): never {
    throw new GqlSyntaxError(`Parse error on "${token.value}" at [${token.loc.line}, ${token.loc.column}]`, token.loc);
  }

  private take(kind: Token["kind"], value?: string): Token {
    const token = this.peek();
    if (token.kind !== kind || (value !== undefined && token.value !== value)) this.fail(token);
    this.i += 1;
    return token;
  }

  private at(value: string): boolean {
    const token = this.peek();
    return token.kind === "punct" && token.value === value;
  }

  /** The operation named `operationName`, or the only one. */
  document(operationName?: string): GqlOperation {
    const operations: { name?: string; operation: GqlOperation }[] = [];
    while (this.peek().kind !== "eof") operations.push(this.operation());
    const chosen = operationName ? operations.find((o) => o.name === operationName) : operations.length === 1 ? operations[0] : undefined;
    if (!chosen) throw new GqlSyntaxError(operationName ? `Operation "${operationName}" not found` : "An operation name is required when sending multiple operations.", { line: 1, column: 1 });
    return chosen.operation;
  }

  private operation(): { name?: string; operation: GqlOperation } {
    if (this.at("{")) return { operation: { variables: [], selections: this.selectionSet() } };
    const keyword = this.take("name");
    if (keyword.value === "fragment") throw new GqlSyntaxError("Fragments are not supported by the GitHub emulator", keyword.loc);
    if (keyword.value !== "query") throw new GqlSyntaxError(`Only queries are supported by the GitHub emulator, not ${keyword.value}`, keyword.loc);
    const name = this.peek().kind === "name" ? this.take("name").value : undefined;
    const variables = this.at("(") ? this.variableDefinitions() : [];
    this.directives();
    return { name, operation: { variables, selections: this.selectionSet() } };
  }

  private variableDefinitions(): GqlVariable[] {
    const variables: GqlVariable[] = [];
    this.take("punct", "(");
    while (!this.at(")")) {
      const loc = this.take("punct", "$").loc;
      const name = this.take("name").value;
      this.take("punct", ":");
      const { type, nonNull } = this.typeRef();
      const defaultValue = this.at("=") ? (this.take("punct", "="), this.value()) : undefined;
      variables.push({ name, type, nonNull, defaultValue, loc });
    }
    this.take("punct", ")");
    return variables;
  }

  private typeRef(): { type: string; nonNull: boolean } {
    let type: string;
    if (this.at("[")) {
      this.take("punct", "[");
      type = `[${this.typeRef().type}]`;
      this.take("punct", "]");
    } else {
      type = this.take("name").value;
    }
    const nonNull = this.at("!");
    if (nonNull) this.take("punct", "!");
    return { type: nonNull ? `${type}!` : type, nonNull };
  }

  private directives(): void {
    while (this.at("@")) {
      this.take("punct", "@");
      this.take("name");
      if (this.at("(")) this.arguments();
    }
  }

  private selectionSet(): GqlField[] {
    this.take("punct", "{");
    const fields: GqlField[] = [];
    while (!this.at("}")) {
      if (this.at("...")) throw new GqlSyntaxError("Fragments are not supported by the GitHub emulator", this.peek().loc);
      fields.push(this.field());
    }
    if (fields.length === 0) this.fail();
    this.take("punct", "}");
    return fields;
  }

  private field(): GqlField {
    const first = this.take("name");
    let alias: string | undefined;
    let name = first.value;
    if (this.at(":")) {
      this.take("punct", ":");
      alias = first.value;
      name = this.take("name").value;
    }
    const args = this.at("(") ? this.arguments() : {};
    this.directives();
    const selections = this.at("{") ? this.selectionSet() : undefined;
    return { alias, name, args, selections, loc: first.loc };
  }

  private arguments(): Record<string, GqlValue> {
    const args: Record<string, GqlValue> = {};
    this.take("punct", "(");
    while (!this.at(")")) {
      const name = this.take("name").value;
      this.take("punct", ":");
      args[name] = this.value();
    }
    this.take("punct", ")");
    return args;
  }

  private value(): GqlValue {
    const token = this.peek();
    if (token.kind === "punct" && token.value === "$") {
      this.take("punct", "$");
      return { kind: "variable", name: this.take("name").value };
    }
    if (token.kind === "punct" && token.value === "[") {
      this.take("punct", "[");
      const items: GqlValue[] = [];
      while (!this.at("]")) items.push(this.value());
      this.take("punct", "]");
      return { kind: "list", items };
    }
    if (token.kind === "punct" && token.value === "{") {
      this.take("punct", "{");
      const fields: Record<string, GqlValue> = {};
      while (!this.at("}")) {
        const name = this.take("name").value;
        this.take("punct", ":");
        fields[name] = this.value();
      }
      this.take("punct", "}");
      return { kind: "object", fields };
    }
    this.i += 1;
    if (token.kind === "number") return { kind: "literal", value: Number(token.value) };
    if (token.kind === "string") return { kind: "literal", value: token.value };
    if (token.kind === "name") {
      const keywords: Record<string, unknown> = { true: true, false: false, null: null };
      // Enum values (e.g. OPEN) are passed on as their names.
      return { kind: "literal", value: token.value in keywords ? keywords[token.value] : token.value };
    }
    return this.fail(token);
  }
}

export function parseQuery(source: string, operationName?: string): GqlOperation {
  return new Parser(tokenize(source)).document(operationName);
}
