import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";

/**
 * The wallet's features beyond balances (spec section 7 and the Wallet
 * issue): private-key export, sending, buying and selling XDC for INR.
 * Mounted under /api/wallet beside walletRoutes.
 */
export function walletFeatureRoutes(_ctx: AppContext) {
  return new Hono<AppBindings>();
}
