import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Tooltip } from "radix-ui";
import { TOOLTIP_OPEN_DELAY_MS, TOOLTIP_SKIP_DELAY_MS } from "../../lib/tooltip.ts";
import { Icon } from "../ui/icon.tsx";

/** True after the first client render: server HTML and the first render must agree. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

// ---- Tabs ----

export interface TabItem<V extends string> {
  value: V;
  label: ReactNode;
  /** The accessible name when the label holds more than text (counts). */
  name?: string;
}

/**
 * WAI-ARIA tabs whose server-rendered markup also works without React
 * (site/lib/repo-detail-tabs.ts drives it for anonymous visitors): every
 * panel is rendered, the unselected ones `hidden`.
 */
export function Tabs<V extends string>(props: {
  id: string;
  label: string;
  items: TabItem<V>[];
  value: V;
  onChange: (value: V) => void;
  panel: (value: V) => ReactNode;
  /** Keep the selection in the URL's hash (#rewards). */
  hash?: boolean;
  listClassName?: string;
  className?: string;
}) {
  const refs = useRef(new Map<V, HTMLButtonElement>());
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const count = props.items.length;
    const next: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: count - 1 };
    if (!(event.key in next)) return;
    event.preventDefault();
    const item = props.items[(next[event.key]! + count) % count]!;
    select(item.value);
    refs.current.get(item.value)?.focus();
  };
  const select = (value: V) => {
    props.onChange(value);
    if (props.hash) history.replaceState(history.state, "", `#${value}`);
  };
  return (
    <div data-tabs="" data-tabs-hash={props.hash ? "" : undefined} className={props.className}>
      <div role="tablist" aria-label={props.label} className={props.listClassName ?? "inline-flex items-center gap-1 rounded-xl border border-border bg-muted/60 p-1"}>
        {props.items.map((item, index) => {
          const selected = item.value === props.value;
          return (
            <button
              key={item.value}
              ref={(el) => {
                if (el) refs.current.set(item.value, el);
              }}
              type="button"
              role="tab"
              id={`${props.id}-tab-${item.value}`}
              aria-controls={`${props.id}-panel-${item.value}`}
              aria-selected={selected}
              aria-label={item.name}
              tabIndex={selected ? 0 : -1}
              data-tab={item.value}
              data-state={selected ? "active" : "inactive"}
              onClick={() => select(item.value)}
              onKeyDown={(e) => onKeyDown(e, index)}
              className={
                "inline-flex h-9 items-center gap-2 whitespace-nowrap rounded-lg px-3 text-sm font-medium text-muted-foreground transition-colors " +
                "hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring " +
                "data-[state=active]:bg-card data-[state=active]:text-foreground data-[state=active]:shadow-sm"
              }
            >
              {item.label}
            </button>
          );
        })}
      </div>
      {props.items.map((item) => (
        <div
          key={item.value}
          role="tabpanel"
          id={`${props.id}-panel-${item.value}`}
          aria-labelledby={`${props.id}-tab-${item.value}`}
          data-panel={item.value}
          hidden={item.value !== props.value}
          tabIndex={0}
          className="mt-5 rounded-lg focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-ring"
        >
          {props.panel(item.value)}
        </div>
      ))}
    </div>
  );
}

// ---- Tooltips (spec section 9: 700 ms open delay, 300 ms skip delay) ----

export function TooltipProvider({ children }: { children: ReactNode }) {
  return (
    <Tooltip.Provider delayDuration={TOOLTIP_OPEN_DELAY_MS} skipDelayDuration={TOOLTIP_SKIP_DELAY_MS}>
      {children}
    </Tooltip.Provider>
  );
}

export function Tip({ content, children }: { content: string; children: ReactNode }) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content
          sideOffset={6}
          collisionPadding={8}
          className="z-[60] max-w-xs break-words rounded-md bg-foreground px-2.5 py-1.5 text-xs font-medium text-background shadow-md"
        >
          {content}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}

// ---- Dialog: the shared one (focus trapped, Escape closes, 'Close' button, at most 90% of the viewport high) ----

export { Dialog } from "../ui/dialog.tsx";

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
