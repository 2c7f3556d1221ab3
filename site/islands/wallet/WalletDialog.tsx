import type { ReactNode } from "react";
import { Dialog } from "radix-ui";
import { Icon } from "../ui/icon.tsx";

/**
 * The wallet's dialogs (Radix Dialog): focus is trapped inside, Escape and
 * the 'Close' button close it, and it never grows past 90% of the viewport
 * (spec section 9); long content scrolls inside.
 */
export function WalletDialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  children: ReactNode;
  /** Keeps clicks outside from closing it (a step in progress would be lost). */
  modalLocked?: boolean;
}) {
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/50 backdrop-blur-[2px]" />
        <Dialog.Content
          onPointerDownOutside={(event) => props.modalLocked && event.preventDefault()}
          className={
            "fixed left-1/2 top-1/2 z-50 grid max-h-[90vh] w-[calc(100%-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto " +
            "rounded-xl border border-border bg-card p-6 text-card-foreground shadow-xl focus:outline-none"
          }
        >
          <div className="pr-8">
            <Dialog.Title className="text-lg font-semibold tracking-tight">{props.title}</Dialog.Title>
            <Dialog.Description className="mt-1 text-sm text-muted-foreground">{props.description}</Dialog.Description>
          </div>
          {props.children}
          <Dialog.Close aria-label="Close" className="absolute right-3 top-3 rounded-md p-1.5 text-muted-foreground hover:bg-muted hover:text-foreground">
            <Icon name="x" className="h-4 w-4" />
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** An error or notice inside a dialog, announced to screen readers. */
export function InlineAlert({ title, message, tone = "error" }: { title?: string; message: string; tone?: "error" | "info" | "success" }) {
  const tones = {
    error: "border-destructive/40 bg-destructive/10 text-destructive",
    info: "border-border bg-muted text-foreground",
    success: "border-success/40 bg-success/10 text-foreground",
  };
  return (
    <div role={tone === "error" ? "alert" : "status"} className={`rounded-lg border px-3 py-2 text-sm ${tones[tone]}`}>
      {title && <p className="font-semibold">{title}</p>}
      <p>{message}</p>
    </div>
  );
}
