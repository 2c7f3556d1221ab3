/**
 * The `vscode` module as a value. Every part of the extension takes it as a
 * parameter instead of importing it, so the same code runs in VS Code (from
 * extension.ts, the only file that imports "vscode") and in tests against a
 * fake editor (test/fake-vscode.ts): VS Code itself cannot be downloaded
 * where the tests run.
 */
export type VSCode = typeof import("vscode");
export type { ExtensionContext } from "vscode";
