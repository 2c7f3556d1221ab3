import { Hono } from "hono";
import { ANONYMOUS, declareRoute, json, SESSION_WRITE, z } from "../../openapi/declare.ts";
import { Amount, PerCurrency, Timestamp, Token, TxHash, XdcAddress } from "../../openapi/shapes.ts";
import type { AppBindings, AppContext } from "../../context.ts";
import { validate } from "../../validate.ts";
import { requireSession } from "../../middleware/session.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { toXdcAddress } from "../../chain/address.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { NETWORKS } from "../../chain/networks.ts";
import { publicProfile, setWalletAddressShown, type PublicProfile } from "../../services/users/public-profile.ts";
import type { Currency } from "../../../db/schema/index.ts";
import type { Env } from "../../env.ts";

/**
 * GET   /api/contributors/{login}           a contributor's public profile (cached until a payout, claim or repository changes)
 * PATCH /api/user/profile-visibility        { showWalletAddress }: the owner shows or hides their wallet address there
 */
export function contributorRoutes(ctx: Pick<AppContext, "database" | "env">) {
  return new Hono<AppBindings>().get("/:login", validate("param", LoginParam), async (c) => {
    const profile = await publicProfile(ctx, c.req.valid("param").login);
    c.header("X-Page-Cache", "max-age=60; tags=repositories,claims,contributors");
    return c.json(profileAnswer(profile, ctx.env));
  });
}

export function profileVisibilityRoutes(ctx: Pick<AppContext, "database" | "changes">) {
  return new Hono<AppBindings>().patch("/profile-visibility", validate("json", VisibilityBody), async (c) => {
    const { user } = requireSession(c);
    const { showWalletAddress } = c.req.valid("json");
    await setWalletAddressShown(ctx, user.id, showWalletAddress);
    ctx.changes.publish(["contributors"]);
    return c.json({ success: true as const, showWalletAddress });
  });
}

const dec = (amount: bigint, currency: Currency) => toDecimalString(amount, DECIMALS[currency]);

/** The profile as the API and the page show it: decimals, ISO times, xdc… address, explorer links. */
export function profileAnswer(p: PublicProfile, env: Pick<Env, "CHAIN">) {
  const network = NETWORKS[env.CHAIN]!;
  return {
    login: p.login,
    name: p.name,
    avatarUrl: p.avatarUrl,
    bio: p.bio,
    walletAddress: p.walletAddress ? toXdcAddress(p.walletAddress) : null,
    totals: { count: p.totals.count, earned: { XDC: dec(p.totals.earned.XDC, "XDC"), ROXN: dec(p.totals.earned.ROXN, "ROXN"), USDC: dec(p.totals.earned.USDC, "USDC") } },
    earned: p.earned.map((e) => ({
      repository: e.repository, issueNumber: e.issueNumber, title: e.title, url: e.url, currency: e.currency, amount: dec(e.amount, e.currency),
      paidAt: e.paidAt?.toISOString() ?? null, transactionHash: e.txHash, explorerUrl: e.txHash ? explorerTxUrl(network, e.txHash) : null,
    })),
    repositories: p.repositories,
    workingOn: p.workingOn.map((w) => ({ repository: w.repository, issueNumber: w.issueNumber, title: w.title, url: w.url, currency: w.currency, amount: dec(w.amount, w.currency) })),
  };
}

const LoginParam = z.object({ login: z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/).meta({ example: "octocat" }) });
const VisibilityBody = z.object({ showWalletAddress: z.boolean() });

const Profile = z
  .object({
    login: z.string(), name: z.string().nullable(), avatarUrl: z.string().nullable(), bio: z.string().nullable(),
    walletAddress: z.union([XdcAddress, z.null()]).meta({ description: "Only when its owner chose to show it" }),
    totals: z.object({ count: z.number().int(), earned: PerCurrency }),
    earned: z.array(z.object({
      repository: z.string(), issueNumber: z.number().int(), title: z.string().nullable(), url: z.string().nullable(), currency: Token, amount: Amount,
      paidAt: z.union([Timestamp, z.null()]), transactionHash: z.union([TxHash, z.null()]), explorerUrl: z.string().nullable(),
    })),
    repositories: z.array(z.string()),
    workingOn: z.array(z.object({ repository: z.string(), issueNumber: z.number().int(), title: z.string().nullable(), url: z.string().nullable(), currency: Token, amount: Amount })),
  })
  .openapi("ContributorProfile");

export const contributorsApi = [
  declareRoute({
    method: "get", path: "/api/contributors/{login}", operationId: "getContributorProfile", tags: ["public"], security: ANONYMOUS,
    errors: ["not_found", "validation_failed"],
    summary: "A contributor's public profile: bounties earned (newest 50), repositories contributed to, what they work on now",
    request: { params: LoginParam },
    responses: { 200: json("The profile", Profile) },
  }),
  declareRoute({
    method: "patch", path: "/api/user/profile-visibility", operationId: "setProfileVisibility", tags: ["auth"], security: SESSION_WRITE,
    errors: ["validation_failed"],
    summary: "Shows or hides the signed-in user's wallet address on their public profile (hidden by default)",
    request: { body: { content: { "application/json": { schema: VisibilityBody } }, required: true } },
    responses: { 200: json("Saved", z.object({ success: z.literal(true), showWalletAddress: z.boolean() })) },
  }),
];
