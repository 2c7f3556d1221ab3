import * as vscode from "vscode";
import { activateIssuepool } from "./activate.ts";

/** The entry VS Code loads (dist/extension.js, bundled by scripts/build.ts). The only import of "vscode". */
export function activate(context: vscode.ExtensionContext) {
  return activateIssuepool(vscode, context);
}

export function deactivate(): void {}
