import { bountyLabel, issueOfBounty, type BountyInfo, type RepoIssue, type RepoView } from "../../lib/repo-detail-data.ts";
import { Button, ButtonLink } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";

const REASONS = {
  closed_completed: "Closed as completed; no merged pull request paid it.",
  closed_not_planned: "Closed as not planned while a contributor was registered.",
} as const;

/**
 * Bounties awaiting the pool manager's decision (issue 11): their issues are
 * closed, so they are not in the open issues table; they wait here, with the
 * two decisions, until released, cancelled, or the issue is reopened.
 */
export function AwaitingDecisions(props: {
  repo: RepoView;
  bounties: (BountyInfo & { issueId: number })[];
  onDecide: (issue: RepoIssue, mode: "release" | "cancel") => void;
}) {
  if (props.bounties.length === 0) return null;
  const deciding = props.bounties.some((b) => b.state === "awaiting");
  return (
    <section aria-labelledby="awaiting-title" className="rounded-xl border border-warning/40 bg-warning/5 p-4" data-awaiting-decisions>
      <h2 id="awaiting-title" className="flex items-center gap-2 font-semibold">
        <Icon name="clock" className="h-4 w-4 text-warning" /> {deciding ? "Awaiting your decision" : "Held for contributors"}
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">
        These issues are closed but their bounties were not paid. Release each to the contributor who did the work, or cancel it back to the pool. Reopening an
        issue makes its bounty open again.
      </p>
      <table className="mt-3 w-full text-sm">
        <caption className="sr-only">Bounties awaiting your decision</caption>
        <tbody className="divide-y divide-border">
          {props.bounties.map((bounty) => {
            const issue = issueOfBounty(bounty, props.repo);
            const held = bounty.state === "held";
            return (
              <tr key={bounty.issueId} data-issue={bounty.issueId} data-state={bounty.state} className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3">
                <th scope="row" className="min-w-0 flex-1 text-left font-medium">
                  <span className="break-words">{issue.title}</span> <span className="tabular-nums text-muted-foreground">#{bounty.issueId}</span>
                  <span className="block text-xs font-normal text-muted-foreground">
                    {held ? `Paid to @${bounty.heldFor} automatically when they sign in to Issuepool.` : bounty.awaitingReason ? REASONS[bounty.awaitingReason] : ""}
                  </span>
                </th>
                <td>
                  <span className="inline-flex items-center rounded-full border border-warning/40 bg-warning/10 px-2 py-0.5 text-xs font-semibold" data-badge>
                    {held ? `Held for @${bounty.heldFor}` : "Awaiting decision"}
                  </span>
                </td>
                <td className="font-semibold tabular-nums" data-amount>
                  {bountyLabel(bounty)}
                </td>
                <td className="flex gap-2">
                  <ButtonLink href={issue.html_url} target="_blank" rel="noopener noreferrer" variant="outline" size="sm" aria-label={`View Issue #${bounty.issueId} (opens in a new tab)`}>
                    View Issue <Icon name="external" className="h-3.5 w-3.5" />
                  </ButtonLink>
                  {!held && (
                    <>
                      <Button size="sm" onClick={() => props.onDecide(issue, "release")} aria-label={`Release the bounty of issue #${bounty.issueId}`}>
                        Release
                      </Button>
                      <Button size="sm" variant="outline" onClick={() => props.onDecide(issue, "cancel")} aria-label={`Cancel the bounty of issue #${bounty.issueId}`}>
                        Cancel
                      </Button>
                    </>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
