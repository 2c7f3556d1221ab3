import { Fragment } from "react";
import { CLAIM_STEPS } from "../../../lib/claiming.ts";
import type { ViewerRole } from "./issues-table.tsx";

/** `text` with its Markdown code spans as <code>. */
function Spans({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, i) => (i % 2 ? <code key={i} className="rounded bg-muted px-1 py-0.5 font-mono text-[0.8em]">{part}</code> : <Fragment key={i}>{part}</Fragment>))}
    </>
  );
}

/**
 * How to take on an issue, told to each kind of visitor as the bot's comment
 * tells them (lib/claiming.ts): contributors, who have no Contribute button,
 * comment /attempt; visitors without a role choose Contribute. Pool managers
 * set bounties instead and see nothing here.
 */
export function ClaimHowTo({ role }: { role: ViewerRole }) {
  const first = role === "contributor" ? CLAIM_STEPS.contributor : role === "static" || role === "anonymous" || role === "none" ? CLAIM_STEPS.newcomer : null;
  if (!first) return null;
  return (
    <div
      className="rounded-xl border border-border bg-card px-4 py-3 text-sm shadow-sm"
      data-claim-how-to={role === "contributor" ? "contributor" : "newcomer"}
      data-anon-only={role === "static" ? "" : undefined}
    >
      <p className="font-semibold">To take on an issue</p>
      <ol className="mt-1 list-decimal space-y-0.5 pl-5 text-muted-foreground">
        <li>
          <Spans text={first} />
        </li>
        <li>
          <Spans text={CLAIM_STEPS.pullRequest("<number>")} />
        </li>
        <li>{CLAIM_STEPS.paid}</li>
      </ol>
    </div>
  );
}
