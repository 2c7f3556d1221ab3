import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { requireSession } from "../../middleware/session.ts";
import { issueVscodeToken, revokeVscodeTokens } from "../../services/auth/vscode.ts";
import { audit } from "../../services/audit.ts";

/**
 * GET  /api/auth/vscode/finalize-onboarding   hands the editor a token via vscode://
 * POST /api/auth/vscode/revoke                 revokes every editor token of the user
 */
export function vscodeRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .get("/finalize-onboarding", async (c) => {
      c.header("Cache-Control", "no-store");
      const user = c.get("session") ? c.get("user") : undefined;
      if (!user) return c.redirect("/auth?source=vscode&from_vscode=true", 302);
      if (!user.isProfileComplete) return c.redirect("/auth?registration=true&source=vscode", 302);
      // A GET that creates a token answers only navigations from this site's own pages (Sec-Fetch-Site, which
      // pages cannot forge, as for the on-ramp URLs): a link or redirect from another site lands on the
      // editor's wallet page, whose "Connect VS Code" button comes back here from this site. (After GitHub's
      // sign-in the callback hands over itself: github.ts.)
      const site = c.req.header("sec-fetch-site");
      if (site !== undefined && site !== "same-origin") return c.redirect("/vscode/wallet", 303);
      return c.redirect(await vscodeHandoffUrl(ctx, user.id), 302);
    })
    .post("/revoke", async (c) => {
      const { user } = requireSession(c);
      const revoked = await revokeVscodeTokens(ctx.database.db, user.id);
      await audit(ctx.database.db, { userId: user.id, action: "vscode_tokens_revoked", detail: { revoked } });
      return c.json({ success: true, revoked });
    });
}

/** Issues an editor token for `userId` and returns the editor URL that carries it (VSCODE_REDIRECT_URI). */
export async function vscodeHandoffUrl(ctx: AppContext, userId: number): Promise<string> {
  const { token, expiresAt } = await issueVscodeToken(ctx.database.db, userId);
  await audit(ctx.database.db, { userId, action: "vscode_token_issued", detail: { expiresAt: expiresAt.toISOString() } });
  const target = new URL(ctx.env.VSCODE_REDIRECT_URI);
  target.searchParams.set("token", token);
  target.searchParams.set("expiresAt", expiresAt.toISOString());
  return target.toString();
}
