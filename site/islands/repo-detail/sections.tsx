import type { ReactNode } from "react";
import { CURRENCIES, formatAmount, type Currency } from "../../lib/format.ts";
import type { poolsOf, RepoView } from "../../lib/repo-detail-data.ts";
import { Button, ButtonLink } from "../ui/button.tsx";
import { Icon } from "../ui/icon.tsx";
import type { ViewerRole } from "./issues-table.tsx";
import { Notice, Skeleton } from "./ui.tsx";

/** The repository detail page's static parts: frame, header, badges, empty and failure states. */
export function Frame({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto w-full max-w-7xl px-4 py-6 sm:px-6 sm:py-10">
      <a href="/repos" className="inline-flex items-center gap-1.5 rounded-md text-sm font-medium text-muted-foreground hover:text-foreground" data-back-link>
        <Icon name="arrowLeft" className="h-4 w-4" /> Back to Repositories
      </a>
      {children}
    </div>
  );
}

export function Count({ value }: { value: number }) {
  return <span className="rounded-full bg-muted px-2 py-0.5 text-xs font-semibold tabular-nums text-muted-foreground">{value}</span>;
}

export function RepoHeader(props: { repo: RepoView; art?: ReactNode; openIssues: number; openBounties: number | null; pools: ReturnType<typeof poolsOf> }) {
  const { repo, pools } = props;
  return (
    <header className="mt-4 overflow-hidden rounded-2xl border border-border bg-card shadow-sm">
      {props.art && <div className="h-20 overflow-hidden sm:h-24 [&_svg]:h-full [&_svg]:w-full">{props.art}</div>}
      <div className="p-5 sm:p-6">
        <div className="flex flex-col gap-4 lg:flex-row lg:items-start lg:justify-between">
          <div className="min-w-0">
            <p className="truncate text-sm text-muted-foreground">{repo.owner} /</p>
            <h1 className="break-words text-2xl font-bold tracking-tight sm:text-3xl">{repo.name}</h1>
            <p className="mt-2 max-w-3xl text-muted-foreground">{repo.description || "No description available"}</p>
            <div className="mt-3 flex flex-wrap items-center gap-2">
              <span className="inline-flex items-center gap-1 rounded-full border border-border px-2.5 py-0.5 text-xs font-semibold text-muted-foreground">
                {repo.isPrivate && <Icon name="lock" className="h-3 w-3" />} {repo.isPrivate ? "Private" : "Public"}
              </span>
              {repo.registered ? (
                <span className="inline-flex items-center gap-1 rounded-full border border-success/30 bg-success/10 px-2.5 py-0.5 text-xs font-semibold text-success">
                  <Icon name="check" className="h-3 w-3" /> Registered on Issuepool
                </span>
              ) : (
                <span className="rounded-full border border-border bg-muted px-2.5 py-0.5 text-xs font-semibold text-muted-foreground">Not registered</span>
              )}
            </div>
          </div>
          {repo.htmlUrl && (
            <ButtonLink href={repo.htmlUrl} target="_blank" rel="noopener noreferrer" variant="outline" className="self-start" aria-label="View on GitHub (opens in a new tab)">
              <Icon name="github" className="h-4 w-4" /> View on GitHub <Icon name="external" className="h-3.5 w-3.5 text-muted-foreground" />
            </ButtonLink>
          )}
        </div>
        {repo.registered && (
          <dl className="mt-5 grid grid-cols-2 gap-3 border-t border-border pt-5 sm:grid-cols-4">
            <HeaderStat label="Open issues" value={String(props.openIssues)} />
            <HeaderStat label="Funded issues" value={props.openBounties === null ? null : String(props.openBounties)} />
            {/* Each currency the pool holds (issue 38: a pool of 99.50 USDC read 0 XDC / 0 ROXN); XDC when it holds none. */}
            {(pools ? heldCurrencies(pools) : (["XDC"] as const)).map((symbol) => (
              <HeaderStat key={symbol} label={`${symbol} pool`} value={pools ? formatAmount(pools[symbol], symbol) : null} unit={symbol} />
            ))}
          </dl>
        )}
      </div>
    </header>
  );
}

/** The currencies a pool holds, in the catalogue's order; XDC alone when it holds nothing. */
export function heldCurrencies(pools: NonNullable<ReturnType<typeof poolsOf>>): Currency[] {
  const held = CURRENCIES.filter((c) => pools[c] > 0n);
  return held.length ? held : ["XDC"];
}

export function HeaderStat({ label, value, unit }: { label: string; value: string | null; unit?: string }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 truncate text-lg font-semibold tabular-nums">
        {value === null ? (
          <Skeleton className="h-6 w-16" />
        ) : (
          <>
            {value}
            {unit && <span className="ml-1 text-sm font-medium text-muted-foreground">{unit}</span>}
          </>
        )}
      </dd>
    </div>
  );
}

export function AdminAccess({ role, admin }: { role: ViewerRole; admin: boolean | null }) {
  const yes = (
    <>
      <span className="inline-flex items-center gap-1 rounded-full border border-success/30 bg-success/10 px-2.5 py-0.5 text-xs font-semibold text-success" data-admin-badge>
        <Icon name="check" className="h-3 w-3" /> Admin Access
      </span>
      <p className="w-full text-sm text-muted-foreground">You have admin permissions for this repository and can add funds.</p>
    </>
  );
  const no = (
    <>
      <span className="inline-flex items-center gap-1 rounded-full border border-border bg-muted px-2.5 py-0.5 text-xs font-semibold text-muted-foreground" data-admin-badge>
        <Icon name="lock" className="h-3 w-3" /> No Admin Access
      </span>
      <p className="w-full text-sm text-muted-foreground">You need admin permissions to fund this repository.</p>
    </>
  );
  // A pool manager without admin rights here (perhaps demoted on GitHub): the platform removes such managers on-chain.
  const removedNote = (
    <p className="w-full text-xs text-muted-foreground" data-manager-removed-note>
      Pool manager rights on the escrow contract follow GitHub: without admin rights here, you are not (or no longer) this repository&apos;s pool manager on-chain.
    </p>
  );
  if (role === "static") {
    return (
      <>
        <span data-anon-only className="contents">
          {no}
        </span>
        <span data-auth-only>
          <Skeleton className="h-5 w-28" />
        </span>
      </>
    );
  }
  if (admin === null && role !== "anonymous") return <Skeleton className="h-5 w-28" />;
  if (admin) return yes;
  return role === "poolmanager" ? (
    <>
      {no}
      {removedNote}
    </>
  ) : (
    no
  );
}

export function NotRegistered({ role }: { role: ViewerRole }) {
  return (
    <Notice tone="info">
      <p>This repository is not registered with Issuepool yet, so its issues carry no rewards.</p>
      {role === "poolmanager" && (
        <a href="/profile" className="mt-1 inline-block font-medium text-primary underline-offset-4 hover:underline">
          Register it from your profile
        </a>
      )}
    </Notice>
  );
}

export function PullRequests({ repo }: { repo: RepoView }) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-border px-6 py-14 text-center">
      <Icon name="gitPullRequest" className="h-9 w-9 text-muted-foreground" />
      <p className="mt-3 font-semibold">No pull requests to show</p>
      <p className="mt-1 max-w-md text-sm text-muted-foreground">
        A merged pull request that fixes a funded issue pays its author automatically.
      </p>
      {repo.htmlUrl && (
        <a
          href={`${repo.htmlUrl}/pulls`}
          target="_blank"
          rel="noopener noreferrer"
          className="mt-4 inline-flex items-center gap-1 text-sm font-medium text-primary underline-offset-4 hover:underline"
        >
          Pull requests on GitHub <Icon name="external" className="h-3.5 w-3.5" />
        </a>
      )}
    </div>
  );
}

export function LoadingSkeleton() {
  return (
    <div className="mt-4 grid gap-6" aria-busy="true" aria-label="Loading repository">
      <div className="rounded-2xl border border-border bg-card p-6 shadow-sm">
        <Skeleton className="h-4 w-32" />
        <Skeleton className="mt-3 h-8 w-64" />
        <Skeleton className="mt-4 h-4 w-full max-w-xl" />
      </div>
      <Skeleton className="h-10 w-72" />
      <div className="grid grid-cols-1 gap-2">
        <Skeleton className="h-14 w-full" />
        <Skeleton className="h-14 w-full" />
        <Skeleton className="h-14 w-full" />
      </div>
    </div>
  );
}

export function Unavailable({ signInHref }: { signInHref: string }) {
  return (
    <section className="mx-auto mt-10 max-w-lg rounded-2xl border border-border bg-card p-8 text-center shadow-sm" aria-labelledby="repo-unavailable-title">
      <span className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
        <Icon name="lock" className="h-6 w-6" />
      </span>
      <h1 id="repo-unavailable-title" className="mt-4 text-xl font-semibold">
        Repository not available
      </h1>
      <p className="mt-2 text-sm text-muted-foreground">
        It may be private, renamed, or not on GitHub. Sign in to see the repositories you have access to.
      </p>
      <div className="mt-6 flex flex-col justify-center gap-2 sm:flex-row">
        <ButtonLink href={signInHref}>Sign In</ButtonLink>
        <ButtonLink href="/repos" variant="outline">
          View Registered Repositories
        </ButtonLink>
      </div>
    </section>
  );
}

export function LoadFailed({ message, onRetry }: { message: string; onRetry: () => void }) {
  return (
    <section className="mx-auto mt-10 max-w-lg rounded-2xl border border-destructive/30 bg-card p-8 text-center shadow-sm" role="alert" aria-labelledby="repo-failed-title">
      <span className="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-destructive/10 text-destructive">
        <Icon name="alert" className="h-6 w-6" />
      </span>
      <h1 id="repo-failed-title" className="mt-4 text-xl font-semibold">
        Failed to load repository
      </h1>
      <p className="mt-2 text-sm text-muted-foreground">{message}</p>
      <div className="mt-6 flex flex-col justify-center gap-2 sm:flex-row">
        <Button onClick={onRetry}>
          <Icon name="refresh" className="h-4 w-4" /> Try Again
        </Button>
        <ButtonLink href="/repos" variant="outline">
          Back to Repositories
        </ButtonLink>
      </div>
    </section>
  );
}
