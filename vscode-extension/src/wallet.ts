import type * as vscode from "vscode";
import type { VSCode } from "./vscode-api.ts";
import type { IssuepoolAuth } from "./auth.ts";
import type { PlatformClient, WalletInfo } from "./platform.ts";
import { formatAmount } from "../../lib/money-format.ts";

/**
 * The wallet in the status bar: the XDC balance to 4 decimals (the one money
 * formatter, truncated like the site's header), read from /api/wallet/info
 * every 30 s (the spec's "wallet info fresh 30 s") and whenever the window
 * gains focus; a click opens the wallet page. Signed out, it offers Sign In.
 */
export const WALLET_REFRESH_MS = 30_000;

export interface Timers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const realTimers: Timers = {
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** "12.3456 XDC": what the status bar shows for the API's balance (wei, the spec's contract). */
export function walletText(info: Pick<WalletInfo, "balance">): string {
  const units = /^\d+$/.test(info.balance) ? BigInt(info.balance) : undefined;
  return `$(credit-card) ${units === undefined ? "—" : formatAmount(units, "XDC")} XDC`;
}

export class WalletStatus implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private info: WalletInfo | undefined;
  private readonly timer: unknown;
  private readonly subscriptions: vscode.Disposable[] = [];
  private running: Promise<void> | undefined;

  constructor(
    private readonly vscode: VSCode,
    private readonly auth: IssuepoolAuth,
    private readonly client: () => PlatformClient,
    private readonly log: (line: string) => void,
    private readonly timers: Timers = realTimers,
  ) {
    this.item = vscode.window.createStatusBarItem("issuepool.wallet", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Issuepool Wallet";
    this.signedOut();
    this.item.show();
    this.timer = timers.setInterval(() => void this.refresh(), WALLET_REFRESH_MS);
    this.subscriptions.push(
      vscode.window.onDidChangeWindowState((state) => {
        if (state.focused) void this.refresh();
      }),
      auth.onDidChangeSessions(() => void this.refresh()),
    );
  }

  /** The address shown, when signed in and known. */
  get address(): string | undefined {
    return this.info?.address || undefined;
  }

  /** Reads the balance again; calls made while one is running share it. */
  refresh(): Promise<void> {
    this.running ??= this.read().finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<void> {
    try {
      const info = await this.auth.withToken((token) => this.client().walletInfo(token));
      if (!info) {
        this.info = undefined;
        this.signedOut();
        return;
      }
      this.info = info;
      if (!info.address) {
        this.item.text = "$(credit-card) Issuepool: finish registration";
        this.item.tooltip = "Your Issuepool account has no wallet yet: complete your registration on the website.";
        this.item.command = "issuepool.openWallet";
        return;
      }
      this.item.text = walletText(info);
      this.item.tooltip = `Issuepool wallet ${info.address}\nXDC balance, refreshed every ${WALLET_REFRESH_MS / 1000} s. Click to open the wallet.`;
      this.item.command = "issuepool.openWallet";
    } catch (err) {
      this.log(`wallet: ${(err as Error).message}`);
      this.item.text = "$(warning) Issuepool";
      this.item.tooltip = `The wallet could not be read from ${this.client().baseUrl}: ${(err as Error).message}`;
      this.item.command = "issuepool.openWallet";
    }
  }

  private signedOut(): void {
    this.item.text = "$(account) Issuepool: Sign In";
    this.item.tooltip = "Sign in to Issuepool to see your XDC wallet.";
    this.item.command = "issuepool.signIn";
  }

  dispose(): void {
    this.timers.clearInterval(this.timer);
    for (const s of this.subscriptions) s.dispose();
    this.item.dispose();
  }
}
