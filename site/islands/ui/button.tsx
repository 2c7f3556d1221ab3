import type { ButtonHTMLAttributes, AnchorHTMLAttributes } from "react";
import { buttonClass, type ButtonSize, type ButtonVariant } from "../../lib/ui.ts";

type Common = { variant?: ButtonVariant; size?: ButtonSize };

export function Button({ variant, size, className = "", type = "button", ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & Common) {
  return <button type={type} className={buttonClass(variant, size, className)} {...rest} />;
}

export function ButtonLink({ variant, size, className = "", ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & Common) {
  return <a className={buttonClass(variant, size, className)} {...rest} />;
}
