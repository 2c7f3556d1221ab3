import type { ButtonHTMLAttributes, AnchorHTMLAttributes } from "react";
import { buttonClass, type ButtonSize, type ButtonVariant } from "../../lib/ui.ts";
import { useHydrated } from "./use-hydrated.ts";

type Common = { variant?: ButtonVariant; size?: ButtonSize };

/**
 * A plain button (type "button") does nothing until its island's script has
 * run, so the server renders it disabled and hydration enables it: a click
 * before then is refused visibly instead of lost (CI of stop 34: the wallet's
 * Buy button was clicked before React took it over, and no tab opened). A
 * submit button keeps working without the script, as a form's native submit.
 */
export function Button({ variant, size, className = "", type = "button", disabled, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & Common) {
  const hydrated = useHydrated();
  return <button type={type} className={buttonClass(variant, size, className)} disabled={disabled || (type === "button" && !hydrated)} {...rest} />;
}

export function ButtonLink({ variant, size, className = "", ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & Common) {
  return <a className={buttonClass(variant, size, className)} {...rest} />;
}
