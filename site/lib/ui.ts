/**
 * Class names of the shared UI primitives, used by Astro components and React
 * islands alike so both look the same. Variants and sizes are the spec's
 * (section 9, "Button variants").
 */
export type ButtonVariant =
  | "default" | "destructive" | "outline" | "secondary" | "ghost" | "link"
  | "glass" | "glass-primary" | "glass-secondary";
export type ButtonSize = "default" | "sm" | "lg" | "icon";

const base =
  "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-lg text-sm font-medium transition-colors " +
  "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:pointer-events-none " +
  "cursor-pointer select-none";

/**
 * A disabled filled button turns neutral (muted text on a muted ground, readable in both themes) instead of
 * fading: half-transparent dark text on mid-blue was unreadable in the dark theme (issue 16). The lighter
 * variants still fade.
 */
const disabledFilled = "disabled:bg-muted disabled:text-muted-foreground disabled:shadow-none";
const disabledFaded = "disabled:opacity-50";

const variants: Record<ButtonVariant, string> = {
  default: `bg-primary text-primary-foreground shadow-sm hover:bg-primary/90 ${disabledFilled}`,
  destructive: `bg-destructive text-destructive-foreground shadow-sm hover:bg-destructive/90 ${disabledFilled}`,
  outline: `border border-input bg-card hover:bg-muted ${disabledFaded}`,
  secondary: `bg-secondary text-secondary-foreground hover:bg-secondary/80 ${disabledFaded}`,
  ghost: `hover:bg-muted ${disabledFaded}`,
  link: `text-primary underline-offset-4 hover:underline ${disabledFaded}`,
  glass: `border border-white/20 bg-white/10 backdrop-blur-md hover:bg-white/20 dark:border-white/10 ${disabledFaded}`,
  "glass-primary": `border border-primary/30 bg-primary/15 text-primary backdrop-blur-md hover:bg-primary/25 ${disabledFaded}`,
  "glass-secondary": `border border-border bg-card/60 backdrop-blur-md hover:bg-card/80 ${disabledFaded}`,
};

const sizes: Record<ButtonSize, string> = {
  default: "h-10 px-4 py-2",
  sm: "h-8 rounded-md px-3 text-xs",
  lg: "h-11 rounded-lg px-6 text-base",
  icon: "h-10 w-10",
};

export function buttonClass(variant: ButtonVariant = "default", size: ButtonSize = "default", extra = ""): string {
  return `${base} ${variants[variant]} ${sizes[size]} ${extra}`.trim();
}

export const cardClass = "rounded-xl border border-border bg-card text-card-foreground shadow-sm";
export const badgeClass =
  "inline-flex items-center rounded-full border px-2.5 py-0.5 text-xs font-semibold whitespace-nowrap";
export const inputClass =
  "flex h-10 w-full rounded-lg border border-input bg-card px-3 py-2 text-sm placeholder:text-muted-foreground " +
  "focus-visible:outline-2 focus-visible:outline-ring disabled:cursor-not-allowed disabled:opacity-50";
