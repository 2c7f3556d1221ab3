import { useEffect, useRef, useState, type ReactNode } from "react";
import { setupTooltips } from "../../lib/tooltip.ts";
import { Icon } from "../ui/icon.tsx";

// ---- Tooltips (spec section 9: 700 ms open delay, 300 ms skip delay) ----

/**
 * The site's one tooltip (site/lib/tooltip.ts, which the header already
 * loads) on the `data-rd-tooltip` element inside: the same markup the
 * anonymous page's script turns into tooltips. Radix Tooltip and its
 * positioning engine cost signed-in visitors 8 KB for one error hint
 * (issue 16).
 */
export function Tip({ content, children }: { content: string; children: ReactNode }) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    root.querySelectorAll<HTMLElement>("[data-rd-tooltip]").forEach((el) => (el.dataset.tooltip = el.dataset.rdTooltip));
    setupTooltips(root);
  }, [content]);
  return (
    <span ref={ref} className="contents">
      {children}
    </span>
  );
}

// The shared dialog is imported from ../ui/dialog.tsx by the dialogs themselves, which load when opened: a
// re-export here made every island that imports these pieces load Radix Dialog at once.

// ---- Small pieces ----

export function Skeleton({ className = "h-4 w-24" }: { className?: string }) {
  return <span aria-hidden="true" className={`inline-block animate-pulse rounded-md bg-muted ${className}`} />;
}

export function Stat(props: { label: string; value: ReactNode; hint?: ReactNode; tone?: "primary" | "success" | "default"; testId?: string }) {
  const tone = props.tone === "success" ? "text-success" : props.tone === "primary" ? "text-primary" : "text-foreground";
  return (
    <div className="min-w-0 rounded-xl border border-border bg-background/60 p-3.5" data-stat={props.testId}>
      <dt className="truncate text-xs font-medium text-muted-foreground">{props.label}</dt>
      <dd data-value className={`mt-1 text-base font-semibold leading-snug tabular-nums sm:text-lg ${tone}`}>{props.value}</dd>
      {props.hint && <dd className="mt-0.5 truncate text-xs text-muted-foreground">{props.hint}</dd>}
    </div>
  );
}

export function Notice({ tone = "info", children, icon = "alert" }: { tone?: "info" | "warning" | "error" | "success"; children: ReactNode; icon?: "alert" | "lock" | "check" | "clock" }) {
  const tones = {
    info: "border-primary/25 bg-primary/5 text-foreground",
    warning: "border-warning/40 bg-warning/10 text-foreground",
    error: "border-destructive/40 bg-destructive/10 text-foreground",
    success: "border-success/35 bg-success/10 text-foreground",
  };
  const iconTone = { info: "text-primary", warning: "text-warning", error: "text-destructive", success: "text-success" };
  return (
    <div className={`flex gap-2.5 rounded-lg border px-3 py-2.5 text-sm ${tones[tone]}`}>
      <Icon name={icon} className={`mt-0.5 h-4 w-4 shrink-0 ${iconTone[tone]}`} />
      <div className="min-w-0">{children}</div>
    </div>
  );
}
