import type { ReactNode } from "react";
import { Dialog as RadixDialog } from "radix-ui";
import { Icon } from "./icon.tsx";

/**
 * The product's modal dialog (spec section 9): focus is trapped inside,
 * Escape closes it, the close button is labelled 'Close', and it is at most
 * 90 % of the viewport high: the title stays at the top, the footer (when
 * given: the dialog's buttons) at the bottom, and the body between them
 * scrolls (issue 27: at 1280×800 the Set Bounty dialog's buttons were below
 * its fold). Full width minus a margin on a phone.
 */
export function Dialog(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  /** Kept in view below the scrolling body: the dialog's buttons. */
  footer?: ReactNode;
  /** Extra classes for the panel, e.g. a wider `max-w-2xl`. */
  className?: string;
  /** Keeps clicks outside from closing it (a step in progress would be lost). */
  modalLocked?: boolean;
}) {
  return (
    <RadixDialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-black/50 backdrop-blur-[2px] data-[state=open]:animate-[dialog-fade-in_150ms_ease-out]" />
        <RadixDialog.Content
          onPointerDownOutside={(event) => props.modalLocked && event.preventDefault()}
          className={
            "fixed left-1/2 top-1/2 z-50 flex max-h-[90vh] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 flex-col " +
            "rounded-2xl border border-border bg-card p-5 text-card-foreground shadow-2xl sm:p-6 data-[state=open]:animate-[dialog-pop-in_160ms_ease-out] " +
            (props.className ?? "")
          }
        >
          <div className="pr-8">
            <RadixDialog.Title className="text-lg font-semibold tracking-tight">{props.title}</RadixDialog.Title>
            {props.description ? (
              <RadixDialog.Description className="mt-1 text-sm text-muted-foreground">{props.description}</RadixDialog.Description>
            ) : (
              <RadixDialog.Description className="sr-only">{props.title}</RadixDialog.Description>
            )}
          </div>
          {/* The body scrolls edge to edge (its scrollbar at the panel's edge), with room for focus rings. */}
          <div data-dialog-body className="-mx-5 -mb-1 flex min-h-0 flex-1 flex-col overflow-y-auto px-5 pb-1 sm:-mx-6 sm:px-6">
            {props.children}
          </div>
          {props.footer && <div className="shrink-0 pt-4">{props.footer}</div>}
          <RadixDialog.Close
            aria-label="Close"
            className="absolute right-3 top-3 inline-flex h-8 w-8 items-center justify-center rounded-md text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:outline-2 focus-visible:outline-ring"
          >
            <Icon name="x" className="h-4 w-4" />
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
