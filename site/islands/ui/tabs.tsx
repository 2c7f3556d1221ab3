import { useRef, type KeyboardEvent, type ReactNode } from "react";

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
  tabClassName?: string;
  panelClassName?: string;
  className?: string;
  /**
   * Render only the selected panel (the others stay empty and hidden), as
   * Radix Tabs did for the wallet: a panel's data then loads when it is opened.
   * Off, every panel is rendered, so the server HTML works without React.
   */
  selectedOnly?: boolean;
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
                props.tabClassName ??
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
          className={props.panelClassName ?? "mt-5 rounded-lg focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-ring"}
        >
          {!props.selectedOnly || item.value === props.value ? props.panel(item.value) : null}
        </div>
      ))}
    </div>
  );
}
