import { and, eq, sql } from "drizzle-orm";
import type { Address } from "viem";
import type { AppContext } from "../../context.ts";
import { cashouts, cashoutSettings, chainEvents, repositories, rewardArrivals, users, wallets, type Currency } from "../../../db/schema/index.ts";
import { parseAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { formatExact } from "../../../lib/money-format.ts";
import { rewardArrivedMail } from "../../mail/cashout-templates.ts";
import { readEventFeed, type ChainEvent } from "../statements/event-feed.ts";
import { eventKey } from "../statements/record-prices.ts";
import { pullNumberOf } from "../statements/items.ts";
import { confirmCashout, quoteCashout } from "./orders.ts";
import { cashoutLink } from "./links.ts";

/**
 * "A reward arrived" (issue 40): a confirmed payout to a platform wallet, as the indexer recorded it from the
 * contract (BountyPaid, a split's BountySharePaid, TipPaid, Tipped). Each is handled once (reward_arrivals, unique
 * per event): if its owner asked for automatic cash-out above a threshold, the cash-out starts (one per reward:
 * cashouts.reward_key is unique), and a mail says what arrived, with a "Cash out to UPI" link, or that the
 * automatic cash-out started, or why it did not (the crypto is then simply kept).
 */
export const REWARD_EVENTS = ["BountyPaid", "BountySharePaid", "TipPaid", "Tipped"];
/** A reward indexed longer ago than this is not announced (a first start on an old database, a long outage). */
export const REWARD_FRESH_MS = 60 * 60_000;

type Deps = Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "appSecret" | "mailer">;

interface Reward {
  key: string;
  event: ChainEvent;
  recipient: Address;
  currency: Currency;
  amount: bigint;
}

function rewardOf(event: ChainEvent): Reward | undefined {
  const args = JSON.parse(event.args) as Record<string, string | number>;
  const recipient = parseAddress(String(event.name === "BountyPaid" ? args.contributor : args.recipient));
  const amount = BigInt(String(event.name === "Tipped" ? args.net : args.amount));
  const currency = CURRENCY_BY_INDEX[Number(args.currency)];
  if (!recipient || !currency || amount <= 0n) return undefined;
  return { key: eventKey(event), event, recipient, currency, amount };
}

/** One pass: the rewards indexed since the last one. */
export async function handleArrivedRewards(ctx: Deps, now = Date.now()): Promise<number> {
  const db = ctx.database.db;
  const chainId = ctx.chain.config.chain.id;
  const feed = await readEventFeed(db, { cursor: `reward-arrivals:${chainId}`, chainId, names: REWARD_EVENTS, freshMs: REWARD_FRESH_MS, now });
  let handled = 0;
  for (const event of feed.events) {
    // A split payout's BountyPaid carries the whole amount; each person's share is its BountySharePaid.
    if (event.name === "BountyPaid") {
      const [share] = await db.select({ id: chainEvents.id }).from(chainEvents).where(and(eq(chainEvents.txHash, event.txHash), eq(chainEvents.name, "BountySharePaid"))).limit(1);
      if (share) continue;
    }
    const reward = rewardOf(event);
    if (!reward) continue;
    const [owner] = await db.select({ userId: wallets.userId }).from(wallets).where(eq(wallets.address, reward.recipient));
    if (!owner) continue; // not one of ours
    const [arrival] = await db
      .insert(rewardArrivals)
      .values({ eventKey: reward.key, userId: owner.userId, currency: reward.currency, amount: reward.amount, repoId: event.repoId, issueNumber: event.issueNumber, txHash: event.txHash })
      .onConflictDoNothing()
      .returning();
    if (!arrival) continue; // seen before
    await handleReward(ctx, reward, arrival.id, owner.userId);
    handled++;
  }
  if (feed.events.length) await feed.advance(feed.events[feed.events.length - 1]!.id);
  return handled;
}

async function handleReward(ctx: Deps, reward: Reward, arrivalId: number, userId: number): Promise<void> {
  const db = ctx.database.db;
  const [user] = await db.select().from(users).where(eq(users.id, userId));
  if (!user) return;
  const auto = await automaticCashout(ctx, reward, user);
  await db.update(rewardArrivals).set({ cashoutId: auto.cashoutId ?? null, note: auto.note }).where(eq(rewardArrivals.id, arrivalId));
  if (!user.email) return;
  const what = await describeReward(ctx, reward);
  try {
    const mail = rewardArrivedMail({
      to: user.email,
      amount: formatExact(reward.amount, reward.currency),
      currency: reward.currency,
      what,
      transactionUrl: explorerTxUrl(ctx.chain.config.network, reward.event.txHash),
      cashoutUrl: cashoutLink(ctx.env.PUBLIC_URL, reward.currency, reward.amount),
      walletUrl: `${ctx.env.PUBLIC_URL}/wallet`,
      autoCashout: Boolean(auto.cashoutId),
    });
    if (auto.kept) mail.text += `\n\nAutomatic cash-out did not start: ${auto.kept}. The ${reward.currency} stays in your wallet.`;
    if (auto.kept && mail.html) mail.html = mail.html.replace("<p style=\"margin:20px 0\">", `<p style="margin:0 0 12px">Automatic cash-out did not start: ${escapeHtml(auto.kept)}. The ${reward.currency} stays in your wallet.</p><p style="margin:20px 0">`);
    await ctx.mailer.send(mail);
    await db.update(rewardArrivals).set({ mailedAt: new Date() }).where(eq(rewardArrivals.id, arrivalId));
  } catch (err) {
    ctx.log.warn("reward mail not sent", { eventKey: reward.key, err: (err as Error).message });
  }
}

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The automatic cash-out of one reward, when its owner asked for it: a quote for exactly the reward, confirmed to
 * their saved UPI id. Any refusal (KYC, the provider down, the balance) keeps the crypto and says why.
 */
async function automaticCashout(ctx: Deps, reward: Reward, user: typeof users.$inferSelect): Promise<{ cashoutId?: string; note: string; kept?: string }> {
  const [settings] = await ctx.database.db.select().from(cashoutSettings).where(eq(cashoutSettings.userId, user.id));
  if (!settings?.autoEnabled || !settings.upiId) return { note: "no automatic cash-out" };
  if (reward.currency === "ROXN") return { note: "ROXN is not cashed out" };
  const threshold = reward.currency === "XDC" ? settings.autoMinXdc : settings.autoMinUsdc;
  if (threshold === null || reward.amount <= threshold) return { note: `at or below the ${reward.currency} threshold` };
  const [earlier] = await ctx.database.db.select({ id: cashouts.id }).from(cashouts).where(eq(cashouts.rewardKey, reward.key));
  if (earlier) return { cashoutId: earlier.id, note: "automatic cash-out started" };
  try {
    const quote = await quoteCashout(ctx, user, { currency: reward.currency, amount: toDecimalString(reward.amount, DECIMALS[reward.currency]) });
    const cashout = await confirmCashout(ctx, { user, quoteId: quote.id, upiId: settings.upiId, trigger: "auto", rewardKey: reward.key });
    if (cashout.status === "cancelled") return { note: `kept: ${cashout.failureReason}`, kept: cashout.failureReason ?? "the cash-out was cancelled" };
    return { cashoutId: cashout.id, note: "automatic cash-out started" };
  } catch (err) {
    const reason = (err as Error).message;
    ctx.log.info("automatic cash-out not started: the crypto is kept", { userId: user.id, eventKey: reward.key, reason });
    return { note: `kept: ${reason}`, kept: reason.replace(/\.$/, "") };
  }
}

async function describeReward(ctx: Pick<AppContext, "database">, reward: Reward): Promise<string> {
  const { event } = reward;
  if (event.name === "Tipped" || (event.name === "TipPaid" && event.repoId === null)) return "a tip";
  if (event.repoId === null || event.issueNumber === null) return "a reward";
  const [repo] = await ctx.database.db.select({ fullName: repositories.fullName }).from(repositories).where(eq(repositories.githubRepoId, event.repoId));
  const pull = await pullNumberOf(ctx, event.repoId, event.issueNumber, event.txHash);
  return `issue #${event.issueNumber} of ${repo?.fullName ?? `repository ${event.repoId}`}${pull ? ` (pull request #${pull})` : ""}`;
}

/** The latest automatic cash-outs that did not start, for the settings (what was kept, and why). */
export async function keptRewards(ctx: Pick<AppContext, "database">, userId: number, limit = 5) {
  return ctx.database.db
    .select({ currency: rewardArrivals.currency, amount: rewardArrivals.amount, note: rewardArrivals.note, txHash: rewardArrivals.txHash, createdAt: rewardArrivals.createdAt })
    .from(rewardArrivals)
    .where(and(eq(rewardArrivals.userId, userId), sql`${rewardArrivals.note} like 'kept:%'`))
    .orderBy(sql`${rewardArrivals.id} desc`)
    .limit(limit);
}
