import type { Context } from "hono";
import type { AppContext } from "../../context.ts";
import { readSessionCookie } from "../../middleware/cookies.ts";
import { validateSessionToken } from "./sessions.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { toUserObject, type UserObject } from "../users/user-object.ts";

/**
 * Who is viewing a page rendered on demand (the API routes get the same from
 * loadSession). Only guarded, uncached pages call this: cached public pages
 * must not depend on the viewer.
 */
export async function currentViewer(ctx: Pick<AppContext, "env" | "database">, c: Context): Promise<UserObject | null> {
  const token = readSessionCookie(c, ctx.env);
  if (!token) return null;
  const found = await validateSessionToken(ctx.database.db, token);
  if (!found) return null;
  return toUserObject(found.user, await walletOfUser(ctx.database.db, found.user.id));
}
