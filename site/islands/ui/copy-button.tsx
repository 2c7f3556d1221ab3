import { useEffect, useState } from "react";
import { Icon } from "./icon.tsx";

/** Copies `value`; the copied mark lasts 2 s (spec section 9). */
export const COPIED_MARK_MS = 2000;

export function CopyButton({ value, label, onCopy, small = false }: { value: string; label: string; onCopy?: () => boolean | void; small?: boolean }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MARK_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      aria-label={copied ? "Copied" : label}
      title={copied ? "Copied" : label}
      className={`inline-flex shrink-0 items-center justify-center rounded-md hover:bg-muted ${small ? "h-6 w-6" : "h-8 w-8"}`}
      onClick={async () => {
        if (onCopy && onCopy() === false) return;
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
        } catch {
          // clipboard refused (permissions); nothing to mark
        }
      }}
    >
      <Icon name={copied ? "check" : "copy"} className={`${small ? "h-3.5 w-3.5" : "h-4 w-4"} ${copied ? "text-success" : ""}`} />
    </button>
  );
}
