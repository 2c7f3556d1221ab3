import { $toasts, TOAST_DEFAULT_DURATION_MS, TOAST_LIMIT, type Toast, type ToastInput, type ToastType } from "./toast-state.ts";

/**
 * Notifications (spec sections 3 and 9): one shown at a time, the newest
 * replacing the current one; 5000 ms by default; a dismissed toast is kept
 * (closed) for 1,000,000 ms before it is removed. Callable from islands and
 * plain scripts alike; the first toast on a page loads the Toaster.
 */
export * from "./toast-state.ts";

let counter = 0;

export function toast(input: ToastInput): string {
  const id = `${Date.now()}${counter++ ? `-${counter}` : ""}`;
  const type: ToastType = input.type === "success" || input.type === "error" ? input.type : "info";
  const focused = typeof document !== "undefined" && document.activeElement !== document.body ? document.activeElement : null;
  const next: Toast = { ...input, id, type, duration: input.duration ?? TOAST_DEFAULT_DURATION_MS, open: true, trigger: input.trigger ?? focused };
  $toasts.set([next, ...$toasts.get()].slice(0, TOAST_LIMIT));
  if (typeof document !== "undefined") void import("../lib/toaster-mount.ts").then((m) => m.mountToaster());
  return id;
}

const FLASH_KEY = "ip_flash_toast";

/** A toast for the next page (when this one is about to navigate away). */
export function flashToast(input: ToastInput): void {
  try {
    sessionStorage.setItem(FLASH_KEY, JSON.stringify({ ...input, trigger: undefined }));
  } catch {
    toast(input);
  }
}

/** Shows a toast left by the previous page, once. */
export function showFlashToast(): void {
  let raw: string | null = null;
  try {
    raw = sessionStorage.getItem(FLASH_KEY);
    sessionStorage.removeItem(FLASH_KEY);
  } catch {
    return;
  }
  if (raw) toast(JSON.parse(raw) as ToastInput);
}
