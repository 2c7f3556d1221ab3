import { and, eq } from "drizzle-orm";
import type { DatabaseDeps } from "../../context.ts";
import { bountyClaims, repositories, type User } from "../../../db/schema/index.ts";

/**
 * Whether the onboarding dialogs should open by themselves for this account (issue 38: the Welcome and Pool Manager
 * Guide dialogs opened for alice, who already runs five repositories, on every new browser). New: a pool manager who
 * has registered no repository, a contributor who has registered for no issue, anyone without a role yet. The seen
 * flags stay per browser (spec section 2); this only keeps the guides from people who have done what they teach.
 */
export async function isNewAccount(ctx: DatabaseDeps, user: Pick<User, "id" | "role">): Promise<boolean> {
  const db = ctx.database.db;
  if (user.role === "poolmanager") {
    const [one] = await db.select({ id: repositories.githubRepoId }).from(repositories).where(eq(repositories.registeredByUserId, user.id)).limit(1);
    return !one;
  }
  if (user.role === "contributor") {
    const [one] = await db.select({ id: bountyClaims.userId }).from(bountyClaims).where(and(eq(bountyClaims.userId, user.id))).limit(1);
    return !one;
  }
  return true;
}
