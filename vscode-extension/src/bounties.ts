import type * as vscode from "vscode";
import type { VSCode } from "./vscode-api.ts";
import type { PlatformClient, PublicRepo } from "./platform.ts";
import { repositoryOfFolder, type RepoRef } from "./git-remote.ts";
import { decimalToUnits, formatAmount } from "../../lib/money-format.ts";
import type { Currency } from "../../lib/money.ts";

/**
 * "Issuepool Bounties": the open bounties of the GitHub repository of each
 * workspace folder (from its git remote), through the public API, so the
 * view works signed out. A bounty is open, or claimed once someone has
 * registered to work on it (Contribute or `/attempt`); paid and cancelled
 * ones are gone from the list.
 */
export interface BountyNode {
  kind: "bounty";
  repo: RepoRef;
  issueNumber: number;
  title: string;
  url: string;
  currency: Currency;
  /** As shown: XDC 4 decimals, ROXN and USDC 2. */
  amount: string;
  state: "open" | "claimed";
  claimants: number;
}

export interface RepoNode {
  kind: "repo";
  repo: RepoRef;
  bounties: BountyNode[];
}

type Node = RepoNode | BountyNode;

export function bountyNodes(repo: RepoRef, data: PublicRepo, githubUrl = "https://github.com"): BountyNode[] {
  return data.bounties.map((b) => {
    const units = decimalToUnits(b.amount, b.currency);
    return {
      kind: "bounty",
      repo,
      issueNumber: b.issueNumber,
      title: b.title,
      url: b.html_url ?? `${githubUrl}/${repo.owner}/${repo.name}/issues/${b.issueNumber}`,
      currency: b.currency,
      amount: units === undefined ? b.amount : formatAmount(units, b.currency),
      state: b.claimants > 0 ? "claimed" : "open",
      claimants: b.claimants,
    };
  });
}

export class BountiesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed: vscode.EventEmitter<Node | undefined | void>;
  readonly onDidChangeTreeData: vscode.Event<Node | undefined | void>;
  readonly view: vscode.TreeView<Node>;
  private roots: RepoNode[] = [];
  private running: Promise<void> | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly vscode: VSCode,
    private readonly client: () => PlatformClient,
    private readonly log: (line: string) => void,
  ) {
    this.changed = new vscode.EventEmitter();
    this.onDidChangeTreeData = this.changed.event;
    this.view = vscode.window.createTreeView("issuepool.bounties", { treeDataProvider: this, showCollapseAll: false });
    this.subscriptions.push(this.view, this.changed, vscode.workspace.onDidChangeWorkspaceFolders(() => void this.refresh()));
  }

  /** Every bounty in the view, in order. */
  bounties(): BountyNode[] {
    return this.roots.flatMap((r) => r.bounties);
  }

  /** Reads the repositories and their bounties again; calls made while one runs share it. */
  refresh(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    const folders = this.vscode.workspace.workspaceFolders ?? [];
    const repos: RepoRef[] = [];
    for (const folder of folders) {
      const repo = folder.uri.scheme === "file" ? await repositoryOfFolder(folder.uri.fsPath) : undefined;
      if (repo && !repos.some((r) => r.owner === repo.owner && r.name === repo.name)) repos.push(repo);
    }
    const roots: RepoNode[] = [];
    const notes: string[] = [];
    for (const repo of repos) {
      try {
        const data = await this.client().publicRepo(repo.owner, repo.name);
        if (!data.registered) {
          notes.push(`${repo.owner}/${repo.name} is not on Issuepool yet.`);
          continue;
        }
        roots.push({ kind: "repo", repo, bounties: bountyNodes(repo, data) });
      } catch (err) {
        this.log(`bounties of ${repo.owner}/${repo.name}: ${(err as Error).message}`);
        notes.push(`The bounties of ${repo.owner}/${repo.name} could not be read from ${this.client().baseUrl}.`);
      }
    }
    this.roots = roots;
    const count = this.bounties().length;
    if (folders.length === 0) this.view.message = "Open a folder with a GitHub repository to see its Issuepool bounties.";
    else if (repos.length === 0) this.view.message = "No GitHub remote found in this workspace.";
    else if (count === 0) this.view.message = [...notes, roots.length ? "No open bounties right now." : ""].filter(Boolean).join(" ");
    else this.view.message = notes.length ? notes.join(" ") : undefined;
    this.view.description = roots.length === 1 ? `${roots[0]!.repo.owner}/${roots[0]!.repo.name}` : undefined;
    this.changed.fire();
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.roots.length === 1 ? this.roots[0]!.bounties : this.roots;
    return node.kind === "repo" ? node.bounties : [];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const { TreeItem, TreeItemCollapsibleState, ThemeIcon } = this.vscode;
    if (node.kind === "repo") {
      const item = new TreeItem(`${node.repo.owner}/${node.repo.name}`, TreeItemCollapsibleState.Expanded);
      item.description = `${node.bounties.length} open ${node.bounties.length === 1 ? "bounty" : "bounties"}`;
      item.iconPath = new ThemeIcon("repo");
      return item;
    }
    const item = new TreeItem(`#${node.issueNumber} ${node.title}`, TreeItemCollapsibleState.None);
    item.description = `${node.amount} ${node.currency} · ${node.state}`;
    item.tooltip = `${node.amount} ${node.currency} bounty, ${node.state === "open" ? "nobody works on it yet" : `${node.claimants} working on it`}.\nClick to open the issue; Claim Bounty to take it on.`;
    item.contextValue = "issuepool.bounty";
    item.iconPath = new ThemeIcon(node.state === "open" ? "issues" : "person");
    item.command = { command: "issuepool.openIssue", title: "Open Issue in Browser", arguments: [node] };
    return item;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}
