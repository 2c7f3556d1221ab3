import { lazy, Suspense, useEffect, useState, type ReactNode } from "react";
import { useResourceState } from "../ui/use-store.ts";
import { api } from "../../lib/api.ts";
import { walletInfo } from "../../lib/wallet-data.ts";
import { FUNDING_STATUS_POLL_MS, fromApi, type Currency } from "../../lib/funding-rules.ts";
import { formatAmount } from "../../lib/format.ts";
import { bountyFigures, poolsOf, sortedBounties, type PoolInfo, type RepoIssue, type RepoView } from "../../lib/repo-detail-data.ts";
import { explorerTxLink } from "../../lib/repo-detail-links.ts";
import { githubSignInUrl } from "../../lib/auth-flow.ts";
import type { SessionUser } from "../../stores/session.ts";
import { toast } from "../../stores/toast.ts";
import { Icon } from "../ui/icon.tsx";
import type { TransactionResult } from "./actions.ts";
import type { ViewerRole } from "./issues-table.tsx";
import { TokenMark } from "./tokens.tsx";
import { Notice, Skeleton, Stat } from "./ui.tsx";
import { Tabs } from "../ui/tabs.tsx";
import { useResource } from "./use-resource.ts";
import { bindingLabel, FundingLimits } from "./funding-limits.tsx";

const loadForms = () => import("./manager-forms.ts");
const AssignBountyForm = lazy(() => loadForms().then((m) => ({ default: m.AssignBountyForm })));
const WithdrawForm = lazy(() => loadForms().then((m) => ({ default: m.WithdrawForm })));
const RoxnFundingForm = lazy(() => loadForms().then((m) => ({ default: m.RoxnFundingForm })));
const TokenFundingForm = lazy(() => loadForms().then((m) => ({ default: m.TokenFundingForm })));
const XdcFundingForm = lazy(() => loadForms().then((m) => ({ default: m.XdcFundingForm })));

export interface FundingPanelProps {
  repo: RepoView;
  role: ViewerRole;
  user: SessionUser | null;
  /** The Rewards tab is showing (funding status is polled only then). */
  visible: boolean;
  pool: PoolInfo | null | undefined;
  poolError: unknown;
  /** Issues that have no bounty yet (the assign form's choices). */
  openIssues: RepoIssue[];
  issues: RepoIssue[];
  explorerUrl: string;
  onPoolChange: () => void;
  onAllocated: (issueNumber: number, result: TransactionResult | null) => void;
}

const amountText = (value: bigint | null | undefined, symbol: Currency) =>
  value === null || value === undefined ? <Skeleton className="h-6 w-24" /> : `${formatAmount(value, symbol)} ${symbol}`;

/**
 * The funding (bounty) panel (spec section 2): XDC and ROXN tabs, the pools,
 * the user's ROXN balance and allowance, the XDC limits, the add-funds forms
 * with their fee breakdown and the assign-bounty form (pool managers), and
 * the active bounties sorted by issue number.
 */
export function FundingPanel(props: FundingPanelProps) {
  const { repo, role, user } = props;
  const [tab, setTab] = useState<"xdc" | "roxn" | "usdc">("xdc");
  const isManager = role === "poolmanager" && Boolean(user);
  const signedIn = Boolean(user);
  const userKey = user ? String(user.id) : null;

  // The wallet info the header's wallet box shows too (fresh 30 s, refetched on focus): one source, refreshed together.
  const wallet = useResourceState(walletInfo);
  useEffect(() => (userKey ? walletInfo.watch() : undefined), [userKey]);
  const roxn = useResource(userKey && `roxn:${userKey}`, () => api("/api/token/balance"));
  const [allowanceOverride, setAllowanceOverride] = useState<bigint | null>(null);
  const allowance = useResource(isManager ? `allowance:${userKey}` : null, async () => {
    const data = await api("/api/blockchain/roxn-allowance");
    if (typeof data.allowance !== "string" || !/^\d+$/.test(data.allowance)) {
      toast({ type: "error", title: "ROXN Approval Failed", message: "Invalid allowance format received from server." });
      throw new Error("Invalid allowance format received from server.");
    }
    return BigInt(data.allowance);
  });
  // Spec sections 7 and 9: refetched every 60 s for pool managers on the XDC tab.
  const status = useResource(
    isManager && repo.repoId ? `status:${repo.repoId}` : null,
    () => api(`/api/blockchain/repository/${repo.repoId}/funding-status`),
    { intervalMs: props.visible && tab === "xdc" ? FUNDING_STATUS_POLL_MS : undefined },
  );
  useEffect(() => setAllowanceOverride(null), [allowance.data]);
  // USDC (issue 11): the same approve-then-add as ROXN, read when its tab is open.
  const usdc = useResource(userKey && tab === "usdc" ? `usdc:${userKey}` : null, () => api(`/api/wallet/usdc-balance/${userKey}`));
  const [usdcAllowanceOverride, setUsdcAllowanceOverride] = useState<bigint | null>(null);
  const usdcAllowance = useResource(isManager && tab === "usdc" ? `usdc-allowance:${userKey}` : null, async () =>
    BigInt((await api("/api/blockchain/usdc-allowance")).allowance),
  );
  useEffect(() => setUsdcAllowanceOverride(null), [usdcAllowance.data]);

  const pools = poolsOf(props.pool);
  const xdcBalance = userKey && wallet.data ? fromApi(wallet.data.xdcBalance, "XDC") : null;
  const roxnBalance = roxn.data ? fromApi(roxn.data.formatted, "ROXN") : null;
  const roxnAllowance = allowanceOverride ?? allowance.data ?? null;
  const remaining = status.data ? fromApi(status.data.remainingLimitXdc, "XDC") : null;
  const formsDisabled = repo.admin === false;

  const afterXdc = () => {
    props.onPoolChange();
    void walletInfo.load({ force: true });
    void status.reload();
  };
  const usdcBalance = usdc.data ? fromApi(usdc.data.balance, "USDC") : null;
  const usdcAllowanceValue = usdcAllowanceOverride ?? usdcAllowance.data ?? null;
  // A funding spends the approval: drop the figure the approval answered with and show the chain's again
  // (the reloaded value may equal the one before the approval, so the effect above would not clear it).
  const afterUsdc = () => {
    props.onPoolChange();
    setUsdcAllowanceOverride(null);
    void usdc.reload();
    void usdcAllowance.reload();
  };
  const afterRoxn = () => {
    props.onPoolChange();
    setAllowanceOverride(null);
    void roxn.reload();
    void allowance.reload();
  };

  // The forms load the first time a pool manager has the tab on screen, and stay after.
  const [shown, setShown] = useState(props.visible);
  useEffect(() => {
    if (props.visible) setShown(true);
  }, [props.visible]);
  const managerOnly = (content: ReactNode) => {
    if (isManager) {
      return shown ? (
        <Suspense fallback={<Skeleton className="h-40 w-full" />}>
          <div className="grid grid-cols-1 gap-5">{content}</div>
        </Suspense>
      ) : null;
    }
    if (role === "static" || role === "anonymous") {
      return (
        <Notice tone="info" icon="lock">
          <p>Pool managers with admin rights on this repository add funds and set bounties.</p>
          <a
            href={githubSignInUrl({ returnTo: `/repos/${repo.fullName}#rewards` })}
            className="mt-1 inline-block font-medium text-primary underline-offset-4 hover:underline"
          >
            Sign in to manage this repository
          </a>
        </Notice>
      );
    }
    if (role === "unknown") return <Skeleton className="h-24 w-full" />;
    return (
      <Notice tone="info" icon="lock">
        Only pool managers can add funds and assign bounties.
      </Notice>
    );
  };

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,7fr)_minmax(0,5fr)]">
      <section className="rounded-2xl border border-border bg-card p-4 shadow-sm sm:p-6" aria-labelledby="funding-panel-title" data-funding-panel>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h3 id="funding-panel-title" className="text-base font-semibold">
            Reward pool
          </h3>
          {isManager && repo.repoId ? (
            // Outbound webhooks of this repository, for its pool managers (issue 30; docs/webhooks.md).
            <a className="text-sm text-primary hover:underline" href={`/settings/alerts?repositoryId=${repo.repoId}&repository=${encodeURIComponent(repo.fullName)}`} data-repo-webhooks>
              Webhooks
            </a>
          ) : null}
          {props.poolError !== undefined && !props.pool && (
            <span className="text-sm text-destructive" role="alert">
              Failed to fetch pool info
            </span>
          )}
        </div>
        <dl className="mt-4 grid grid-cols-2 gap-3">
          <Stat label="XDC pool" value={amountText(pools?.XDC, "XDC")} tone="primary" testId="xdc-pool" />
          <Stat label="ROXN pool" value={amountText(pools?.ROXN, "ROXN")} tone="primary" testId="roxn-pool" />
          <Stat label="USDC pool" value={amountText(pools?.USDC, "USDC")} testId="usdc-pool" />
        </dl>

        <Tabs
          id="funding"
          label="Funding currency"
          className="mt-6"
          value={tab}
          onChange={setTab}
          items={[
            { value: "xdc", label: <><TokenMark symbol="XDC" className="h-5 w-5 text-[10px]" /> XDC</>, name: "XDC" },
            { value: "roxn", label: <><TokenMark symbol="ROXN" className="h-5 w-5 text-[10px]" /> ROXN</>, name: "ROXN" },
            { value: "usdc", label: <><TokenMark symbol="USDC" className="h-5 w-5 text-[10px]" /> USDC</>, name: "USDC" },
          ]}
          panel={(value) =>
            value === "usdc" ? (
              <div className="grid grid-cols-1 gap-5">
                {signedIn && (
                  <dl className="grid grid-cols-2 gap-3">
                    <Stat label="Your USDC balance" value={usdc.error && !usdc.data ? "Unavailable" : amountText(usdcBalance, "USDC")} testId="usdc-balance" />
                    {isManager && (
                      <Stat
                        label="USDC allowance"
                        value={usdcAllowance.error && usdcAllowanceValue === null ? "Unavailable" : amountText(usdcAllowanceValue, "USDC")}
                        hint="Approved for the pool contract"
                        testId="usdc-allowance"
                      />
                    )}
                  </dl>
                )}
                {managerOnly(
                  <>
                    <TokenFundingForm
                      token="USDC"
                      repo={repo}
                      balance={usdcBalance}
                      allowance={usdcAllowanceValue}
                      disabled={formsDisabled}
                      onAllowance={setUsdcAllowanceOverride}
                      onFunded={afterUsdc}
                    />
                    <hr className="border-border" />
                    <AssignBountyForm repo={repo} currency="USDC" issues={props.openIssues} pool={pools?.USDC ?? null} disabled={formsDisabled} onAllocated={props.onAllocated} />
                    <hr className="border-border" />
                    <WithdrawForm repo={repo} currency="USDC" pool={pools?.USDC ?? null} walletAddress={wallet.data?.address ?? null} disabled={formsDisabled} onWithdrawn={afterUsdc} />
                  </>,
                )}
              </div>
            ) : value === "xdc" ? (
              <div className="grid grid-cols-1 gap-5">
                {signedIn && (
                  <dl className="grid grid-cols-2 gap-3">
                    <Stat label="Your XDC balance" value={wallet.error && !wallet.data ? "Unavailable" : amountText(xdcBalance, "XDC")} testId="xdc-balance" />
                    {isManager && (
                      <Stat
                        label="Remaining today"
                        value={status.error && !status.data ? "Unavailable" : amountText(remaining, "XDC")}
                        hint={status.data ? bindingLabel(status.data) : undefined}
                        testId="xdc-remaining"
                      />
                    )}
                  </dl>
                )}
                {isManager && <FundingLimits status={status.data} />}
                {managerOnly(
                  <>
                    <XdcFundingForm repo={repo} balance={xdcBalance} remainingLimit={remaining} disabled={formsDisabled} onFunded={afterXdc} onLimitHit={() => void status.reload()} />
                    <hr className="border-border" />
                    <AssignBountyForm repo={repo} currency="XDC" issues={props.openIssues} pool={pools?.XDC ?? null} disabled={formsDisabled} onAllocated={props.onAllocated} />
                    <hr className="border-border" />
                    <WithdrawForm repo={repo} currency="XDC" pool={pools?.XDC ?? null} walletAddress={wallet.data?.address ?? null} disabled={formsDisabled} onWithdrawn={afterXdc} />
                  </>,
                )}
              </div>
            ) : (
              <div className="grid grid-cols-1 gap-5">
                {signedIn && (
                  <dl className="grid grid-cols-2 gap-3">
                    <Stat label="Your ROXN balance" value={roxn.error && !roxn.data ? "Unavailable" : amountText(roxnBalance, "ROXN")} testId="roxn-balance" />
                    {isManager && (
                      <Stat
                        label="ROXN allowance"
                        value={allowance.error && roxnAllowance === null ? "Unavailable" : amountText(roxnAllowance, "ROXN")}
                        hint="Approved for the pool contract"
                        testId="roxn-allowance"
                      />
                    )}
                  </dl>
                )}
                {managerOnly(
                  <>
                    <RoxnFundingForm
                      repo={repo}
                      balance={roxnBalance}
                      allowance={roxnAllowance}
                      disabled={formsDisabled}
                      onAllowance={setAllowanceOverride}
                      onFunded={afterRoxn}
                    />
                    <hr className="border-border" />
                    <AssignBountyForm repo={repo} currency="ROXN" issues={props.openIssues} pool={pools?.ROXN ?? null} disabled={formsDisabled} onAllocated={props.onAllocated} />
                    <hr className="border-border" />
                    <WithdrawForm repo={repo} currency="ROXN" pool={pools?.ROXN ?? null} walletAddress={wallet.data?.address ?? null} disabled={formsDisabled} onWithdrawn={afterRoxn} />
                  </>,
                )}
              </div>
            )
          }
        />
      </section>

      <ActiveBounties pool={props.pool} issues={props.issues} explorerUrl={props.explorerUrl} />
    </div>
  );
}

const STATE_LABELS = { open: "Open", claimed: "Working on it", awaiting: "Awaiting decision", held: "Held", releasing: "Being shared (release window)", paying: "Being paid", queued: "Payout queued (over the daily limit)", paid: "Paid", cancelled: "Cancelled" } as const;

function ActiveBounties({ pool, issues, explorerUrl }: { pool: PoolInfo | null | undefined; issues: RepoIssue[]; explorerUrl: string }) {
  // Paid bounties are done: they leave this list (they are in the Rewards figures and the contributor's wallet history).
  const list = sortedBounties(pool).filter((b) => b.status !== "paid");
  const byNumber = new Map(issues.map((i) => [i.number, i]));
  return (
    <section className="self-start rounded-2xl border border-border bg-card p-4 shadow-sm sm:p-6" aria-labelledby="active-bounties-title" data-active-bounties>
      <div className="flex items-center justify-between gap-3">
        <h3 id="active-bounties-title" className="text-base font-semibold">
          Active bounties
        </h3>
        {pool && <span className="rounded-full bg-muted px-2.5 py-0.5 text-xs font-semibold tabular-nums text-muted-foreground">{list.length}</span>}
      </div>
      {!pool ? (
        <div className="mt-4 grid gap-2">
          <Skeleton className="h-12 w-full" />
          <Skeleton className="h-12 w-full" />
        </div>
      ) : list.length === 0 ? (
        <p className="mt-4 rounded-xl border border-dashed border-border px-4 py-8 text-center text-sm text-muted-foreground">No bounties yet.</p>
      ) : (
        <ul className="mt-4 divide-y divide-border">
          {list.map((bounty) => {
            const { currency, total, breakdown, names } = bountyFigures(bounty);
            const issue = byNumber.get(bounty.issueId);
            const tx = explorerTxLink(explorerUrl, bounty.transactionHash);
            return (
              <li key={bounty.issueId} className="flex items-center gap-3 py-3" data-active-bounty={bounty.issueId}>
                <TokenMark symbol={currency} className="h-8 w-8 text-xs" />
                <div className="min-w-0 flex-1">
                  <p className="line-clamp-2 break-words text-sm font-medium">
                    <span className="tabular-nums text-muted-foreground">#{bounty.issueId}</span>{" "}
                    {issue ? (
                      <a href={issue.html_url} target="_blank" rel="noopener noreferrer" className="hover:underline">
                        {issue.title}
                      </a>
                    ) : bounty.issueUrl ? (
                      // A closed issue is no longer in the open issues list: the title remembered when the bounty was set.
                      <a href={bounty.issueUrl} target="_blank" rel="noopener noreferrer" className="hover:underline">
                        {bounty.issueTitle ?? `Issue #${bounty.issueId}`}
                      </a>
                    ) : (
                      <span>{bounty.issueTitle ?? `Issue #${bounty.issueId}`}</span>
                    )}
                  </p>
                  <p className="mt-0.5 flex items-center gap-2 text-xs text-muted-foreground">
                    <span className={bounty.state === "awaiting" || bounty.state === "held" || bounty.state === "queued" ? "text-warning" : "text-success"} data-bounty-state={bounty.state ?? "open"}>
                      {STATE_LABELS[bounty.state ?? "open"]}
                      {bounty.state === "held" && bounty.heldFor ? ` for @${bounty.heldFor}` : ""}
                    </span>
                    {tx && (
                      <a href={tx} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 hover:text-foreground">
                        Transaction <Icon name="external" className="h-3 w-3" />
                      </a>
                    )}
                  </p>
                </div>
                <span className="shrink-0 text-right text-sm font-semibold tabular-nums">
                  <span className="block" data-bounty-total>
                    {total}
                  </span>
                  {breakdown && (
                    <span className="block text-xs font-medium text-muted-foreground" data-funders title={names}>
                      {breakdown}
                    </span>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
