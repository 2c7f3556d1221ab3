import { iconHref, type IconName } from "../../lib/icons.ts";

export function Icon({ name, className = "h-4 w-4", label }: { name: IconName; className?: string; label?: string }) {
  return (
    <svg className={className} role={label ? "img" : undefined} aria-label={label} aria-hidden={label ? undefined : true}>
      <use href={iconHref(name)} />
    </svg>
  );
}
