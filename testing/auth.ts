import { sql } from "drizzle-orm";
import type { TestContext } from "./context.ts";
import { users, type Role, type User } from "../db/schema/index.ts";
import { createSession } from "../api/services/auth/sessions.ts";
import { csrfTokenFor } from "../api/services/auth/csrf.ts";
import { registerUser } from "../api/services/users/register.ts";
import { sessionCookieName } from "../api/middleware/cookies.ts";

let nextGithubId = 900_000;

/** A user as sign-in would create one; `registered` also creates the wallet. */
export async function createTestUser(
  t: TestContext,
  options: { username?: string; role?: Role; registered?: boolean; githubId?: number; email?: string } = {},
): Promise<User> {
  const githubId = options.githubId ?? nextGithubId++;
  const [user] = await t.ctx.database.db
    .insert(users)
    .values({ githubId, username: options.username ?? `user${githubId}`, email: options.email ?? `user${githubId}@example.com` })
    .returning();
  if (options.registered === false || (!options.registered && !options.role)) return user!;
  await registerUser(t.ctx, { user: user!, role: options.role ?? "contributor", email: user!.email! });
  const [fresh] = await t.ctx.database.db.select().from(users).where(sql`${users.id} = ${user!.id}`);
  return fresh!;
}

export interface TestSession {
  user: User;
  cookie: string;
  csrfToken: string;
  sessionId: string;
  /** The client address this browser appears to come from. */
  ip: string;
}

let nextIp = 1;
const freshIp = () => `10.${(nextIp >> 16) & 255}.${(nextIp >> 8) & 255}.${nextIp++ & 255}`;

export async function signInAs(t: TestContext, user: User): Promise<TestSession> {
  const { token, session } = await createSession(t.ctx.database.db, user.id);
  return {
    user,
    cookie: `${sessionCookieName(t.env)}=${token}`,
    csrfToken: await csrfTokenFor(t.ctx.appSecret, session.id),
    sessionId: session.id,
    ip: freshIp(),
  };
}

export interface CallOptions {
  method?: string;
  body?: unknown;
  as?: TestSession;
  /** true (default): send the session's token; false: none; a string: that token. */
  csrf?: boolean | string;
  /** Defaults to the site's own origin. */
  origin?: string | null;
  /** Client address (X-Forwarded-For; the test app trusts it). Defaults to the session's. */
  ip?: string;
  headers?: Record<string, string>;
  /** A multipart body (uploads); the boundary header is set by the request. */
  form?: FormData;
}

/** A request to the app as a browser on this site would send it. */
export async function call(t: TestContext, path: string, options: CallOptions = {}): Promise<Response> {
  const method = options.method ?? (options.body === undefined && options.form === undefined ? "GET" : "POST");
  const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
  if (options.as) headers.Cookie = options.as.cookie;
  const ip = options.ip ?? options.as?.ip;
  if (ip) headers["X-Forwarded-For"] = ip;
  const origin = options.origin === undefined ? new URL(t.env.PUBLIC_URL).origin : options.origin;
  if (origin && method !== "GET" && method !== "HEAD") headers.Origin = origin;
  const csrf = options.csrf ?? true;
  if (options.as && csrf !== false && method !== "GET" && method !== "HEAD") {
    headers["X-CSRF-Token"] = typeof csrf === "string" ? csrf : options.as.csrfToken;
  }
  let body: string | FormData | undefined = options.form;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  }
  return t.app.request(path, { method, headers, body });
}

/** A digest of every row of every table: equal before and after means nothing changed. */
export async function databaseDigest(t: TestContext, ignore: string[] = ["rate_limits", "__drizzle_migrations"]): Promise<string> {
  const tables = await t.ctx.database.db.all<{ name: string; withoutRowid: number }>(
    sql`select name, sql like '%WITHOUT ROWID%' as withoutRowid from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`,
  );
  const hasher = new Bun.CryptoHasher("sha256");
  for (const { name, withoutRowid } of tables) {
    if (ignore.includes(name)) continue;
    // A WITHOUT ROWID table (the full-text index's shadow tables) reads in its primary key's order.
    const rows = await t.ctx.database.client.execute(`select * from "${name}"${Number(withoutRowid) ? "" : " order by rowid"}`);
    hasher.update(name);
    hasher.update(JSON.stringify(rows.rows, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
  }
  return hasher.digest("hex");
}
