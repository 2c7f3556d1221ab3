import { useEffect, useRef } from "react";
import { useStore } from "./ui/use-store.ts";
import { Toast } from "radix-ui";
import { $toasts, dismissToast, type Toast as ToastItem, type ToastAction } from "../stores/toast-state.ts";
import { buttonClass } from "../lib/ui.ts";

/** Mounted on the client only (site/lib/toaster-mount.ts): no server render to match. */
const NO_TOASTS: ToastItem[] = [];

const tone: Record<ToastItem["type"], string> = {
  success: "border-success/40 bg-card",
  error: "border-destructive/50 bg-destructive text-destructive-foreground",
  info: "border-border bg-card",
};

/**
 * Radix Toast gives what spec section 9 asks: bottom right, swipe right to
 * dismiss past 50 px, F8 moves focus to the notifications region, and the
 * viewport is at most 420 px wide from medium screens up.
 */
export default function Toaster() {
  const toasts = useStore($toasts, NO_TOASTS);
  const viewport = useRef<HTMLOListElement>(null);
  const shown = toasts.find((t) => t.open);
  useEffect(() => {
    const trigger = shown?.trigger;
    const list = viewport.current;
    if (!trigger || !list) return;
    // The toast appears asynchronously (a portal, an animation): measure whenever the list changes size.
    const observer = new ResizeObserver(() => keepClear(trigger, list));
    observer.observe(list);
    return () => {
      observer.disconnect();
      document.body.style.removeProperty("padding-bottom");
    };
  }, [shown]);
  return (
    <Toast.Provider swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <Toast.Root
          key={t.id}
          open={t.open}
          duration={t.duration}
          onOpenChange={(open) => !open && dismissToast(t.id)}
          data-toast-type={t.type}
          className={
            "group pointer-events-auto relative flex w-full items-start gap-3 overflow-hidden rounded-xl border p-4 pr-9 shadow-lg " +
            "data-[state=open]:animate-[toast-in_150ms_ease-out] data-[state=closed]:animate-[toast-out_120ms_ease-in] " +
            "data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 " +
            "data-[swipe=cancel]:transition-transform data-[swipe=end]:animate-[toast-swipe-out_120ms_ease-out] " +
            tone[t.type]
          }
        >
          <div className="grid gap-1">
            {t.title && <Toast.Title className="text-sm font-semibold">{t.title}</Toast.Title>}
            <Toast.Description className="text-sm opacity-90">{t.message}</Toast.Description>
            {t.action && <ActionLink action={t.action} />}
            {t.actions && t.actions.length > 0 && (
              <div className="mt-2 flex flex-wrap gap-2">
                {t.actions.map((action) => <ActionLink key={action.href} action={action} />)}
              </div>
            )}
          </div>
          <Toast.Close
            aria-label="Close"
            className="absolute right-2 top-2 rounded-md p-1 opacity-70 hover:opacity-100 focus-visible:opacity-100"
          >
            <svg aria-hidden="true" viewBox="0 0 24 24" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="2">
              <path d="M18 6 6 18M6 6l12 12" />
            </svg>
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport ref={viewport} className="fixed bottom-0 right-0 z-[100] m-0 flex max-h-screen w-full list-none flex-col-reverse gap-2 p-4 outline-none md:max-w-[420px]" />
    </Toast.Provider>
  );
}

/**
 * A toast must not cover the control that raised it (issue 16: the FAQ's
 * "Support chat unavailable" sat on "Chat with Support", so a second press
 * was impossible). When they overlap, the page gets room at its end and
 * scrolls the control up above the toast; the room goes when the toast does.
 */
function keepClear(trigger: Element, list: HTMLElement): void {
  const toast = list.querySelector("li");
  if (!toast || !trigger.isConnected) return;
  // Where the toast settles: its offsets within the list (the list is fixed, and offsets ignore the slide-in transform).
  const box = list.getBoundingClientRect();
  const t = { top: box.top + toast.offsetTop, left: box.left + toast.offsetLeft, bottom: 0, right: 0 };
  t.bottom = t.top + toast.offsetHeight;
  t.right = t.left + toast.offsetWidth;
  const c = trigger.getBoundingClientRect();
  const overlaps = c.bottom > t.top && c.top < t.bottom && c.right > t.left && c.left < t.right;
  if (!overlaps) return;
  const lift = Math.ceil(c.bottom - t.top) + 16;
  const padding = parseFloat(getComputedStyle(document.body).paddingBottom) || 0;
  document.body.style.paddingBottom = `${padding + lift}px`;
  window.scrollBy({ top: lift, behavior: "instant" });
}

function ActionLink({ action }: { action: ToastAction }) {
  return (
    <Toast.Action altText={action.label} asChild>
      <a
        href={action.href}
        target={action.external ? "_blank" : undefined}
        rel={action.external ? "noopener noreferrer" : undefined}
        className={action.button ? buttonClass(action.button, "sm", action.button === "outline" ? "text-foreground" : "") : "mt-1 w-fit text-sm font-medium underline underline-offset-4"}
      >
        {action.label}
      </a>
    </Toast.Action>
  );
}
