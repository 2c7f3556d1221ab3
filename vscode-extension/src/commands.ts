import type { VSCode } from "./vscode-api.ts";
import { AUTH_PROVIDER_ID, type IssuepoolAuth } from "./auth.ts";
import type { BountiesView, BountyNode } from "./bounties.ts";
import type { PlatformClient } from "./platform.ts";
import type { WalletStatus } from "./wallet.ts";
import { claimRefusal, claimRefusalText } from "../../lib/claim-rule.ts";

export interface Parts {
  vscode: VSCode;
  auth: IssuepoolAuth;
  wallet: WalletStatus;
  bounties: BountiesView;
  client: () => PlatformClient;
}

/** Sign In, Sign Out, Open Wallet, Copy Address, and the bounty commands. */
export function registerCommands(parts: Parts) {
  const { vscode, auth, wallet, bounties, client } = parts;
  const open = (url: string) => vscode.env.openExternal(vscode.Uri.parse(url));
  return [
    vscode.commands.registerCommand("issuepool.signIn", async () => {
      const already = await auth.session();
      if (already) {
        void vscode.window.showInformationMessage(`Signed in to Issuepool as ${already.account.label}.`);
        return;
      }
      try {
        // Through VS Code, so the account shows in the Accounts menu (it calls our createSession).
        await vscode.authentication.getSession(AUTH_PROVIDER_ID, [], { createIfNone: true });
      } catch (err) {
        void vscode.window.showErrorMessage(`Issuepool sign-in failed: ${(err as Error).message}`);
      }
    }),
    vscode.commands.registerCommand("issuepool.signOut", async () => {
      const session = await auth.session();
      if (!session) {
        void vscode.window.showInformationMessage("You are not signed in to Issuepool.");
        return;
      }
      await auth.removeSession(session.id);
      void vscode.window.showInformationMessage("Signed out of Issuepool.");
    }),
    vscode.commands.registerCommand("issuepool.openWallet", () => open(client().page("/vscode/wallet"))),
    vscode.commands.registerCommand("issuepool.copyAddress", async () => {
      if (!(await auth.session())) {
        void vscode.window.showInformationMessage("Sign in to Issuepool to copy your wallet address.");
        return;
      }
      await wallet.refresh();
      if (!wallet.address) return;
      await vscode.env.clipboard.writeText(wallet.address);
      void vscode.window.showInformationMessage(`Copied your Issuepool wallet address ${wallet.address}.`);
    }),
    vscode.commands.registerCommand("issuepool.refreshBounties", () => bounties.refresh()),
    vscode.commands.registerCommand("issuepool.openIssue", (node?: BountyNode) => (node ? open(node.url) : undefined)),
    vscode.commands.registerCommand("issuepool.claimBounty", (node?: BountyNode) => claimBounty(parts, node)),
  ];
}

/**
 * Claim Bounty: the rule of the `/attempt` command (lib/claim-rule.ts), said
 * in the editor at once; then the platform's own Contribute on the issue, in
 * the browser, registers the claim with the browser's session (editor tokens
 * only read).
 */
export async function claimBounty(parts: Parts, node?: BountyNode): Promise<"refused" | "opened" | "cancelled"> {
  const { vscode, auth, bounties, client } = parts;
  let bounty = node;
  if (!bounty) {
    await bounties.refresh();
    const choices = bounties.bounties().map((b) => ({ label: `#${b.issueNumber} ${b.title}`, description: `${b.amount} ${b.currency} · ${b.state}`, bounty: b }));
    if (choices.length === 0) {
      void vscode.window.showInformationMessage("There are no open Issuepool bounties in this workspace.");
      return "cancelled";
    }
    bounty = (await vscode.window.showQuickPick(choices, { placeHolder: "Which bounty do you want to take on?" }))?.bounty;
    if (!bounty) return "cancelled";
  }
  if (!(await auth.session())) {
    const choice = await vscode.window.showInformationMessage("Sign in to Issuepool to claim a bounty.", "Sign In");
    if (choice !== "Sign In") return "cancelled";
    await vscode.commands.executeCommand("issuepool.signIn");
  }
  const user = await auth.withToken((token) => client().user(token));
  if (!user) return "cancelled";
  const refusal = claimRefusal({ role: user.role, hasWallet: Boolean(user.xdcWalletAddress) });
  if (refusal) {
    void vscode.window.showWarningMessage(claimRefusalText(refusal, client().baseUrl));
    return "refused";
  }
  const page = `/repos/${encodeURIComponent(bounty.repo.owner)}/${encodeURIComponent(bounty.repo.name)}?contribute=${bounty.issueNumber}`;
  await vscode.env.openExternal(vscode.Uri.parse(client().page(page)));
  void vscode.window.showInformationMessage(`Claiming #${bounty.issueNumber} in your browser: Issuepool registers you as working on it.`);
  return "opened";
}
