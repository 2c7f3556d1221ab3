/**
 * The editors a sign-in code may be handed to, and how the page names them:
 * one list for the server's redirect URI check (api/services/auth/vscode-sign-in.ts)
 * and the "Signed in: you can return to VS Code" page, in this neutral module
 * both import.
 */
export const EDITOR_SCHEMES = ["vscode", "vscode-insiders", "vscodium", "cursor"] as const;
export type EditorScheme = (typeof EDITOR_SCHEMES)[number];

const EDITOR_NAMES: Record<EditorScheme, string> = {
  vscode: "VS Code",
  "vscode-insiders": "VS Code Insiders",
  vscodium: "VSCodium",
  cursor: "Cursor",
};

/** The editor scheme of `uri`, or undefined when it is not one of ours (a javascript: URI, say). */
export function editorSchemeOf(uri: string): EditorScheme | undefined {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(uri)?.[1]?.toLowerCase();
  return (EDITOR_SCHEMES as readonly string[]).includes(scheme ?? "") ? (scheme as EditorScheme) : undefined;
}

export function editorName(scheme: EditorScheme | undefined): string {
  return scheme ? EDITOR_NAMES[scheme] : "VS Code";
}
