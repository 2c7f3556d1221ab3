import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { requireUser } from "../../middleware/session.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { walletTokens } from "../../services/wallets/tokens.ts";

/** GET /api/wallet/tokens -> { tokens: [{ symbol, name, decimals, contractAddress, explorerUrl }], walletExplorerUrl } */
export function tokenCatalogueRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().get("/tokens", async (c) => {
    const user = requireUser(c);
    const wallet = await walletOfUser(ctx.database.db, user.id);
    return c.json(walletTokens(ctx, wallet?.address ?? null));
  });
}
