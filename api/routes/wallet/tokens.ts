import { declareRoute, json, USER, z } from "../../openapi/declare.ts";
import { Hono } from "hono";
import type { AppBindings, AppContext } from "../../context.ts";
import { requireUser } from "../../middleware/session.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";
import { walletTokens } from "../../services/wallets/tokens.ts";
import { Token } from "../../openapi/shapes.ts";

/** GET /api/wallet/tokens -> { tokens: [{ symbol, name, decimals, contractAddress, explorerUrl }], walletExplorerUrl } */
export function tokenCatalogueRoutes(ctx: AppContext) {
  return new Hono<AppBindings>().get("/tokens", async (c) => {
    const user = requireUser(c);
    const wallet = await walletOfUser(ctx.database.db, user.id);
    return c.json(walletTokens(ctx, wallet?.address ?? null));
  });
}

export const tokensApi = [
  declareRoute({
    method: "get", path: "/api/wallet/tokens", operationId: "listWalletTokens", tags: ["wallet"], security: USER,
    summary: "The tokens the wallet holds, with explorer links",
    responses: {
      200: json("The catalogue", z.object({
        tokens: z.array(z.object({
          symbol: Token, name: z.string(), decimals: z.number().int(),
          contractAddress: z.string().nullable(), explorerUrl: z.string().nullable(),
        })),
        walletExplorerUrl: z.string().nullable(),
      })),
    },
  }),
];
