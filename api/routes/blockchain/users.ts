import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { notFound } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { IdParam } from "../params.ts";

/**
 * GET /api/blockchain/user/{id}/type     the user's role
 * GET /api/blockchain/user/{id}/wallet   the user's wallet address
 * (Spec: "not shown". Only about oneself: anyone else is 404.)
 */
export function blockchainUserRoutes(ctx: AppContext) {
  const self = (c: Parameters<typeof requireUser>[0], id: number) => {
    const user = requireUser(c);
    if (user.id !== id) throw notFound();
    return user;
  };
  return new Hono<AppBindings>()
    .get("/user/:id/type", validate("param", IdParam), (c) => {
      c.header("Cache-Control", "private, no-store");
      return c.json({ type: self(c, c.req.valid("param").id).role });
    })
    .get("/user/:id/wallet", validate("param", IdParam), async (c) => {
      c.header("Cache-Control", "private, no-store");
      const user = self(c, c.req.valid("param").id);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      return c.json({ address: wallet ? toXdcAddress(wallet.address) : null });
    });
}
