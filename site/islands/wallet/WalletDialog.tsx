import type { ReactNode } from "react";
import { Dialog } from "../ui/dialog.tsx";

/**
 * The wallet's dialogs: the product's dialog (focus trapped, Escape and
 * 'Close' close it, at most 90% of the viewport high) with its steps spaced.
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
  return <Dialog {...props} className="gap-4" />;
}

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
