import { useEffect, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { bountyLabel, poolShareLabel, type BountyInfo, type RepoIssue, type RepoView } from "../../lib/repo-detail-data.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { serverMessage, transactionToast, useActionKey, type TransactionResult } from "./actions.ts";
import { Dialog } from "../ui/dialog.tsx";
import { Notice, Skeleton } from "./ui.tsx";
import { inputClass } from "../../lib/ui.ts";

export type DecisionMode = "release" | "cancel";

const LOGIN_CHOICE = "@login";

type Claimant = ApiResponse<"listIssueClaimants">["claimants"][number];

const shortAddress = (address: string) => `${address.slice(0, 7)}…${address.slice(-5)}`;

/**
 * The pool manager's decisions on an open bounty (spec: pool managers "approve solutions and release rewards";
 * issue 11): release it to a contributor who registered for the issue, or cancel it back to the pool. Each names
 * the amount, the recipient and the consequence before anything is sent; the server applies the same rules as the
 * API (admin rights, one payout per bounty, no cancelling once someone works on it).
 */
export function BountyDecisionDialog(props: {
  repo: RepoView;
  issue: RepoIssue | null;
  bounty: BountyInfo | null;
  mode: DecisionMode;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onDone: (issueNumber: number) => void;
}) {
  const { repo, issue, bounty, mode } = props;
  const [claimants, setClaimants] = useState<Claimant[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string>("");
  /** A GitHub login typed by the pool manager (the "Another GitHub user" choice): paid, or held until they register. */
  const [login, setLogin] = useState("");
  const [busy, setBusy] = useState(false);
  const action = useActionKey();

  useEffect(() => {
    if (!props.open || !issue || !repo.repoId) return;
    setClaimants(null);
    setLoadError(null);
    setChosen("");
    setLogin("");
    api(`/api/blockchain/issue-claimants/${repo.repoId}/${issue.number}`).then(
      (data) => {
        setClaimants(data.claimants);
        if (data.claimants.length === 1) setChosen(data.claimants[0]!.address);
      },
      (err) => setLoadError(serverMessage(err, "Failed to load who works on this issue.")),
    );
  }, [props.open, issue?.number, repo.repoId]);

  if (!issue || !bounty) return null;
  // Released, the whole bounty is paid (its funders' shares with it); cancelled, only the pool's share goes back to the
  // pool (the funders' shares stay theirs: issue 29).
  const amountLabel = mode === "release" ? bountyLabel(bounty) : poolShareLabel(bounty);
  const awaiting = bounty.state === "awaiting";
  const byLogin = chosen === LOGIN_CHOICE;
  const typedLogin = login.trim().replace(/^@/, "");
  const loginValid = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(typedLogin);
  const recipient = byLogin ? (loginValid ? { username: typedLogin, address: "" } : null) : (claimants?.find((c) => c.address === chosen) ?? null);
  // Awaiting a decision (the issue is closed), cancelling is one of the two decisions whoever registered.
  const someoneWorks = (claimants?.length ?? 0) > 0 && !awaiting;

  const submit = async () => {
    if (busy || !repo.repoId) return;
    if (mode === "release" && !recipient) return;
    setBusy(true);
    const path = mode === "release" ? `/api/blockchain/distribute-bounty/${repo.repoId}/${issue.number}` : `/api/blockchain/cancel-bounty/${repo.repoId}/${issue.number}`;
    const body =
      mode === "release"
        ? byLogin
          ? { contributorLogin: recipient!.username, githubRepoFullName: repo.fullName }
          : { contributorAddress: recipient!.address, githubRepoFullName: repo.fullName }
        : { githubRepoFullName: repo.fullName };
    try {
      const result = await api<ApiResponse<"distributeBounty"> | ApiResponse<"cancelBounty">>(path, {
        method: "POST",
        body,
        idempotencyKey: action.keyFor(`${mode}/${repo.repoId}/${issue.number}/${recipient?.address || recipient?.username || ""}`),
        timeoutMs: 15_000,
      });
      action.settle();
      if (result.status === "held") {
        toast({ type: "success", title: "Bounty Held", message: `${amountLabel} for @${result.heldFor}: paid to their Issuepool wallet as soon as they sign in and register.` });
      } else {
        transactionToast(
          mode === "release"
            ? { title: "Bounty Released", message: `${amountLabel} to @${recipient!.username} for issue #${issue.number}.`, actionLabel: "View on Explorer", result }
            : result.message.startsWith("Refund requested")
              ? // RepoRewards v2: a bounty a contributor claimed returns to the pool only after the contract's delay.
                { title: "Refund Requested", message: `${amountLabel} returns to the pool after the contract's 3-day delay: a contributor claimed this bounty. Cancel again once it is due.`, actionLabel: "View on Explorer", result }
              : { title: "Bounty Cancelled", message: `${amountLabel} went back to the pool.`, actionLabel: "View on Explorer", result },
        );
      }
      props.onOpenChange(false);
      props.onDone(issue.number);
    } catch (err) {
      action.settle(err);
      toast({ type: "error", title: mode === "release" ? "Failed to release bounty" : "Failed to cancel bounty", message: serverMessage(err, "Please try again.") });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog
      open={props.open}
      onOpenChange={(open) => !busy && props.onOpenChange(open)}
      modalLocked={busy}
      title={mode === "release" ? `Release the bounty of issue #${issue.number}` : `Cancel the bounty of issue #${issue.number}`}
      description={<span className="line-clamp-2">{issue.title}</span>}
    >
      <div className="mt-5 grid gap-4" data-bounty-decision={mode}>
        {claimants === null && !loadError && <Skeleton className="h-16 w-full" />}
        {loadError && <Notice tone="warning">{loadError}</Notice>}
        {mode === "release" && claimants !== null && (
          claimants.length === 0 && !awaiting ? (
            <Notice tone="info">
              Nobody has registered for this issue yet. A contributor chooses Contribute on this page or comments <code>/attempt</code> on the issue; a merged
              pull request that fixes it pays its author automatically.
            </Notice>
          ) : (
            <fieldset className="grid gap-2">
              <legend className="text-sm font-medium">Pay to</legend>
              {claimants.map((c) => (
                <label key={c.address} className="flex cursor-pointer items-center gap-3 rounded-lg border border-border px-3 py-2 has-[:checked]:border-primary">
                  <input type="radio" name="bounty-recipient" value={c.address} checked={chosen === c.address} onChange={() => setChosen(c.address)} />
                  <span className="font-medium">@{c.username}</span>
                  <span className="ml-auto font-mono text-xs text-muted-foreground" title={c.address}>
                    {shortAddress(c.address)}
                  </span>
                </label>
              ))}
              {awaiting && (
                // The work may have been done by someone who never registered (the pull request's author, say): any GitHub user.
                <label className="flex cursor-pointer flex-wrap items-center gap-3 rounded-lg border border-border px-3 py-2 has-[:checked]:border-primary">
                  <input type="radio" name="bounty-recipient" value={LOGIN_CHOICE} checked={byLogin} onChange={() => setChosen(LOGIN_CHOICE)} />
                  <span className="font-medium">Another GitHub user</span>
                  <input
                    aria-label="GitHub login of the recipient"
                    className={`${inputClass} h-8 min-w-0 flex-1`}
                    placeholder="login"
                    value={login}
                    onFocus={() => setChosen(LOGIN_CHOICE)}
                    onChange={(e) => {
                      setChosen(LOGIN_CHOICE);
                      setLogin(e.target.value);
                    }}
                  />
                </label>
              )}
            </fieldset>
          )
        )}
        <p className="text-sm" data-consequence>
          {mode === "release"
            ? recipient
              ? byLogin
                ? `Pays ${amountLabel} to @${recipient.username}'s Issuepool wallet; if they have none yet, it is held for them and paid when they sign in. A bounty is paid once: this cannot be undone.`
                : `Pays ${amountLabel} from the bounty to @${recipient.username}'s Issuepool wallet. A bounty is paid once: this cannot be undone.`
              : `Choose who receives ${amountLabel}.`
            : someoneWorks
              ? "Someone has registered to work on this issue: the bounty can no longer be cancelled. Release it when their work is done."
              : (claimants?.length ?? 0) > 0
                ? `A contributor registered for this issue: the contract returns ${amountLabel} to the repository's pool 3 days after this request (cancel again once it is due).`
                : `Returns ${amountLabel} to the repository's pool, where it can fund other bounties or be withdrawn.`}
        </p>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => props.onOpenChange(false)} disabled={busy}>
            Keep it
          </Button>
          <Button
            variant={mode === "cancel" ? "destructive" : "default"}
            onClick={() => void submit()}
            disabled={busy || claimants === null || (mode === "release" ? !recipient : someoneWorks)}
          >
            {busy && <Spinner className="h-4 w-4" />} {mode === "release" ? "Release bounty" : "Cancel bounty"}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
