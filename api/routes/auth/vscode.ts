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
      const { token, expiresAt } = await issueVscodeToken(ctx.database.db, user.id);
      await audit(ctx.database.db, { userId: user.id, action: "vscode_token_issued", detail: { expiresAt: expiresAt.toISOString() } });
      const target = new URL(ctx.env.VSCODE_REDIRECT_URI);
      target.searchParams.set("token", token);
      target.searchParams.set("expiresAt", expiresAt.toISOString());
      return c.redirect(target.toString(), 302);
    })
    .post("/revoke", async (c) => {
      const { user } = requireSession(c);
      const revoked = await revokeVscodeTokens(ctx.database.db, user.id);
      await audit(ctx.database.db, { userId: user.id, action: "vscode_tokens_revoked", detail: { revoked } });
      return c.json({ success: true, revoked });
    });
}
