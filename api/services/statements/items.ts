import { and, desc, eq, gte, inArray, lt, or, sql } from "drizzle-orm";
import type { AppContext, DatabaseDeps } from "../../context.ts";
import {
  chainEvents,
  chainTransactions,
  invoiceProfiles,
  payoutSplits,
  priceRecords,
  repositories,
  users,
  wallets,
  type Currency,
  type User,
} from "../../../db/schema/index.ts";
import { DomainError, ErrorCode } from "../../errors.ts";
import { parseAddress, toXdcAddress } from "../../chain/address.ts";
import { toDecimalString } from "../../chain/amounts.ts";
import { DECIMALS } from "../../../lib/money.ts";
import { explorerTxUrl } from "../../chain/config.ts";
import { CURRENCY_BY_INDEX } from "../../chain/indexer.ts";
import { walletOfUser } from "../wallets/custodial.ts";
import { fiatValue, hundredths, priceSourceName } from "./prices.ts";
import type { ChainEvent } from "./event-feed.ts";

/**
 * Statements (issue 40, item 3): every payout received, funding, boost and tip, as the contract's events record
 * them (the indexer's chain_events: the chain is the source of truth), each with its date, its parties (GitHub
 * logins and wallet addresses, and a party's invoice details when they set them), the repository, issue and pull
 * request, amount, fee, transaction and explorer link, and its INR and USD value at the time from the price
 * recorded at that moment (record-prices.ts), with the source's name and time; no value where none was recorded.
 * A user's statement holds the events their wallet paid or received; a repository's, the events of its pool.
 */
export type StatementKind = "payout" | "funding" | "boost" | "tip";

export interface Party {
  login: string | null;
  address: string | null;
  /** What the party is when it is not a person (a repository's pool). */
  label: string;
  invoice: { name: string; address: string; taxId: string } | null;
}

export interface StatementItem {
  /** `{txHash}-{logIndex}` on the platform's chain. */
  id: string;
  kind: StatementKind;
  /** For a user's statement: whether the money came in or went out. */
  direction: "in" | "out";
  date: string;
  from: Party;
  to: Party;
  repoId: number | null;
  repository: string | null;
  issueNumber: number | null;
  pullNumber: number | null;
  currency: Currency;
  /** What the payer paid (the gross of a funding, boost or tip; the payout itself). */
  amount: string;
  fee: string;
  /** What the recipient got. */
  net: string;
  transactionHash: string;
  explorerUrl: string | null;
  /** The price recorded at the moment of the event; null without a configured source then. */
  price: { source: string; pricedAt: string; usd: string | null; inr: string | null } | null;
  valueUsd: string | null;
  valueInr: string | null;
}

const STATEMENT_EVENTS = ["PoolFunded", "BountyBoosted", "BountyPaid", "BountySharePaid", "Tipped", "TipPaid"];
const KIND: Record<string, StatementKind> = { PoolFunded: "funding", BountyBoosted: "boost", BountyPaid: "payout", BountySharePaid: "payout", Tipped: "tip", TipPaid: "tip" };

/** A BountyPaid that is not the total of a split payout (whose shares are BountySharePaid events of the same transaction). */
const notASplit = sql`not exists (select 1 from ${chainEvents} s where s.tx_hash = ${chainEvents.txHash} and s.name = 'BountySharePaid')`;
const arg = (field: string) => sql`lower(json_extract(${chainEvents.args}, ${`$.${field}`}))`;

/** The pull request a payout paid, from the payout's own record (a merge's reason, or a split). */
export async function pullNumberOf(ctx: DatabaseDeps, repoId: number, issueNumber: number, txHash: string): Promise<number | null> {
  const [tx] = await ctx.database.db
    .select({ intent: chainTransactions.intent })
    .from(chainTransactions)
    .where(and(eq(chainTransactions.kind, "pay_bounty"), sql`lower(${chainTransactions.txHash}) = ${txHash.toLowerCase()}`))
    .limit(1);
  const reason = tx ? ((JSON.parse(tx.intent) as { reason?: string }).reason ?? "") : "";
  const merged = /pull request #(\d+)/.exec(reason);
  if (merged) return Number(merged[1]);
  const [split] = await ctx.database.db
    .select({ pullNumber: payoutSplits.pullNumber })
    .from(payoutSplits)
    .where(and(eq(payoutSplits.githubRepoId, repoId), eq(payoutSplits.issueNumber, issueNumber)));
  return split?.pullNumber ?? null;
}

export const yearRange = (year: number) => ({ from: new Date(Date.UTC(year, 0, 1)), to: new Date(Date.UTC(year + 1, 0, 1)) });

export function parseYear(input: unknown, now = new Date()): number {
  if (input === undefined || input === null || input === "") return now.getUTCFullYear();
  const year = Number(input);
  if (!Number.isInteger(year) || year < 2020 || year > now.getUTCFullYear() + 1) {
    throw new DomainError({ code: ErrorCode.VALIDATION_FAILED, error: "Invalid year", message: "Choose a year from 2020 on." });
  }
  return year;
}

/** The events of a user's statement: what their wallet paid or received, in the year, newest first. */
async function userEvents(ctx: Pick<AppContext, "database" | "chain">, user: Pick<User, "id">, year: number, limit: number): Promise<{ events: ChainEvent[]; address: string | null }> {
  const wallet = await walletOfUser(ctx.database.db, user.id);
  if (!wallet) return { events: [], address: null };
  const address = wallet.address.toLowerCase();
  const { from, to } = yearRange(year);
  const events = await ctx.database.db
    .select()
    .from(chainEvents)
    .where(
      and(
        eq(chainEvents.chainId, ctx.chain.config.chain.id),
        sql`${chainEvents.oldChain} is null`,
        gte(sql`coalesce(${chainEvents.blockTime}, ${chainEvents.createdAt})`, from.getTime()),
        lt(sql`coalesce(${chainEvents.blockTime}, ${chainEvents.createdAt})`, to.getTime()),
        or(
          and(inArray(chainEvents.name, ["PoolFunded", "BountyBoosted"]), sql`${arg("funder")} = ${address}`),
          and(eq(chainEvents.name, "BountyPaid"), sql`${arg("contributor")} = ${address}`, notASplit),
          and(inArray(chainEvents.name, ["BountySharePaid", "TipPaid"]), sql`${arg("recipient")} = ${address}`),
          and(eq(chainEvents.name, "Tipped"), or(sql`${arg("recipient")} = ${address}`, sql`${arg("tipper")} = ${address}`)),
        ),
      ),
    )
    .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
    .limit(limit);
  return { events, address };
}

/** The events of a repository's statement: fundings and boosts into its pool, payouts out of it. */
async function repositoryEvents(ctx: Pick<AppContext, "database" | "chain">, repoId: number, year: number, limit: number): Promise<ChainEvent[]> {
  const { from, to } = yearRange(year);
  return ctx.database.db
    .select()
    .from(chainEvents)
    .where(
      and(
        eq(chainEvents.chainId, ctx.chain.config.chain.id),
        eq(chainEvents.repoId, repoId),
        sql`${chainEvents.oldChain} is null`,
        gte(sql`coalesce(${chainEvents.blockTime}, ${chainEvents.createdAt})`, from.getTime()),
        lt(sql`coalesce(${chainEvents.blockTime}, ${chainEvents.createdAt})`, to.getTime()),
        or(inArray(chainEvents.name, ["PoolFunded", "BountyBoosted", "BountySharePaid"]), and(eq(chainEvents.name, "BountyPaid"), notASplit)),
      ),
    )
    .orderBy(desc(chainEvents.blockNumber), desc(chainEvents.logIndex))
    .limit(limit);
}

/** Builds the items of these events (parties, repository, pull request, prices), `mine` being the reader's wallet. */
async function itemsOf(ctx: Pick<AppContext, "database" | "chain">, events: ChainEvent[], mine: string | null): Promise<StatementItem[]> {
  if (!events.length) return [];
  const db = ctx.database.db;
  const keys = events.map((e) => `${e.chainId}:${e.txHash.toLowerCase()}:${e.logIndex}`);
  const prices = new Map((await db.select().from(priceRecords).where(inArray(priceRecords.eventKey, keys))).map((p) => [p.eventKey, p]));
  const repoIds = [...new Set(events.map((e) => e.repoId).filter((id): id is number => id !== null))];
  const repos = new Map(
    repoIds.length ? (await db.select({ id: repositories.githubRepoId, fullName: repositories.fullName }).from(repositories).where(inArray(repositories.githubRepoId, repoIds))).map((r) => [r.id, r.fullName]) : [],
  );
  const addresses = new Set<string>();
  const parsed = events.map((event) => {
    const args = JSON.parse(event.args) as Record<string, string>;
    const who = (field: string) => (args[field] ? parseAddress(args[field]!) ?? null : null);
    const payer = event.name === "PoolFunded" || event.name === "BountyBoosted" ? who("funder") : event.name === "Tipped" ? who("tipper") : null;
    const payee = event.name === "BountyPaid" ? who("contributor") : event.name === "PoolFunded" || event.name === "BountyBoosted" ? null : who("recipient");
    if (payer) addresses.add(payer);
    if (payee) addresses.add(payee);
    return { event, args, payer, payee };
  });
  const people = new Map(
    addresses.size
      ? (
          await db
            .select({ address: wallets.address, login: users.username, name: invoiceProfiles.name, postal: invoiceProfiles.address, taxId: invoiceProfiles.taxId })
            .from(wallets)
            .innerJoin(users, eq(users.id, wallets.userId))
            .leftJoin(invoiceProfiles, eq(invoiceProfiles.userId, wallets.userId))
            .where(inArray(wallets.address, [...addresses]))
        ).map((p) => [p.address, p])
      : [],
  );
  const network = ctx.chain.config.network;
  const rewards = toXdcAddress(ctx.chain.config.contracts.rewards);
  const items: StatementItem[] = [];
  for (const { event, args, payer, payee } of parsed) {
    const currency = CURRENCY_BY_INDEX[Number(args.currency)] ?? "XDC";
    const decimals = DECIMALS[currency];
    const gross = BigInt(args.gross ?? args.amount ?? "0");
    const fee = BigInt(args.fee ?? "0");
    const net = BigInt(args.net ?? args.amount ?? "0");
    const repository = event.repoId !== null ? (repos.get(event.repoId) ?? null) : null;
    const pool: Party = { login: null, address: rewards, label: repository ? `Pool of ${repository}` : "Issuepool escrow", invoice: null };
    const party = (address: string | null): Party => {
      if (!address) return pool;
      const person = people.get(address);
      const invoice = person?.name || person?.postal || person?.taxId ? { name: person.name ?? "", address: person.postal ?? "", taxId: person.taxId ?? "" } : null;
      return { login: person?.login ?? null, address: toXdcAddress(address), label: person ? `@${person.login}` : toXdcAddress(address), invoice };
    };
    const price = prices.get(`${event.chainId}:${event.txHash.toLowerCase()}:${event.logIndex}`);
    // The value of what the payer paid (a funding's gross, a payout itself), at the price of the moment.
    const valued = KIND[event.name] === "payout" ? net : gross;
    const pull = KIND[event.name] === "payout" && event.repoId !== null && event.issueNumber !== null ? await pullNumberOf(ctx, event.repoId, event.issueNumber, event.txHash) : null;
    items.push({
      id: `${event.txHash.toLowerCase()}-${event.logIndex}`,
      kind: KIND[event.name]!,
      direction: mine && payer?.toLowerCase() === mine ? "out" : "in",
      date: (event.blockTime ?? event.createdAt).toISOString(),
      from: party(payer),
      to: party(payee),
      repoId: event.repoId,
      repository,
      issueNumber: event.issueNumber,
      pullNumber: pull,
      currency,
      amount: toDecimalString(KIND[event.name] === "payout" ? net : gross, decimals),
      fee: toDecimalString(fee, decimals),
      net: toDecimalString(net, decimals),
      transactionHash: event.txHash,
      explorerUrl: explorerTxUrl(network, event.txHash),
      price: price ? { source: price.source, pricedAt: price.pricedAt.toISOString(), usd: price.usd, inr: price.inr } : null,
      valueUsd: price?.usd ? hundredths(fiatValue(valued, decimals, price.usd)) : null,
      valueInr: price?.inr ? hundredths(fiatValue(valued, decimals, price.inr)) : null,
    });
  }
  return items;
}

export interface Statement {
  year: number;
  /** The price source configured now (each item names the one of its moment). */
  priceSource: string | null;
  items: StatementItem[];
}

/** GET /api/statements?year */
export async function userStatement(ctx: Pick<AppContext, "env" | "database" | "chain">, user: Pick<User, "id">, year: number, limit = 1000): Promise<Statement> {
  const { events, address } = await userEvents(ctx, user, year, limit);
  return { year, priceSource: priceSourceName(ctx.env), items: await itemsOf(ctx, events, address) };
}

/**
 * Who may read a repository's statement: the user who registered it, or a sponsor whose wallet funded it (the
 * events are public on the chain; the statement is a sponsor's expense report). Anyone else: not found.
 */
export async function readableRepository(ctx: Pick<AppContext, "database" | "chain">, user: Pick<User, "id">, repoId: number): Promise<{ fullName: string }> {
  const db = ctx.database.db;
  const notFound = new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such repository." });
  const [repo] = await db.select().from(repositories).where(eq(repositories.githubRepoId, repoId));
  if (!repo) throw notFound;
  if (repo.registeredByUserId === user.id) return repo;
  const wallet = await walletOfUser(db, user.id);
  if (!wallet) throw notFound;
  const [funded] = await db
    .select({ id: chainEvents.id })
    .from(chainEvents)
    .where(and(eq(chainEvents.repoId, repoId), inArray(chainEvents.name, ["PoolFunded", "BountyBoosted"]), sql`${arg("funder")} = ${wallet.address.toLowerCase()}`))
    .limit(1);
  if (!funded) throw notFound;
  return repo;
}

export async function repositoryStatement(ctx: Pick<AppContext, "env" | "database" | "chain">, user: Pick<User, "id">, repoId: number, year: number, limit = 5000): Promise<Statement & { repository: string }> {
  const repo = await readableRepository(ctx, user, repoId);
  return { year, repository: repo.fullName, priceSource: priceSourceName(ctx.env), items: await itemsOf(ctx, await repositoryEvents(ctx, repoId, year, limit), null) };
}

/**
 * One item, for its receipt: only a party to it (their wallet paid or received it) or a reader of its
 * repository's statement may have it; anyone else: not found.
 */
export async function statementItem(ctx: Pick<AppContext, "env" | "database" | "chain">, user: Pick<User, "id">, id: string): Promise<StatementItem> {
  const notFound = new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not found", message: "No such statement item." });
  const match = /^(0x[0-9a-f]{64})-(\d{1,6})$/.exec(id.toLowerCase());
  if (!match) throw notFound;
  const [event] = await ctx.database.db
    .select()
    .from(chainEvents)
    .where(
      and(
        eq(chainEvents.chainId, ctx.chain.config.chain.id),
        sql`lower(${chainEvents.txHash}) = ${match[1]}`,
        eq(chainEvents.logIndex, Number(match[2])),
        inArray(chainEvents.name, STATEMENT_EVENTS),
        sql`${chainEvents.oldChain} is null`,
      ),
    );
  if (!event) throw notFound;
  const wallet = await walletOfUser(ctx.database.db, user.id);
  const [item] = await itemsOf(ctx, [event], wallet?.address.toLowerCase() ?? null);
  const mine = wallet ? toXdcAddress(wallet.address) : null;
  if (item && mine && (item.from.address === mine || item.to.address === mine)) return item;
  if (item && event.repoId !== null) {
    const readable = await readableRepository(ctx, user, event.repoId).then(() => true, () => false);
    if (readable) return item;
  }
  throw notFound;
}
