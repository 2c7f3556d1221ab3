import Database from "libsql";
import {
  LibsqlBatchError,
  LibsqlError,
  type Client,
  type InArgs,
  type InStatement,
  type InValue,
  type Replicated,
  type ResultSet,
  type Row,
  type Transaction,
  type TransactionMode,
} from "@libsql/client";

/**
 * The client for the embedded database (a file, or memory in tests): the
 * `Client` interface of `@libsql/client`, on the same native library
 * (`libsql`), with the same connection pool, transactions, integer and error
 * handling. What it adds is reuse: `@libsql/client` prepares every statement
 * afresh and asks it for its columns twice, which was about a third of the
 * server's CPU in the chain benchmark (docs/performance.md). Here each
 * connection keeps its prepared statements, with their column names and
 * whether they return rows, and runs them again.
 *
 * Reuse is safe because a statement that ran to completion holds nothing
 * (SQLite ends its implicit read transaction when the statement halts); a
 * statement that failed may not have halted (SQLITE_BUSY), and would keep
 * its connection on an old snapshot, so an error drops the statement and
 * retires the connection (a file database; a memory database has one
 * connection and no snapshots to keep). A schema change through this client
 * forgets every prepared statement.
 */
export interface EmbeddedClientOptions {
  /** How long SQLite waits for another process's write lock, in ms. */
  busyTimeoutMs?: number;
  /** Connections at most (a memory database always has one). */
  maxConnections?: number;
  /** Prepared statements kept per connection (least recently used go first). */
  statementCacheSize?: number;
}

type NativeDatabase = InstanceType<typeof Database>;
type NativeStatement = ReturnType<NativeDatabase["prepare"]>;

interface Prepared {
  statement: NativeStatement;
  reader: boolean;
  /** `select *` and the like: the columns can change with the schema. */
  starred: boolean;
  columns: string[];
  columnTypes: string[];
}

function describe(prepared: Prepared): void {
  const described = prepared.statement.columns();
  prepared.columns = described.map((c) => c.name);
  prepared.columnTypes = described.map((c) => c.type ?? "");
}

const SCHEMA_CHANGE = /^\s*(create|alter|drop)\b/i;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_INTEGER = -(2n ** 63n);
const MAX_INTEGER = 2n ** 63n - 1n;

class Connection {
  /** Set by an error that may have left a statement unreset: the pool closes the connection instead of reusing it. */
  retired = false;
  private readonly statements = new Map<string, Prepared>();
  private schemaVersion: number;

  constructor(
    readonly native: NativeDatabase,
    private readonly pool: ConnectionPool,
  ) {
    this.schemaVersion = pool.schemaVersion;
  }

  execute(stmt: InStatement): ResultSet {
    const { sql, args } = normalize(stmt);
    try {
      const prepared = this.prepare(sql);
      if (!prepared.reader) {
        const info = prepared.statement.run(args);
        if (SCHEMA_CHANGE.test(sql)) this.pool.schemaChanged();
        return new EmbeddedResultSet([], [], [], info.changes, BigInt(info.lastInsertRowid));
      }
      const values = prepared.statement.all(args) as unknown[][];
      // SQLite prepares a statement again by itself when the schema changed under it (another connection's
      // ALTER, say): a `*` can then stand for other columns. Such a statement's columns are read after each run.
      if (prepared.starred || (values.length > 0 && values[0]!.length !== prepared.columns.length)) describe(prepared);
      const columns = prepared.columns;
      const rows = values.map((row) => toRow(row, columns));
      return new EmbeddedResultSet(columns, prepared.columnTypes, rows, 0, undefined);
    } catch (err) {
      throw this.failed(sql, err);
    }
  }

  exec(sql: string): void {
    try {
      this.native.exec(sql);
    } catch (err) {
      throw this.failed(sql, err);
    } finally {
      this.pool.schemaChanged();
    }
  }

  get inTransaction(): boolean {
    return this.native.open && this.native.inTransaction;
  }

  close(): void {
    this.statements.clear();
    try {
      if (this.native.open) this.native.close();
    } catch {
      // nothing useful to do while tearing down
    }
  }

  private prepare(sql: string): Prepared {
    if (this.schemaVersion !== this.pool.schemaVersion) {
      this.statements.clear();
      this.schemaVersion = this.pool.schemaVersion;
    }
    const cached = this.statements.get(sql);
    if (cached) {
      // Most recently used last: the first entry is the one to drop when full.
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const statement = this.native.prepare(sql);
    statement.safeIntegers(true);
    const prepared: Prepared = { statement, reader: statement.reader, starred: sql.includes("*"), columns: [], columnTypes: [] };
    if (prepared.reader) {
      statement.raw(true);
      describe(prepared);
    }
    if (this.statements.size >= this.pool.statementCacheSize) {
      this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, prepared);
    return prepared;
  }

  private failed(sql: string, err: unknown): unknown {
    this.statements.delete(sql);
    if (!this.pool.memory) this.retired = true;
    return toLibsqlError(err);
  }
}

/**
 * Connections are borrowed for one synchronous call (so at most one at a
 * time outside transactions) or by a transaction until it settles; an idle
 * one is reused with its prepared statements.
 */
class ConnectionPool {
  schemaVersion = 0;
  closed = false;
  readonly memory: boolean;
  private idle: Connection[] = [];
  private readonly borrowed = new Set<Connection>();
  private readonly heldByTransaction = new Set<Connection>();
  private waiters: { resolve: (c: Connection) => void; reject: (e: unknown) => void; forTransaction: boolean }[] = [];

  constructor(
    private readonly path: string,
    private readonly busyTimeoutMs: number,
    private readonly maxConnections: number,
    readonly statementCacheSize: number,
  ) {
    this.memory = path === ":memory:";
    if (this.memory) this.maxConnections = 1;
  }

  schemaChanged(): void {
    this.schemaVersion++;
  }

  acquireSync(forTransaction = false): Connection {
    if (this.closed) throw new LibsqlError("The client is closed", "CLIENT_CLOSED");
    const connection = this.idle.pop() ?? new Connection(new Database(this.path, { timeout: this.busyTimeoutMs }), this);
    this.borrowed.add(connection);
    if (forTransaction) this.heldByTransaction.add(connection);
    return connection;
  }

  acquire(forTransaction = false): Promise<Connection> {
    if (!this.closed && this.idle.length === 0 && this.borrowed.size >= this.maxConnections) {
      if (this.heldByTransaction.size >= this.maxConnections) {
        return Promise.reject(
          new LibsqlError(
            this.maxConnections === 1
              ? "This client has a single connection, which an open transaction is holding. Commit or roll back the transaction before using the client again."
              : `All ${this.maxConnections} of this client's connections are held by open transactions. Commit or roll back one before using the client again.`,
            "TRANSACTION_ACTIVE",
          ),
        );
      }
      return new Promise((resolve, reject) => this.waiters.push({ resolve, reject, forTransaction }));
    }
    try {
      return Promise.resolve(this.acquireSync(forTransaction));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  release(connection: Connection): void {
    this.borrowed.delete(connection);
    this.heldByTransaction.delete(connection);
    // Never back into the pool mid-transaction: the next borrower would silently inherit it.
    if (!connection.retired && connection.inTransaction) {
      try {
        connection.execute("ROLLBACK");
      } catch {
        connection.retired = true;
      }
    }
    if (this.closed || connection.retired || !connection.native.open) {
      connection.close();
      this.serveWaiter();
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) {
      this.borrowed.add(connection);
      if (waiter.forTransaction) this.heldByTransaction.add(connection);
      waiter.resolve(connection);
    } else {
      this.idle.push(connection);
    }
  }

  close(): void {
    this.closed = true;
    for (const connection of [...this.idle, ...this.borrowed]) connection.close();
    this.idle = [];
    this.borrowed.clear();
    this.heldByTransaction.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(new LibsqlError("The client is closed", "CLIENT_CLOSED"));
  }

  reopen(): void {
    this.close();
    this.closed = false;
  }

  /** A retired connection frees a place: a waiter gets a new one. */
  private serveWaiter(): void {
    const waiter = this.waiters.shift();
    if (!waiter) return;
    try {
      waiter.resolve(this.acquireSync(waiter.forTransaction));
    } catch (err) {
      waiter.reject(err);
    }
  }
}

export function createEmbeddedClient(path: string, options: EmbeddedClientOptions = {}): Client {
  const pool = new ConnectionPool(path, options.busyTimeoutMs ?? 5000, Math.max(1, options.maxConnections ?? 20), options.statementCacheSize ?? 500);
  // Fail fast if the database cannot be opened at all.
  const probe = pool.acquireSync();
  try {
    probe.execute("SELECT 1");
  } catch (err) {
    pool.close();
    throw err;
  }
  pool.release(probe);
  return new EmbeddedClient(pool);
}

class EmbeddedClient implements Client {
  closed = false;
  readonly protocol = "file";

  constructor(private readonly pool: ConnectionPool) {}

  async execute(stmtOrSql: InStatement | string, args?: InArgs): Promise<ResultSet> {
    const stmt: InStatement = typeof stmtOrSql === "string" ? { sql: stmtOrSql, args: args ?? [] } : stmtOrSql;
    return this.withConnection((c) => c.execute(stmt));
  }

  async batch(stmts: Array<InStatement | [string, InArgs?]>, mode: TransactionMode = "deferred"): Promise<ResultSet[]> {
    return this.withConnection((c) => {
      c.execute(beginFor(mode));
      const results = runBatch(c, stmts);
      c.execute("COMMIT");
      return results;
    });
  }

  async migrate(stmts: InStatement[]): Promise<ResultSet[]> {
    return this.withConnection((c) => {
      c.execute("PRAGMA foreign_keys=off");
      try {
        c.execute("BEGIN DEFERRED");
        const results = runBatch(c, stmts);
        c.execute("COMMIT");
        return results;
      } finally {
        if (c.inTransaction) c.execute("ROLLBACK");
        c.execute("PRAGMA foreign_keys=on");
        this.pool.schemaChanged();
      }
    });
  }

  async transaction(mode: TransactionMode = "write"): Promise<Transaction> {
    this.checkOpen();
    const connection = await this.pool.acquire(true);
    try {
      this.checkUsable(connection);
      connection.execute(beginFor(mode));
    } catch (err) {
      this.pool.release(connection);
      throw err;
    }
    return new EmbeddedTransaction(connection, (c) => this.pool.release(c));
  }

  async executeMultiple(sql: string): Promise<void> {
    return this.withConnection((c) => c.exec(sql));
  }

  async sync(): Promise<Replicated> {
    throw new LibsqlError("sync() is for embedded replicas, which this client does not open", "SYNC_NOT_SUPPORTED");
  }

  close(): void {
    this.closed = true;
    this.pool.close();
  }

  reconnect(): void {
    this.pool.reopen();
    this.closed = false;
  }

  private async withConnection<T>(work: (c: Connection) => T): Promise<T> {
    this.checkOpen();
    const connection = await this.pool.acquire();
    try {
      this.checkUsable(connection);
      return work(connection);
    } finally {
      this.pool.release(connection);
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new LibsqlError("The client is closed", "CLIENT_CLOSED");
  }

  /** `close()` can land between a borrow and its use. */
  private checkUsable(connection: Connection): void {
    this.checkOpen();
    if (!connection.native.open) throw new LibsqlError("The connection was closed while this operation was in flight", "CLIENT_CLOSED");
  }
}

class EmbeddedTransaction implements Transaction {
  /** Null once the connection went back to the pool. */
  private connection: Connection | null;

  constructor(
    connection: Connection,
    private readonly release: (c: Connection) => void,
  ) {
    this.connection = connection;
  }

  async execute(stmt: InStatement): Promise<ResultSet> {
    return this.open().execute(stmt);
  }

  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    return runBatch(this.open(), stmts, () => this.open());
  }

  async executeMultiple(sql: string): Promise<void> {
    this.open().exec(sql);
  }

  async rollback(): Promise<void> {
    this.close();
  }

  async commit(): Promise<void> {
    try {
      this.open().execute("COMMIT");
    } finally {
      this.settle();
    }
  }

  /** Rolls back what is still open and gives the connection back; nothing once settled. */
  close(): void {
    const connection = this.connection;
    if (!connection) return;
    try {
      if (connection.inTransaction) connection.execute("ROLLBACK");
    } finally {
      this.settle();
    }
  }

  get closed(): boolean {
    return !this.connection || !this.connection.inTransaction;
  }

  private open(): Connection {
    if (this.closed) throw new LibsqlError("The transaction is closed", "TRANSACTION_CLOSED");
    return this.connection!;
  }

  private settle(): void {
    const connection = this.connection;
    if (!connection) return;
    this.connection = null;
    this.release(connection);
  }
}

class EmbeddedResultSet implements ResultSet {
  constructor(
    readonly columns: string[],
    readonly columnTypes: string[],
    readonly rows: Row[],
    readonly rowsAffected: number,
    readonly lastInsertRowid: bigint | undefined,
  ) {}

  toJSON() {
    return {
      columns: this.columns,
      columnTypes: this.columnTypes,
      rows: this.rows.map((row) => Array.prototype.map.call(row, (v) => (typeof v === "bigint" ? String(v) : v instanceof ArrayBuffer ? Buffer.from(v).toString("base64") : v))),
      rowsAffected: this.rowsAffected,
      lastInsertRowid: this.lastInsertRowid === undefined ? null : String(this.lastInsertRowid),
    };
  }
}

function runBatch(connection: Connection, stmts: Array<InStatement | [string, InArgs?]>, current: () => Connection = () => connection): ResultSet[] {
  const results: ResultSet[] = [];
  for (let i = 0; i < stmts.length; i++) {
    const stmt = stmts[i]!;
    try {
      const c = current();
      if (!c.inTransaction) throw new LibsqlBatchError("The transaction has been rolled back", i, "TRANSACTION_CLOSED");
      results.push(c.execute(Array.isArray(stmt) ? { sql: stmt[0], args: stmt[1] ?? [] } : stmt));
    } catch (err) {
      if (err instanceof LibsqlBatchError) throw err;
      if (err instanceof LibsqlError) throw new LibsqlBatchError(err.message, i, err.code, err.extendedCode, err.rawCode, err.cause instanceof Error ? err.cause : undefined);
      throw err;
    }
  }
  return results;
}

function beginFor(mode: TransactionMode): string {
  if (mode === "write") return "BEGIN IMMEDIATE";
  if (mode === "read") return "BEGIN TRANSACTION READONLY";
  if (mode === "deferred") return "BEGIN DEFERRED";
  throw new RangeError('Unknown transaction mode, supported values are "write", "read" and "deferred"');
}

function normalize(stmt: InStatement): { sql: string; args: unknown[] | Record<string, unknown> } {
  if (typeof stmt === "string") return { sql: stmt, args: [] };
  const { sql, args } = stmt;
  if (args === undefined) return { sql, args: [] };
  if (Array.isArray(args)) return { sql, args: args.map(toSqlValue) };
  const named: Record<string, unknown> = {};
  for (const name in args) {
    const bare = name[0] === "@" || name[0] === "$" || name[0] === ":" ? name.slice(1) : name;
    named[bare] = toSqlValue(args[name]!);
  }
  return { sql, args: named };
}

function toSqlValue(value: InValue): unknown {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new RangeError("Only finite numbers (not Infinity or NaN) can be passed as arguments");
      return value;
    case "bigint":
      if (value < MIN_INTEGER || value > MAX_INTEGER) throw new RangeError("bigint is too large to be represented as a 64-bit integer and passed as argument");
      return value;
    case "boolean":
      return value ? 1 : 0;
    case "undefined":
      throw new TypeError("undefined cannot be passed as argument to the database");
  }
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  if (value instanceof Date) return value.valueOf();
  return value;
}

function fromSqlValue(value: unknown): unknown {
  if (typeof value === "bigint") {
    if (value < MIN_SAFE || value > MAX_SAFE) throw new RangeError("Received integer which cannot be safely represented as a JavaScript number");
    return Number(value);
  }
  if (value instanceof Buffer) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
  return value;
}

/** A row as `@libsql/client` shapes it: by index (not enumerable) and by column name (the first of equal names). */
function toRow(values: unknown[], columns: string[]): Row {
  const row: Record<string | number, unknown> = {};
  for (let i = 0; i < values.length; i++) {
    const value = fromSqlValue(values[i]);
    Object.defineProperty(row, i, { value });
    const column = columns[i]!;
    if (!Object.hasOwn(row, column)) row[column] = value;
  }
  Object.defineProperty(row, "length", { value: values.length });
  return row as unknown as Row;
}

function toLibsqlError(err: unknown): unknown {
  if (err instanceof Database.SqliteError) {
    const e = err as Error & { code: string; rawCode?: number };
    const base = e.rawCode === undefined ? "SQLITE_UNKNOWN" : (SQLITE_CODES[e.rawCode & 0xff] ?? `SQLITE_UNKNOWN_${e.rawCode & 0xff}`);
    return new LibsqlError(e.message, base, e.code, e.rawCode, e);
  }
  return err;
}

const SQLITE_CODES: Record<number, string> = {
  1: "SQLITE_ERROR",
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  16: "SQLITE_EMPTY",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  24: "SQLITE_FORMAT",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
  27: "SQLITE_NOTICE",
  28: "SQLITE_WARNING",
};
