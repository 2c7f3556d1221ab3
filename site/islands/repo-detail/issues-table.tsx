import type { ReactNode } from "react";
import { labelStyle } from "../../lib/labels.ts";
import { contributeSignInUrl } from "../../lib/repo-detail-links.ts";
import { bountyFigures, errorTooltip, isBountySet, type BountyInfo, type IssueLabel, type RepoIssue, type RepoView } from "../../lib/repo-detail-data.ts";
import { Button, ButtonLink } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { Skeleton, Tip } from "./ui.tsx";
import { TokenMark } from "./tokens.tsx";

export type RewardState =
  | { kind: "loading" }
  | { kind: "none" }
  | { kind: "unregistered" }
  | { kind: "pending" }
  | { kind: "bounty"; bounty: BountyInfo }
  | { kind: "error"; message: string };

/**
 * Who is looking: `static` is the server-rendered HTML (anonymous visitors
 * keep it as it is); `unknown` a signed-in visitor whose role is not known
 * yet; `none` a signed-in user without a role.
 */
export type ViewerRole = "static" | "unknown" | "anonymous" | "none" | "contributor" | "poolmanager";

export interface IssueActionsProps {
  repo: RepoView;
  role: ViewerRole;
  contributing: number | null;
  onSetReward: (issue: RepoIssue) => void;
  onContribute: (issue: RepoIssue) => void;
  /** A pool manager's decision on an open bounty: release it to a contributor, or cancel it back to the pool. */
  onDecide?: (issue: RepoIssue, mode: "release" | "cancel") => void;
  /** Anyone signed in adds to the issue's bounty from their wallet (issue 29). */
  onBoost?: (issue: RepoIssue) => void;
  rewardOf?: (issue: RepoIssue) => RewardState;
}

/** Spec section 2: Title, Issue #, Labels, Reward, Actions; open issues that are not pull requests. */
export function IssuesTable(props: IssueActionsProps & { issues: RepoIssue[]; rewardOf: (issue: RepoIssue) => RewardState }) {
  const { issues } = props;
  if (issues.length === 0) {
    return (
      <div className="flex flex-col items-center rounded-xl border border-dashed border-border px-6 py-14 text-center">
        <Icon name="check" className="h-9 w-9 text-muted-foreground" />
        <p className="mt-3 font-semibold">No open issues</p>
        <p className="mt-1 text-sm text-muted-foreground">Every issue of this repository is closed. New issues show up here as they are opened.</p>
      </div>
    );
  }
  return (
    <>
      <div className="hidden overflow-hidden rounded-xl border border-border bg-card shadow-sm lg:block">
        <table className="w-full table-fixed text-sm" data-issues-table>
          <caption className="sr-only">Open issues of {props.repo.fullName}</caption>
          <thead className="border-b border-border bg-muted/50 text-left text-xs font-semibold uppercase tracking-wide text-muted-foreground">
            <tr>
              <th scope="col" className="px-4 py-3">Title</th>
              <th scope="col" className="w-20 px-3 py-3">Issue #</th>
              <th scope="col" className="w-[20%] px-3 py-3">Labels</th>
              <th scope="col" className="w-44 px-3 py-3">Reward</th>
              <th scope="col" className="w-[27rem] px-4 py-3 text-right">Actions</th>
            </tr>
          </thead>
          <tbody className="divide-y divide-border">
            {issues.map((issue) => (
              <tr key={issue.id} data-issue={issue.number} className="align-middle transition-colors hover:bg-muted/40">
                <th scope="row" className="px-4 py-3.5 text-left font-medium">
                  <span className="line-clamp-2 break-words">{issue.title}</span>
                </th>
                <td className="px-3 py-3.5 tabular-nums text-muted-foreground">#{issue.number}</td>
                <td className="px-3 py-3.5">
                  <Labels labels={issue.labels} />
                </td>
                <td className="px-3 py-3.5">
                  <RewardCell state={props.rewardOf(issue)} />
                </td>
                <td className="px-4 py-3.5">
                  <div className="flex flex-wrap justify-end gap-2">
                    <IssueActions {...props} issue={issue} />
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <ul className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:hidden" aria-label={`Open issues of ${props.repo.fullName}`}>
        {issues.map((issue) => (
          <li key={issue.id} data-issue-card={issue.number} className="flex flex-col rounded-xl border border-border bg-card p-4 shadow-sm">
            <div className="flex-1">
              <div className="flex items-start justify-between gap-3">
                <p className="min-w-0 break-words font-medium">{issue.title}</p>
                <span className="shrink-0 text-sm tabular-nums text-muted-foreground">#{issue.number}</span>
              </div>
              {issue.labels.length > 0 && (
                <div className="mt-2">
                  <Labels labels={issue.labels} />
                </div>
              )}
            </div>
            <div className="mt-3 flex items-center justify-between gap-3 border-t border-border pt-3">
              <span className="text-xs font-medium uppercase tracking-wide text-muted-foreground">Reward</span>
              <RewardCell state={props.rewardOf(issue)} />
            </div>
            <div className="mt-3 flex flex-wrap gap-2 [&>*]:flex-1">
              <IssueActions {...props} issue={issue} />
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

export function Labels({ labels }: { labels: IssueLabel[] }) {
  if (labels.length === 0) return <span className="text-muted-foreground">—</span>;
  return (
    <ul className="flex flex-wrap gap-1.5" aria-label="Labels">
      {labels.map((label) => {
        return (
          <li
            key={label.id}
            style={styleObject(labelStyle(label.color))}
            className="inline-flex max-w-full items-center truncate rounded-full border border-black/10 px-2 py-0.5 text-xs font-medium leading-5 dark:border-white/10"
          >
            {label.name}
          </li>
        );
      })}
    </ul>
  );
}

/** The site's one label colouring (lib/labels.ts) gives CSS text; React wants an object. */
function styleObject(css: string): Record<string, string> {
  const style: Record<string, string> = {};
  for (const declaration of css.split(";")) {
    const [property, value] = declaration.split(":");
    if (property && value) style[property.trim().replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] = value.trim();
  }
  return style;
}

export function RewardCell({ state }: { state: RewardState }) {
  switch (state.kind) {
    case "loading":
      return (
        <span className="inline-flex items-center" aria-label="Loading reward">
          <Skeleton className="h-5 w-20" />
        </span>
      );
    case "pending":
      return (
        <span className="inline-flex items-center gap-1.5 text-sm text-muted-foreground" data-reward="pending">
          <Spinner className="h-3.5 w-3.5" /> Confirming…
        </span>
      );
    case "none":
    case "unregistered":
      return (
        <span className="text-muted-foreground" data-reward="none">
          <span aria-hidden="true">—</span>
          <span className="sr-only">No reward</span>
        </span>
      );
    case "error": {
      const tip = errorTooltip(state.message);
      return (
        <Tip content={tip}>
          <span
            tabIndex={0}
            data-reward="error"
            data-rd-tooltip={tip}
            className="inline-flex cursor-help items-center gap-1 rounded-md text-sm font-medium text-destructive focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Icon name="alert" className="h-4 w-4" /> Error<span className="sr-only">: {tip}</span>
          </span>
        </Tip>
      );
    }
    case "bounty": {
      const { currency, total, breakdown, names } = bountyFigures(state.bounty);
      const paid = state.bounty.status === "paid";
      return (
        <span className="inline-flex flex-wrap items-center gap-1.5" data-reward="bounty">
          <span
            className={
              "inline-flex items-center gap-1.5 whitespace-nowrap rounded-full border px-2 py-0.5 text-sm font-semibold tabular-nums " +
              (paid ? "border-border bg-muted text-muted-foreground" : "border-success/30 bg-success/10 text-success")
            }
          >
            <TokenMark symbol={currency} className="h-4 w-4 text-[9px]" />
            <span data-bounty-total>{total}</span>
          </span>
          {paid && <span className="text-xs font-medium text-muted-foreground">Paid</span>}
          {state.bounty.state === "held" && <span className="text-xs font-medium text-warning" data-badge>Held for @{state.bounty.heldFor}</span>}
          {state.bounty.state === "awaiting" && <span className="text-xs font-medium text-warning" data-badge>Awaiting decision</span>}
          {breakdown && (
            <span className="text-xs font-medium text-muted-foreground" data-funders title={names}>
              {breakdown}
            </span>
          )}
          {state.bounty.status === "queued" && (
            <span className="text-xs font-medium text-muted-foreground" title="Over the contract's daily payout limit: paid once its delay has passed, unless the guardian stops it.">
              Payout queued
            </span>
          )}
        </span>
      );
    }
  }
}

function IssueActions(props: IssueActionsProps & { issue: RepoIssue }) {
  const { issue, role, repo } = props;
  const actions: ReactNode[] = [
    <ButtonLink
      key="view"
      href={issue.html_url}
      target="_blank"
      rel="noopener noreferrer"
      variant="outline"
      size="sm"
      aria-label={`View Issue #${issue.number} (opens in a new tab)`}
    >
      View Issue <Icon name="external" className="h-3.5 w-3.5" />
    </ButtonLink>,
  ];
  if (!repo.registered) return <>{actions}</>;
  const rewardNow = props.rewardOf?.(issue);
  if (props.onBoost && (role === "poolmanager" || role === "contributor" || role === "none") && (rewardNow?.kind === "none" || (rewardNow?.kind === "bounty" && rewardNow.bounty.status === "open"))) {
    actions.push(
      <Button key="boost" size="sm" variant="outline" onClick={() => props.onBoost!(issue)} aria-label={`Boost issue #${issue.number}`} data-boost>
        <Icon name="coins" className="h-3.5 w-3.5" /> Boost
      </Button>,
    );
  }
  if (role === "poolmanager") {
    const reward = props.rewardOf?.(issue);
    // A bounty is final once set: its row says so (the dialog still opens, to show it) instead of offering to set one (issue 27).
    actions.push(
      reward?.kind === "bounty" && isBountySet(reward.bounty) ? (
        <Button key="reward" size="sm" variant="outline" onClick={() => props.onSetReward(issue)} aria-label={`Reward Set for issue #${issue.number}`} data-reward-set>
          <Icon name="check" className="h-3.5 w-3.5 text-success" /> Reward Set
        </Button>
      ) : (
        <Button key="reward" size="sm" onClick={() => props.onSetReward(issue)} aria-label={`Set Reward for issue #${issue.number}`}>
          <Icon name="coins" className="h-3.5 w-3.5" /> Set Reward
        </Button>
      ),
    );
    // An open bounty: the pool manager's decisions beside it (issue 11).
    if (reward?.kind === "bounty" && reward.bounty.status === "open" && reward.bounty.state !== "held" && props.onDecide) {
      actions.push(
        <Button key="release" size="sm" variant="secondary" onClick={() => props.onDecide!(issue, "release")} aria-label={`Release the bounty of issue #${issue.number}`}>
          Release
        </Button>,
        <Button key="cancel" size="sm" variant="outline" onClick={() => props.onDecide!(issue, "cancel")} aria-label={`Cancel the bounty of issue #${issue.number}`}>
          Cancel
        </Button>,
      );
    }
  } else if (role === "static" || role === "anonymous") {
    // Signed out: the code host's sign-in, then back here to finish (spec section 5).
    actions.push(
      <ButtonLink
        key="contribute"
        href={contributeSignInUrl(repo.owner, repo.name, issue.number)}
        variant="secondary"
        size="sm"
        data-anon-only={role === "static" ? "" : undefined}
        aria-label={`Contribute to issue #${issue.number}`}
      >
        Contribute
      </ButtonLink>,
    );
  } else if (role === "none") {
    const busy = props.contributing === issue.number;
    actions.push(
      <Button key="contribute" variant="secondary" size="sm" disabled={busy} onClick={() => props.onContribute(issue)} aria-label={`Contribute to issue #${issue.number}`}>
        {busy && <Spinner className="h-3.5 w-3.5" />} Contribute
      </Button>,
    );
  }
  return <>{actions}</>;
}
