/**
 * Icons (Lucide-style strokes) live in one SVG sprite, served as a hashed,
 * immutable file: pages reference them with <use> instead of repeating the
 * paths, and browsers fetch the sprite once.
 */
import spriteUrl from "../assets/icons.svg?url";

export type IconName = "menu" | "x" | "sun" | "moon" | "monitor" | "chevronDown" | "help" | "chat" | "compass" | "book" | "wallet" | "user" | "server" | "logOut" | "external" | "mail" | "github" | "coins" | "check" | "sparkles" | "copy" | "alert" | "refresh" | "lock" | "arrowLeft" | "qr" | "send" | "key" | "arrowDownLeft" | "arrowUpRight" | "clock" | "gitPullRequest" | "upload" | "fileText";

export function iconHref(name: IconName): string {
  return `${spriteUrl}#${name}`;
}
