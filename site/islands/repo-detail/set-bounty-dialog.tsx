import { useEffect, useState, type FormEvent } from "react";
import { RadioGroup } from "radix-ui";
import { api } from "../../lib/api.ts";
import { BOUNTY_RULES, bountyProblem, isSubmittableAmount, parseAmount, toPlainDecimal, type Currency } from "../../lib/funding-rules.ts";
import { bountyAmount, bountyLabel, isBountySet, poolsOf, type BountyInfo, type PoolInfo, type RepoIssue, type RepoView } from "../../lib/repo-detail-data.ts";
import { formatAmount } from "../../lib/format.ts";
import { inputClass } from "../../lib/ui.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { Spinner } from "../ui/spinner.tsx";
import { issueBounty } from "./bounty-cache.ts";
import { isTimeout, serverMessage, transactionToast, useActionKey, type TransactionResult } from "./actions.ts";
import { CURRENCY_OPTIONS, TokenMark } from "./tokens.tsx";
import { Dialog } from "../ui/dialog.tsx";
import { Notice, Skeleton } from "./ui.tsx";

const FORM_ID = "set-bounty-form";
/** The currency of a bounty already set; XDC, the first choice, otherwise. */
const currencyOf = (bounty: BountyInfo | null | undefined): Currency => (bounty && isBountySet(bounty) ? bountyAmount(bounty).currency : "XDC");

/** Spec section 9: the bounty toast stays 9 s. */
export const BOUNTY_TOAST_MS = 9000;
/** Spec section 7: the client gives up on allocate-bounty after 15 s. */
export const ALLOCATE_TIMEOUT_MS = 15_000;

export interface SetBountyDialogProps {
  repo: RepoView;
  issue: RepoIssue | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** What the page knows already (shown while the fresh reads load). */
  knownBounty: BountyInfo | null | undefined;
  knownPool: PoolInfo | null | undefined;
  /** A transaction was sent (result) or may have been (null: timed out). */
  onAllocated: (issueNumber: number, result: TransactionResult | null) => void;
}

/**
 * Set Bounty for Issue #{number} (spec sections 2, 4, 5): currency and
 * network, the available pool, the amount (step and minimum by currency,
 * reset on open and on currency change), the minimum note, the finality
 * warning; a bounty already assigned locks the dialog.
 */
export function SetBountyDialog(props: SetBountyDialogProps) {
  const { issue, repo } = props;
  const [currency, setCurrency] = useState<Currency>("XDC");
  const [amount, setAmount] = useState("");
  const [pending, setPending] = useState(false);
  const [pool, setPool] = useState<PoolInfo | null | undefined>(props.knownPool);
  const [bounty, setBounty] = useState<BountyInfo | null | undefined>(props.knownBounty);
  const [loading, setLoading] = useState(false);
  const action = useActionKey();

  // Every opening starts clean and reads the pool and the issue's bounty afresh.
  useEffect(() => {
    if (!props.open || !issue || !repo.repoId) return;
    // A bounty already set shows in its own currency, beside its own pool (issue 27: a ROXN bounty opened on XDC).
    setCurrency(currencyOf(props.knownBounty));
    setAmount("");
    setPool(props.knownPool);
    setBounty(props.knownBounty);
    setLoading(true);
    let alive = true;
    // Pool-info holds the pools and every bounty of the repository: one fresh read answers both.
    api(`/api/blockchain/pool-info/${repo.repoId}`).then(
      (fresh) => {
        if (!alive) return;
        setPool(fresh);
        const current = fresh.issues.find((b) => b.issueId === issue.number && b.status !== "cancelled") ?? null;
        setBounty(current);
        if (isBountySet(current)) setCurrency(currencyOf(current));
        setLoading(false);
      },
      () => {
        if (!alive) return;
        // Fall back on the issue's own bounty; the pool stays as the page knew it.
        issueBounty(repo.repoId!, issue.number, { fresh: true }).then(
          (b) => {
            if (!alive) return;
            setBounty(b);
            if (isBountySet(b)) setCurrency(currencyOf(b));
          },
          () => {},
        );
        setLoading(false);
      },
    );
    return () => {
      alive = false;
    };
    // Only on opening: what the page knows later must not reset what the person typed.
  }, [props.open, issue?.number, repo.repoId]);

  if (!issue) return null;
  const rules = BOUNTY_RULES[currency];
  const pools = poolsOf(pool);
  const available = pools?.[currency] ?? null;
  const exists = isBountySet(bounty);
  const noAdmin = repo.admin === false;
  const locked = exists || pending || noAdmin;
  const canSubmit = isSubmittableAmount(amount, currency) && !pending && !loading && !exists && !noAdmin;

  const chooseCurrency = (value: string) => {
    setCurrency(value as Currency);
    setAmount("");
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = parseAmount(amount, currency);
    if (!canSubmit || value === null || !repo.repoId) return;
    const problem = bountyProblem({ amount: value, currency, pool: available });
    if (problem) {
      toast({ type: "error", title: problem.title, message: problem.message });
      if (problem.clampTo !== undefined) setAmount(problem.clampTo);
      return;
    }
    const bountyAmount = toPlainDecimal(value, currency);
    setPending(true);
    try {
      const result = await api(`/api/blockchain/allocate-bounty/${repo.repoId}/${issue.number}`, {
        method: "POST",
        body: {
          bountyAmount,
          isRoxn: currency === "ROXN",
          currency,
          githubRepoFullName: repo.fullName,
          issueTitle: issue.title,
          issueUrl: issue.html_url,
        },
        idempotencyKey: action.keyFor(`${repo.repoId}/${issue.number}/${currency}/${bountyAmount}`),
        timeoutMs: ALLOCATE_TIMEOUT_MS,
      });
      action.settle();
      transactionToast({
        title: `${currency} Bounty Transaction Submitted`,
        message: `${currency} transaction sent successfully.`,
        actionLabel: "View Explorer",
        result,
        duration: BOUNTY_TOAST_MS,
      });
      props.onAllocated(issue.number, result);
      props.onOpenChange(false);
    } catch (err) {
      action.settle(err);
      if (isTimeout(err)) {
        toast({ type: "info", title: `Setting ${currency} Bounty`, message: "Bounty submitted but not yet confirmed (timeout)", duration: BOUNTY_TOAST_MS });
        props.onAllocated(issue.number, null);
        props.onOpenChange(false);
        return;
      }
      toast({ type: "error", title: `Error Setting ${currency} Bounty`, message: serverMessage(err, `Failed to allocate ${currency} reward`) });
      // Someone may have set it meanwhile: show what is there now.
      issueBounty(repo.repoId, issue.number, { fresh: true }).then(setBounty, () => {});
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      open={props.open}
      onOpenChange={props.onOpenChange}
      title={`Set Bounty for Issue #${issue.number}`}
      description={<span className="line-clamp-2">{issue.title}</span>}
      footer={
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="outline" onClick={() => props.onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" form={FORM_ID} disabled={!canSubmit}>
            {pending ? (
              <>
                <Spinner className="h-4 w-4" /> Setting Bounty...
              </>
            ) : (
              `Set ${currency} Bounty`
            )}
          </Button>
        </div>
      }
    >
      <form id={FORM_ID} onSubmit={submit} noValidate className="mt-5 grid gap-5" data-set-bounty-form>
        {exists && (
          <Notice tone="info" icon="lock">
            <p role="status">A bounty of {bountyLabel(bounty)} is already assigned. You cannot change it.</p>
          </Notice>
        )}
        {noAdmin && !exists && (
          <Notice tone="warning" icon="lock">
            You need admin permissions to set a bounty on this repository.
          </Notice>
        )}

        <fieldset disabled={locked} className="min-w-0">
          <legend id="bounty-currency-label" className="text-sm font-medium">
            Currency and network
          </legend>
          <RadioGroup.Root
            value={currency}
            onValueChange={chooseCurrency}
            aria-labelledby="bounty-currency-label"
            disabled={locked}
            className="mt-2 grid gap-2"
          >
            {CURRENCY_OPTIONS.map((option) => (
              <RadioGroup.Item
                key={option.symbol}
                value={option.symbol}
                aria-label={`${option.symbol} on ${option.network}`}
                aria-describedby={`bounty-currency-${option.symbol}`}
                className={
                  "group flex w-full items-center gap-3 rounded-xl border border-border bg-background/60 p-3 text-left transition-colors " +
                  "hover:border-primary/50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring " +
                  "disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:border-primary data-[state=checked]:bg-primary/5"
                }
              >
                <TokenMark symbol={option.symbol} className="h-9 w-9 text-sm" />
                <span className="min-w-0 flex-1">
                  <span className="flex flex-wrap items-center gap-2">
                    <span className="font-semibold">{option.symbol}</span>
                    <span className="rounded-full bg-muted px-2 py-0.5 text-[11px] font-medium text-muted-foreground">{option.network}</span>
                  </span>
                  <span id={`bounty-currency-${option.symbol}`} className="mt-0.5 block text-xs text-muted-foreground">
                    {option.description} · {option.fees}
                  </span>
                </span>
                <span
                  aria-hidden="true"
                  className="flex h-4 w-4 shrink-0 items-center justify-center rounded-full border border-input group-data-[state=checked]:border-primary"
                >
                  <RadioGroup.Indicator className="h-2 w-2 rounded-full bg-primary" />
                </span>
              </RadioGroup.Item>
            ))}
          </RadioGroup.Root>
        </fieldset>

        <div className="flex items-center justify-between gap-3 rounded-xl bg-muted/60 px-3.5 py-2.5 text-sm">
          <span className="text-muted-foreground">Available {currency} pool</span>
          <span className="font-semibold tabular-nums" data-available-pool>
            {available !== null ? `${formatAmount(available, currency)} ${currency}` : loading ? <Skeleton className="h-4 w-24" /> : "Unavailable"}
          </span>
        </div>

        <div>
          <label htmlFor="bounty-amount" className="text-sm font-medium">
            Bounty amount ({currency})
          </label>
          <div className="relative mt-1.5">
            <input
              id="bounty-amount"
              type="number"
              inputMode="decimal"
              min={rules.min}
              step={rules.step}
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              placeholder={`Enter amount in ${currency}`}
              disabled={locked}
              aria-describedby="bounty-min-note"
              className={`${inputClass} pr-16 tabular-nums`}
            />
            <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center text-sm font-medium text-muted-foreground">{currency}</span>
          </div>
          <p id="bounty-min-note" className="mt-1.5 text-xs text-muted-foreground">
            Minimum bounty: {rules.min} {currency}
          </p>
        </div>

        <Notice tone="warning">
          <strong className="font-semibold">Setting a bounty is final.</strong> Once assigned, the amount cannot be changed.
        </Notice>
      </form>
    </Dialog>
  );
}
