import type { ExtensionContext, VSCode } from "./vscode-api.ts";
import { AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL, IssuepoolAuth } from "./auth.ts";
import { BountiesView } from "./bounties.ts";
import { registerCommands } from "./commands.ts";
import { createPlatformClient, type Fetch } from "./platform.ts";
import { WalletStatus, type Timers } from "./wallet.ts";

export const DEFAULT_PLATFORM_URL = "http://localhost:3000";

export interface ActivateOptions {
  fetch?: Fetch;
  timers?: Timers;
}

/** Puts the extension together; extension.ts calls it with the real `vscode`, the tests with a fake one. */
export function activateIssuepool(vscode: VSCode, context: ExtensionContext, options: ActivateOptions = {}) {
  const output = vscode.window.createOutputChannel("Issuepool");
  // Never a token or a code: what happened, and where.
  const log = (line: string) => output.appendLine(`[${new Date().toISOString()}] ${line}`);
  const platformUrl = () => (vscode.workspace.getConfiguration("issuepool").get<string>("platformUrl") || DEFAULT_PLATFORM_URL).replace(/\/+$/, "");
  const clientFor = (baseUrl: string) => createPlatformClient(baseUrl, options.fetch);
  const client = () => clientFor(platformUrl());

  const auth = new IssuepoolAuth(vscode, context.secrets, { client, clientFor, log });
  const wallet = new WalletStatus(vscode, auth, client, log, options.timers);
  const bounties = new BountiesView(vscode, client, log);
  context.subscriptions.push(
    output,
    auth,
    wallet,
    bounties,
    vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL, auth, { supportsMultipleAccounts: false }),
    vscode.window.registerUriHandler(auth),
    ...registerCommands({ vscode, auth, wallet, bounties, client }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!e.affectsConfiguration("issuepool.platformUrl")) return;
      await auth.platformChanged();
      await Promise.all([wallet.refresh(), bounties.refresh()]);
    }),
  );
  const ready = Promise.all([wallet.refresh(), bounties.refresh()]).then(() => undefined);
  return { auth, wallet, bounties, output, ready };
}

export type IssuepoolExtension = ReturnType<typeof activateIssuepool>;
