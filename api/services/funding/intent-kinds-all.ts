/** Every kind of money intent, imported once so each registers itself (intent-kinds.ts). One line per kind. */
import "../tips/tip-intent.ts";
import "./boost-intent.ts";
