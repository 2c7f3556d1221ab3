import { z } from "@hono/zod-openapi";
import { orNull } from "./declare.ts";
import { ROLES } from "../../db/schema/users.ts";
import { AWAITING_REASONS, BOUNTY_STATUSES } from "../../db/schema/bounties.ts";
import { BOUNTY_STATES } from "../services/money/bounty-state.ts";
import { CURRENCIES } from "../../lib/money.ts";

/**
 * Response shapes more than one area answers with. Area-only shapes live in
 * their route module, beside the declaration that uses them.
 */
export const Role = z.enum(ROLES);

/** Whole units as a decimal string, no trailing zeros ("12.5"). */
export const Amount = z.string().regex(/^\d+(\.\d+)?$/).openapi("Amount", { description: "Whole units as a decimal string, no trailing zeros" });
/** The token's smallest unit as an integer string. */
export const Wei = z.string().regex(/^\d+$/).openapi("Wei", { description: "The token's smallest unit, as an integer string" });
/** An address in `xdc…` form. */
export const XdcAddress = z.string().regex(/^xdc[0-9a-fA-F]{40}$/).openapi("XdcAddress");
export const Timestamp = z.string().openapi("Timestamp", { description: "ISO 8601, UTC" });
export const TxHash = z.string().openapi("TransactionHash", { description: "0x… transaction hash" });
export const Token = z.enum(CURRENCIES);

/** The user object (GET /api/auth/user, registration). */
export const UserObject = z
  .object({
    id: z.number().int(),
    username: z.string(),
    name: z.string().nullable(),
    githubUsername: z.string(),
    email: z.string().nullable(),
    avatarUrl: z.string().nullable(),
    bio: z.string().nullable(),
    location: z.string().nullable(),
    website: z.string().nullable(),
    role: Role.nullable(),
    isProfileComplete: z.boolean(),
    xdcWalletAddress: orNull(XdcAddress),
  })
  .openapi("User");

export const Success = z.object({ success: z.literal(true) });

/** What every money-moving call answers (docs/api.md, "Transaction result"). */
export const TransactionResult = z
  .object({
    transactionHash: TxHash,
    status: z.enum(["pending", "confirmed"]),
    message: z.string(),
    explorerUrl: z.string().nullable(),
    queuedUntil: z.string().optional().meta({
      description: "A payout or withdrawal over the contract's daily outflow cap waits in its queue until this time (ISO 8601), unless the guardian cancels it",
    }),
  })
  .openapi("TransactionResult");

/** One daily funding limit's figure (api/services/money/limits.ts; docs/api.md, "Daily funding limits"). */
export const LimitFigure = z
  .object({
    scope: z.enum(["repository", "funder"]).meta({ description: "repository: XDC pool fundings into this repository by anyone; funder: the person's XDC pool fundings and XDC boosts" }),
    dailyLimitXdc: Amount,
    usedXdc: Amount.meta({ description: "What counts in the rolling 24 h window now (pending transactions included)" }),
    remainingXdc: Amount.meta({ description: "dailyLimitXdc − usedXdc, never below 0" }),
    resetsAt: orNull(Timestamp).meta({ description: "When the oldest counted amount leaves the window and the figure grows; null when nothing counts" }),
  })
  .openapi("LimitFigure");

/** Per currency, as decimals. */
export const PerCurrency = z.object({ XDC: Amount, ROXN: Amount, USDC: Amount }).openapi("AmountsPerCurrency");

/** An open issue as the platform reads it from GitHub. */
export const IssueSummary = z
  .object({
    id: z.number().int(),
    number: z.number().int(),
    title: z.string(),
    state: z.enum(["open", "closed"]),
    html_url: z.string(),
    body: z.string().nullable(),
    labels: z.array(z.object({ id: z.number().int(), name: z.string(), color: z.string(), description: z.string().nullable().optional() })),
    comments: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    author: z.string().nullable(),
  })
  .openapi("Issue");

/** A repository's public details from GitHub. */
export const RepositoryInfo = z
  .object({
    id: z.number().int(),
    name: z.string(),
    full_name: z.string(),
    description: z.string().nullable(),
    html_url: z.string(),
    private: z.boolean(),
    stargazers_count: z.number().int(),
    forks_count: z.number().int(),
    created_at: z.string().nullable(),
    updated_at: z.string().nullable(),
    pushed_at: z.string().nullable(),
    owner: z.object({ login: z.string(), avatar_url: z.string().optional() }),
    contributors_count: z.number().int().nullable(),
  })
  .openapi("GitHubRepository");

/** A bounty as GET /api/blockchain/issue-bounty answers it (amounts in the other currencies are "0"). */
/** Who funded a bounty beyond its pool (issue 29): anonymous funders without their login. */
export const BountyFunder = z
  .object({
    funder: z.string().nullable().meta({ description: "GitHub login; null when the funder chose to be anonymous" }),
    amount: z.string().meta({ description: "The funder's share, decimal" }),
    fundedAt: z.string(),
    expiresAt: z.string().nullable(),
  })
  .openapi("BountyFunder");

export const BountyObject = z
  .object({
    issueId: z.number().int().meta({ description: "The GitHub issue number" }),
    isRoxn: z.boolean(),
    currency: Token,
    xdcAmount: Amount,
    roxnAmount: Amount,
    usdcAmount: Amount,
    status: z.enum(BOUNTY_STATUSES),
    recipient: z.string().nullable(),
    transactionHash: z.string().nullable(),
    state: z.enum(BOUNTY_STATES).meta({ description: "The platform's state (docs/design.md, \"A bounty's life\"): open, claimed, awaiting (the pool manager's decision), held (for a GitHub user until they register), releasing (shared among a merged pull request's people after a release window), paying (its payout sent, not yet mirrored as paid), paid, cancelled" }),
    heldFor: z.string().nullable().meta({ description: "GitHub login the bounty is held for" }),
    awaitingReason: z.enum(AWAITING_REASONS).nullable(),
    issueTitle: z.string().nullable(),
    issueUrl: z.string().nullable(),
    total: Amount.meta({ description: "The whole bounty: the pool's share (xdcAmount, roxnAmount or usdcAmount) plus the funders' active shares (boosted); the figure every page shows" }),
    boosted: Amount.meta({ description: "The funders' active shares, decimal, on top of the pool's share (issue 29)" }),
    funders: z.array(BountyFunder),
  })
  .openapi("Bounty");
