/**
 * Values the pages need that come from server configuration, not from the
 * build. On-demand pages read them from `Astro.locals.runtime`; prerendered
 * pages are built with the markers below, which the server replaces when it
 * loads the built HTML (see api/site-host/static-files.ts). Keep values plain text:
 * they are HTML-escaped on substitution.
 */
export interface RuntimeConfig {
  supportEmail: string;
  /** Third-party support chat widget script, or "" when not configured. */
  supportChatScriptUrl: string;
  /** 'Live Environment: XDC Mainnet', or the test/local wording. */
  networkLabel: string;
  /** "mainnet" | "testnet" | "local" */
  networkKind: string;
  explorerUrl: string;
  /** The extension's URI in the editor, scheme and authority only (vscode://issuepool.issuepool): opens VS Code. */
  editorUri: string;
  /** The origin people reach the platform at (on-demand pages only; the node command on the Provider Hub). */
  publicUrl?: string;
}

export const RUNTIME_MARKERS: RuntimeConfig = {
  supportEmail: "__IP_RUNTIME_supportEmail__",
  supportChatScriptUrl: "__IP_RUNTIME_supportChatScriptUrl__",
  networkLabel: "__IP_RUNTIME_networkLabel__",
  networkKind: "__IP_RUNTIME_networkKind__",
  explorerUrl: "__IP_RUNTIME_explorerUrl__",
  editorUri: "__IP_RUNTIME_editorUri__",
};

export function runtimeOf(locals: { runtime?: RuntimeConfig } | undefined): RuntimeConfig {
  return locals?.runtime ?? RUNTIME_MARKERS;
}

const MARKER = /__IP_RUNTIME_([A-Za-z]+)__/g;

export function applyRuntimeMarkers(html: string, runtime: RuntimeConfig): string {
  return html.replace(MARKER, (whole, key: string) =>
    key in runtime ? escapeHtml(runtime[key as keyof RuntimeConfig] ?? "") : whole,
  );
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
