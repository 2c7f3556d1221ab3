import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { exportRoutes } from "./export.ts";
import { sendRoutes } from "./send.ts";
import { onrampRoutes } from "./onramp.ts";
import { tokenCatalogueRoutes } from "./tokens.ts";
import { walletHistoryRoutes } from "./history.ts";
import { cashoutRoutes } from "./cashout.ts";

/**
 * The wallet's features beyond balances (spec section 7 and the Wallet
 * issue): private-key export, sending, buying and selling XDC for INR, and
 * the token catalogue. Mounted under /api/wallet beside walletRoutes (whose
 * middleware marks every /api/wallet answer `private, no-store`).
 * See docs/wallet.md.
 */
export function walletFeatureRoutes(ctx: AppContext) {
  return new Hono<AppBindings>()
    .route("/", exportRoutes(ctx))
    .route("/", sendRoutes(ctx))
    .route("/", onrampRoutes(ctx))
    .route("/", tokenCatalogueRoutes(ctx))
    .route("/", walletHistoryRoutes(ctx))
    .route("/", cashoutRoutes(ctx));
}
