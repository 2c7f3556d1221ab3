import { declareRoute, json, USER } from "../../openapi/declare.ts";
import { Role } from "../../openapi/shapes.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireUser } from "../../middleware/session.ts";
import { notFound } from "../../errors.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { ownerName, positiveId } from "../params.ts";
import { parseAddress } from "../../chain/address.ts";
import { z } from "zod";
import type { User } from "../../../db/schema/index.ts";

/** Spec section 7: `{id}` is the user id, a wallet address (0x… or xdc…) or a GitHub username. */
const UserRef = z.object({
  id: z.union([positiveId, z.string().regex(/^(0x|xdc)[0-9a-fA-F]{40}$/i), ownerName], { message: "must be a user id, a wallet address or a GitHub username" }),
});

/**
 * GET /api/blockchain/user/{id}/type     the user's role
 * GET /api/blockchain/user/{id}/wallet   the user's wallet address
 * `{id}`: the user id, the user's wallet address (0x… or xdc…) or GitHub username.
 * (Spec: "not shown". Only about oneself: anyone else is 404.)
 */
export function blockchainUserRoutes(ctx: AppContext) {
  const self = async (c: Parameters<typeof requireUser>[0], id: number | string): Promise<User> => {
    const user = requireUser(c);
    if (typeof id === "number") {
      if (user.id !== id) throw notFound();
      return user;
    }
    const address = parseAddress(id);
    if (address) {
      const wallet = await walletOfUser(ctx.database.db, user.id);
      if (!wallet || wallet.address.toLowerCase() !== address.toLowerCase()) throw notFound();
      return user;
    }
    if (user.username.toLowerCase() !== id.toLowerCase()) throw notFound();
    return user;
  };
  return new Hono<AppBindings>()
    .get("/user/:id/type", validate("param", UserRef), async (c) => {
      c.header("Cache-Control", "private, no-store");
      return c.json({ type: (await self(c, c.req.valid("param").id)).role });
    })
    .get("/user/:id/wallet", validate("param", UserRef), async (c) => {
      c.header("Cache-Control", "private, no-store");
      const user = await self(c, c.req.valid("param").id);
      const wallet = await walletOfUser(ctx.database.db, user.id);
      return c.json({ address: wallet ? toXdcAddress(wallet.address) : null });
    });
}

export const blockchainUsersApi = [
  declareRoute({
    method: "get", path: "/api/blockchain/user/{id}/type", operationId: "getUserType", tags: ["blockchain"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "The user's own role (anyone else: 404)",
    request: { params: UserRef },
    responses: { 200: json("The role", z.object({ type: Role.nullable() })) },
  }),
  declareRoute({
    method: "get", path: "/api/blockchain/user/{id}/wallet", operationId: "getUserWallet", tags: ["blockchain"], security: USER,
    errors: ["not_found", "validation_failed"],
    summary: "The user's own wallet address (anyone else: 404)",
    request: { params: UserRef },
    responses: { 200: json("The address", z.object({ address: z.string().nullable() })) },
  }),
];
