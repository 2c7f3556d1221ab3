import { atom } from "nanostores";

/**
 * The toasts on show and their shapes (toast.ts raises them, islands/Toaster.tsx shows them). Apart from
 * toast.ts because that one loads the Toaster, which reads this: one module each way, no circle.
 */
export type ToastType = "success" | "error" | "info";

export interface ToastAction {
  label: string;
  href: string;
  /** Opens in a new tab (explorer links). */
  external?: boolean;
  /** Shown as a button (a choice the toast asks for) rather than a link. */
  button?: "default" | "outline";
}

export interface ToastInput {
  title?: string;
  message: string;
  /** 'success' and 'error' are styled; anything else is info. */
  type?: ToastType | string;
  duration?: number;
  action?: ToastAction;
  /** Several choices (e.g. 'Role Selection Required': Pool Manager or Contributor). */
  actions?: ToastAction[];
  /** The control that raised it, kept clear of the toast (default: the focused element). */
  trigger?: Element | null;
}

export interface Toast extends Omit<ToastInput, "type"> {
  id: string;
  type: ToastType;
  duration: number;
  open: boolean;
}

export const TOAST_LIMIT = 1;
export const TOAST_DEFAULT_DURATION_MS = 5000;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;

export const $toasts = atom<Toast[]>([]);

export function dismissToast(id: string): void {
  $toasts.set($toasts.get().map((t) => (t.id === id ? { ...t, open: false } : t)));
  setTimeout(() => $toasts.set($toasts.get().filter((t) => t.id !== id)), TOAST_REMOVE_DELAY_MS);
}
