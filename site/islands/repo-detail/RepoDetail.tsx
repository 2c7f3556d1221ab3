import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useStore } from "../ui/use-store.ts";
import { api, errorMessage, type ApiResponse } from "../../lib/api.ts";
import {
  awaitingBounties,
  isBountySet,
  poolsOf,
  repoFromGitHub,
  sortedBounties,
  type GitHubRepoResponse,
  type InitialRepoData,
  type PoolInfo,
  type RepoIssue,
  type RepoView,
} from "../../lib/repo-detail-data.ts";
import { isValidIssueNumber, pendingContribution, repoDetailPath, withoutPendingContribution } from "../../lib/repo-detail-links.ts";
import { $sessionReady, $user, watchSession } from "../../stores/session.ts";
import type { TransactionResult } from "./actions.ts";
import { issueBounty, rememberBounty } from "./bounty-cache.ts";
import { useContribute } from "./contribute.tsx";
import { FundingPanel } from "./funding-panel.tsx";
import { IssuesTable, type RewardState, type ViewerRole } from "./issues-table.tsx";
import { ClaimHowTo } from "./claim-how-to.tsx";
import { AwaitingDecisions } from "./awaiting-decisions.tsx";
import type { DecisionMode } from "./bounty-decision-dialog.tsx";
import { Notice } from "./ui.tsx";
import { useHydrated } from "../ui/use-hydrated.ts";
import { Tabs } from "../ui/tabs.tsx";
import { AdminAccess, Count, Frame, LoadFailed, LoadingSkeleton, NotRegistered, PullRequests, RepoHeader, Unavailable } from "./sections.tsx";
import { useResource } from "./use-resource.ts";
import { CommunityBountiesOf } from "./community-bounties.tsx";
// Attempts (issue 39): in this island's own file, not a chunk of its own, as every signed-in visitor of a registered
// repository loads it (a file of its own cost its headers and took the page over the 100 KB budget).
import AttemptsPanel from "./attempts-panel.tsx";

/** The dialogs load when first opened: most visits open none (issue 16: signed-in pages were heavy). */
// Loaded only for a repository that has shared rewards (asked first, below): the page stays within its JavaScript budget.
const SharedRewards = lazy(() => import("../splits/SharedRewards.tsx"));
const BoostDialog = lazy(() => import("./boost-dialog.tsx").then((m) => ({ default: m.BoostDialog })));
const SetBountyDialog = lazy(() => import("./set-bounty-dialog.tsx").then((m) => ({ default: m.SetBountyDialog })));
const BountyDecisionDialog = lazy(() => import("./bounty-decision-dialog.tsx").then((m) => ({ default: m.BountyDecisionDialog })));

export interface RepoDetailProps {
  owner: string;
  name: string;
  /** Server-rendered public data (registered public repositories); null for private or unknown ones. */
  initial: InitialRepoData | null;
  explorerUrl: string;
  /** The generated cover (site/components/RepoArt.astro), passed in as a slot. */
  art?: ReactNode;
}

type Section = "issues" | "pulls" | "rewards";
const SECTIONS: Section[] = ["issues", "pulls", "rewards"];
const POOL_REFRESH_AFTER_MS = [1500, 4000, 9000];
const CONFIRM_POLL_MS = 1500;
const CONFIRM_POLL_TRIES = 40;

/**
 * /repos/:owner/:name (spec section 2). Server-rendered for everyone with
 * the public data; hydrated only for signed-in visitors (client:session),
 * who then read their own view of GitHub (private repositories, admin
 * rights) and get the actions of their role.
 */
export default function RepoDetail(props: RepoDetailProps) {
  const hydrated = useHydrated();
  // The first client render must equal the server's (which knows no session),
  // even when the header has already loaded the user by the time this hydrates.
  const storedUser = useStore($user, null);
  const storedReady = useStore($sessionReady, false);
  const user = hydrated ? storedUser : null;
  const ready = hydrated && storedReady;
  const [hint, setHint] = useState<string | null>(null);
  useEffect(() => {
    watchSession();
    setHint(document.documentElement.getAttribute("data-role"));
  }, []);

  const role: ViewerRole = !hydrated
    ? "static"
    : user
      ? (user.role ?? "none")
      : ready
        ? "anonymous"
        : hint === "poolmanager" || hint === "contributor"
          ? hint
          : hint === "user"
            ? "none"
            : "unknown";

  const path = `${encodeURIComponent(props.owner)}/${encodeURIComponent(props.name)}`;
  const github = useResource(user ? `gh:${user.id}:${path}` : null, () => api<GitHubRepoResponse>(`/api/github/repos/${path}`));
  const repo: RepoView | null = useMemo(
    () => (github.data ? repoFromGitHub(github.data) : (props.initial?.repo ?? null)),
    [github.data, props.initial],
  );
  const repoId = repo?.repoId ?? null;

  // ---- pools and bounties ----
  const pool = useResource(hydrated && repoId ? `pool:${repoId}` : null, () => api(`/api/blockchain/pool-info/${repoId}`));
  const initialPool = props.initial?.repo.repoId === repoId ? props.initial?.pool : null;
  const poolData = pool.data ?? initialPool ?? null;
  const [rows, setRows] = useState<Record<number, RewardState>>({});
  const [confirming, setConfirming] = useState<ReadonlySet<number>>(new Set());
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  useEffect(() => {
    if (!pool.data || !repoId || !repo) return;
    const byNumber = new Map(pool.data.issues.map((b) => [b.issueId, b]));
    for (const issue of repo.issues) if (isValidIssueNumber(issue.number)) rememberBounty(repoId, issue.number, byNumber.get(issue.number) ?? null);
  }, [pool.data, repoId, repo]);

  // Pool-info could not be read: each row asks for its own bounty (spec: 'Error' and a tooltip when that fails too).
  useEffect(() => {
    if (!pool.error || pool.data || !repoId || !repo) return;
    for (const issue of repo.issues) {
      if (!isValidIssueNumber(issue.number)) continue;
      issueBounty(repoId, issue.number).then(
        (bounty) => setRows((r) => ({ ...r, [issue.number]: bounty ? { kind: "bounty", bounty } : { kind: "none" } })),
        (err) => setRows((r) => ({ ...r, [issue.number]: { kind: "error", message: errorMessage(err, "Failed to fetch bounty details") } })),
      );
    }
  }, [pool.error, pool.data, repoId, repo]);

  const refreshPool = useCallback(() => {
    void pool.reload();
    for (const ms of POOL_REFRESH_AFTER_MS) timers.current.push(setTimeout(() => void pool.reload(), ms));
  }, [pool.reload]);

  const onAllocated = useCallback(
    (issueNumber: number, _result: TransactionResult | null) => {
      if (!repoId) return;
      setConfirming((s) => new Set(s).add(issueNumber));
      const done = () => {
        setConfirming((s) => {
          const next = new Set(s);
          next.delete(issueNumber);
          return next;
        });
        refreshPool();
      };
      const poll = async (attempt: number) => {
        try {
          const bounty = await issueBounty(repoId, issueNumber, { fresh: true });
          if (bounty && isBountySet(bounty)) {
            setRows((r) => ({ ...r, [issueNumber]: { kind: "bounty", bounty } }));
            return done();
          }
        } catch {
          // keep trying: the transaction may still be on its way
        }
        if (attempt >= CONFIRM_POLL_TRIES) return done();
        timers.current.push(setTimeout(() => void poll(attempt + 1), CONFIRM_POLL_MS));
      };
      void poll(0);
    },
    [repoId, refreshPool],
  );

  const knownBountyOf = (issue: RepoIssue | null) => {
    const state = issue ? rewardOf(issue) : null;
    return state?.kind === "bounty" ? state.bounty : state?.kind === "none" ? null : undefined;
  };

  const rewardOf = (issue: RepoIssue): RewardState => {
    if (!isValidIssueNumber(issue.number)) return { kind: "error", message: "Invalid issue number" };
    if (!repo?.registered) return { kind: "unregistered" };
    if (confirming.has(issue.number)) return { kind: "pending" };
    const row = rows[issue.number];
    if (row) return row;
    if (poolData) {
      const bounty = poolData.issues.find((b) => b.issueId === issue.number && b.status !== "cancelled");
      return bounty ? { kind: "bounty", bounty } : { kind: "none" };
    }
    return { kind: "loading" };
  };

  // ---- Release or cancel a bounty (pool managers) ----
  const [decision, setDecision] = useState<{ issue: RepoIssue; mode: DecisionMode } | null>(null);
  const [boosting, setBoosting] = useState<RepoIssue | null>(null);
  const boostingState = boosting ? rewardOf(boosting) : null;
  const decisionState = decision ? rewardOf(decision.issue) : null;
  const decisionBounty = decisionState?.kind === "bounty" ? decisionState.bounty : null;
  const onDecided = useCallback(
    (issueNumber: number) => {
      // Read the bounty again (paid or cancelled now), and the pool with it.
      if (repoId) {
        issueBounty(repoId, issueNumber, { fresh: true }).then(
          (bounty) => setRows((r) => ({ ...r, [issueNumber]: bounty && bounty.status !== "cancelled" ? { kind: "bounty", bounty } : { kind: "none" } })),
          () => setRows((r) => ({ ...r, [issueNumber]: { kind: "none" } })),
        );
      }
      refreshPool();
    },
    [repoId, refreshPool],
  );


  // ---- shared rewards: asked for first, their island loaded only when there are some ----
  // undefined: not asked yet or none; null: the read failed (the island asks again and says what went wrong).
  const [splits, setSplits] = useState<ApiResponse<"getIssueSplit">[] | null | undefined>(undefined);
  useEffect(() => {
    if (!repo?.registered || repoId === null) return;
    api<{ splits: ApiResponse<"getIssueSplit">[] }>(`/api/splits/${repoId}`).then(
      (r) => setSplits(r.splits.length > 0 ? r.splits : undefined),
      () => setSplits(null),
    );
  }, [repo?.registered, repoId]);
  const hasSplits = splits !== undefined;

  // ---- sections ----
  const [section, setSection] = useState<Section>("issues");
  useEffect(() => {
    const fromHash = () => {
      const value = location.hash.slice(1) as Section;
      if (SECTIONS.includes(value)) setSection(value);
    };
    fromHash();
    window.addEventListener("hashchange", fromHash);
    return () => window.removeEventListener("hashchange", fromHash);
  }, []);

  // ---- Set Reward and Contribute ----
  const [dialogIssue, setDialogIssue] = useState<RepoIssue | null>(null);
  const [dialogOpen, setDialogOpen] = useState(false);
  const { contribute, contributing } = useContribute(repo, user);
  const handled = useRef(false);
  useEffect(() => {
    if (handled.current || !ready || !user || !repoId) return;
    const issueNumber = pendingContribution(location.search);
    if (issueNumber === null) return;
    handled.current = true;
    history.replaceState(history.state, "", withoutPendingContribution(location.href));
    void contribute(issueNumber);
  }, [ready, user, repoId, contribute]);

  const signInHref = `/auth?returnTo=${encodeURIComponent(repoDetailPath(props.owner, props.name))}`;

  if (!repo) {
    return (
      <Frame>
        {!hydrated ? (
          <>
            <div data-anon-only>
              <Unavailable signInHref={signInHref} />
            </div>
            <div data-auth-only>
              <LoadingSkeleton />
            </div>
          </>
        ) : !ready || github.loading ? (
          <LoadingSkeleton />
        ) : !user ? (
          <Unavailable signInHref={signInHref} />
        ) : (
          <LoadFailed message={errorMessage(github.error, "Failed to fetch repository details from GitHub")} onRetry={() => void github.reload()} />
        )}
      </Frame>
    );
  }

  const pools = poolsOf(poolData);
  const activeBounties = sortedBounties(poolData);
  const openBounties = activeBounties.filter((b) => b.status === "open").length;
  const withBounty = new Set(activeBounties.map((b) => b.issueId));
  const bountyFree = repo.issues.filter((i) => isValidIssueNumber(i.number) && !withBounty.has(i.number) && !confirming.has(i.number) && rows[i.number]?.kind !== "bounty");

  return (
    <>
      <Frame>
        <RepoHeader repo={repo} art={props.art} openIssues={repo.issues.length} openBounties={poolData ? openBounties : null} pools={pools} />

        <Tabs
          id="repo"
          label="Repository sections"
          hash
          className="mt-8"
          value={section}
          onChange={setSection}
          items={[
            { value: "issues", label: <>Issues <Count value={repo.issues.length} /></>, name: "Issues" },
            { value: "pulls", label: "Pull Requests" },
            { value: "rewards", label: "Rewards" },
          ]}
          panel={(value) => {
            if (value === "issues") {
              return (
                <div className="grid grid-cols-1 gap-4">
                  {repo.stale && (
                    <Notice tone="warning" icon="clock">
                      GitHub could not be reached just now: these issues are a recent copy.
                    </Notice>
                  )}
                  {github.error !== undefined && props.initial && (
                    <Notice tone="warning">Your GitHub view of this repository could not be loaded; showing its public data.</Notice>
                  )}
                  {!repo.registered && <NotRegistered role={role} />}
                  {!repo.registered && repo.owner && repo.name && <CommunityBountiesOf owner={repo.owner} name={repo.name} />}
                  {repo.registered && role === "poolmanager" && (
                    <AwaitingDecisions repo={repo} bounties={awaitingBounties(poolData)} onDecide={(issue, mode) => setDecision({ issue, mode })} />
                  )}
                  {repo.registered && repoId !== null && hasSplits && (
                    <Suspense fallback={null}>
                      <SharedRewards repoId={repoId} canEdit={role === "poolmanager"} initial={splits ?? undefined} />
                    </Suspense>
                  )}
                  {repo.registered && repoId !== null && user && (
                    <AttemptsPanel
                      repoId={repoId}
                      user={user}
                      bountied={(poolData?.issues ?? []).filter((b) => b.status === "open").map((b) => b.issueId)}
                      onChanged={() => void refreshPool()}
                    />
                  )}
                  {repo.registered && repo.issues.length > 0 && <ClaimHowTo role={role} />}
                  {repo.registered || repo.issues.length > 0 ? (
                    <IssuesTable
                      repo={repo}
                      issues={repo.issues}
                      role={role}
                      rewardOf={rewardOf}
                      contributing={contributing}
                      onSetReward={(issue) => {
                        setDialogIssue(issue);
                        setDialogOpen(true);
                      }}
                      onContribute={(issue) => {
                        if (ready) void contribute(issue.number);
                      }}
                      onDecide={(issue, mode) => setDecision({ issue, mode })}
                      onBoost={(issue) => setBoosting(issue)}
                    />
                  ) : null}
                </div>
              );
            }
            if (value === "pulls") return <PullRequests repo={repo} />;
            return (
              <section aria-labelledby="repository-funding-title" className="grid grid-cols-1 gap-5">
                <div>
                  <div className="flex flex-wrap items-center gap-3">
                    <h2 id="repository-funding-title" className="text-xl font-semibold tracking-tight">
                      Repository Funding
                    </h2>
                    <AdminAccess role={role} admin={repo.admin ?? (github.error !== undefined || (ready && !user) ? false : null)} />
                  </div>
                </div>
                {repo.registered ? (
                  <FundingPanel
                    repo={repo}
                    role={role}
                    user={user}
                    visible={section === "rewards"}
                    pool={poolData}
                    poolError={pool.error}
                    issues={repo.issues}
                    openIssues={bountyFree}
                    explorerUrl={props.explorerUrl}
                    onPoolChange={refreshPool}
                    onAllocated={onAllocated}
                  />
                ) : (
                  <NotRegistered role={role} />
                )}
              </section>
            );
          }}
        />
      </Frame>

      <Suspense fallback={null}>
        {decision !== null && (
          <BountyDecisionDialog
            repo={repo}
            issue={decision.issue}
            bounty={decisionBounty}
            mode={decision.mode}
            open
            onOpenChange={(open) => !open && setDecision(null)}
            onDone={onDecided}
          />
        )}
        {boosting !== null && (
          <BoostDialog
            repo={repo}
            issue={boosting}
            bounty={boostingState?.kind === "bounty" ? boostingState.bounty : null}
            open
            onOpenChange={(open) => !open && setBoosting(null)}
            onDone={() => void refreshPool()}
          />
        )}
        {dialogOpen && (
          <SetBountyDialog
            repo={repo}
            issue={dialogIssue}
            open
            onOpenChange={setDialogOpen}
            knownBounty={knownBountyOf(dialogIssue)}
            knownPool={poolData}
            onAllocated={onAllocated}
          />
        )}
      </Suspense>
    </>
  );
}
