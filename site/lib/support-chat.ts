import { toast } from "../stores/toast.ts";

type Widgets = {
  $crisp?: { push(args: unknown[]): void };
  Tawk_API?: { maximize?: () => void };
  Intercom?: (command: string) => void;
};

/**
 * Opens the configured third-party support chat. The widget script is the
 * operator's choice, so the common widget APIs are tried in turn; with no
 * widget loaded the visitor is pointed to the support e-mail instead.
 */
export function openSupportChat(email: string): void {
  const w = window as unknown as Widgets;
  if (w.$crisp) return w.$crisp.push(["do", "chat:open"]);
  if (w.Tawk_API?.maximize) return w.Tawk_API.maximize();
  if (typeof w.Intercom === "function") return w.Intercom("show");
  toast({
    title: "Support chat unavailable",
    message: `The chat is not available right now. Write to ${email} and we will get back to you.`,
    action: { label: "Send an e-mail", href: `mailto:${email}` },
  });
}
