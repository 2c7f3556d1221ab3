import type { ApiResponse } from "../../lib/api.ts";
import { fromApi } from "../../lib/funding-rules.ts";
import { formatAmount } from "../../lib/format.ts";
import { Skeleton } from "./ui.tsx";

export type FundingStatus = ApiResponse<"getFundingStatus">;
type Figure = FundingStatus["limits"]["repository"];

const SCOPE_TEXT = {
  repository: { title: "This repository", what: "XDC added to this pool by every funder" },
  funder: { title: "You, across all pools and boosts", what: "XDC you added to any pool or boosted any issue with" },
} as const;

/** "the repository's limit" / "your own limit": what binds, in the words the Remaining today figure uses. */
export const bindingLabel = (status: FundingStatus) => (status.limits.binding === "funder" ? "Your own daily limit binds" : "This repository's daily limit binds");

/**
 * The two daily funding limits an XDC funding is checked against (issue 38, item 3; api/services/money/limits.ts):
 * the repository's 1000 XDC a day from every funder, and the signed-in funder's own 1000 XDC a day across every pool
 * and boost, each with what is used and left, and which one binds: the smaller remaining figure, the one Remaining
 * today and Max use. All figures are the API's (funding-status), the ones the server enforces.
 */
export function FundingLimits({ status }: { status: FundingStatus | undefined }) {
  if (!status) return <Skeleton className="h-20 w-full" />;
  const figures = [status.limits.repository, ...(status.limits.funder ? [status.limits.funder] : [])];
  const resets = status.windowEndTime ? new Date(status.windowEndTime) : null;
  return (
    <section aria-labelledby="funding-limits-title" className="rounded-xl border border-border bg-background/60 p-3.5" data-funding-limits data-binding={status.limits.binding}>
      <h4 id="funding-limits-title" className="text-sm font-semibold">
        Daily funding limit
      </h4>
      <ul className="mt-2.5 grid gap-3">
        {figures.map((figure) => (
          <LimitRow key={figure.scope} figure={figure} binds={figures.length > 1 && figure.scope === status.limits.binding} />
        ))}
      </ul>
      <p className="mt-2.5 text-xs text-muted-foreground">
        Rolling 24-hour windows. Your next XDC funding can be at most {formatAmount(fromApi(status.remainingLimitXdc, "XDC"), "XDC")} XDC
        {figures.length > 1 ? ` (${bindingLabel(status).toLowerCase()})` : ""}
        {resets && !Number.isNaN(resets.getTime()) ? (
          <>
            ; it grows again from <time dateTime={status.windowEndTime!}>{resets.toLocaleString()}</time>.
          </>
        ) : (
          ". Nothing counts in the last 24 hours."
        )}
      </p>
    </section>
  );
}

function LimitRow({ figure, binds }: { figure: Figure; binds: boolean }) {
  const limit = fromApi(figure.dailyLimitXdc, "XDC");
  const used = fromApi(figure.usedXdc, "XDC");
  const percent = limit > 0n ? Number((used * 1000n) / limit) / 10 : 0;
  const text = SCOPE_TEXT[figure.scope];
  return (
    <li data-limit={figure.scope} data-binds={binds ? "true" : undefined}>
      <div className="flex flex-wrap items-baseline justify-between gap-x-2 gap-y-0.5">
        <span className="text-xs font-medium">
          {text.title}
          {binds && <span className="ml-1.5 rounded-full bg-muted px-1.5 py-0.5 text-[11px] font-semibold text-foreground">binds</span>}
        </span>
        <span className="text-xs tabular-nums text-muted-foreground" data-limit-used>
          {formatAmount(used, "XDC")} of {formatAmount(limit, "XDC")} XDC used · {formatAmount(fromApi(figure.remainingXdc, "XDC"), "XDC")} XDC left
        </span>
      </div>
      <div
        className="mt-1.5 h-2 overflow-hidden rounded-full bg-muted"
        role="progressbar"
        aria-label={`${text.title}: daily funding limit used`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(percent)}
      >
        <div className={`h-full rounded-full ${percent >= 100 ? "bg-destructive" : "bg-primary"}`} style={{ width: `${Math.min(100, percent)}%` }} />
      </div>
      <p className="mt-1 text-[11px] text-muted-foreground">{text.what}.</p>
    </li>
  );
}
