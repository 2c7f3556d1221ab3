import { $user, signOut, watchSession, type SessionUser } from "../stores/session.ts";
import { showFlashToast } from "../stores/toast.ts";
import { shortAddress } from "./format.ts";

/** Pages that make no sense signed out: leave them after signing out. */
const SIGNED_IN_PAGES = ["/profile", "/wallet", "/my-repos", "/vscode/wallet"];

/**
 * The header's signed-in parts, kept in step with the session store: avatar
 * and names in the account menu, the wallet box's address, the logo's
 * target (/my-repos for pool managers), and Sign out.
 */
export function setupAccountArea(root: ParentNode = document): void {
  watchSession();
  showFlashToast();
  $user.subscribe((user) => render(root, user));
  root.querySelectorAll<HTMLElement>("[data-sign-out]").forEach((button) =>
    button.addEventListener("click", async () => {
      const leaving = SIGNED_IN_PAGES.some((p) => location.pathname === p || location.pathname.startsWith(`${p}/`));
      if ((await signOut({ leaving })) && leaving) location.assign("/repos");
    }),
  );
}

function render(root: ParentNode, user: SessionUser | null): void {
  const logo = root.querySelector<HTMLAnchorElement>("[data-logo]");
  if (logo) logo.href = user?.role === "poolmanager" ? "/my-repos" : "/repos";
  if (!user) return;
  const avatar = root.querySelector<HTMLImageElement>("[data-user-avatar]");
  const initials = root.querySelector<HTMLElement>("[data-user-initials]");
  const label = user.name || user.username;
  if (initials) initials.textContent = label.slice(0, 2).toUpperCase();
  if (avatar && user.avatarUrl) {
    avatar.src = user.avatarUrl;
    avatar.onload = () => {
      avatar.classList.remove("hidden");
      initials?.classList.add("hidden");
    };
  }
  setText(root, "[data-user-name]", label);
  setText(root, "[data-user-handle]", `@${user.githubUsername}`);
  setText(root, "[data-wallet-address]", user.xdcWalletAddress ? shortAddress(user.xdcWalletAddress) : "");
  // Not registered yet: no wallet, so no balance will ever come (issue 27: the box read '… XDC' forever). The box
  // leads to the registration instead, and back here afterwards.
  const registered = user.isProfileComplete && Boolean(user.xdcWalletAddress);
  root.querySelectorAll<HTMLAnchorElement>("[data-wallet-box], [data-sheet-wallet-box]").forEach((box) => {
    box.href = registered ? "/wallet" : `/auth?registration=true&returnTo=${encodeURIComponent(location.pathname + location.search)}`;
    box.toggleAttribute("data-unregistered", !registered);
  });
  root.querySelectorAll<HTMLElement>("[data-wallet-label]").forEach((label) => (label.hidden = !registered));
  if (!registered) setText(root, "[data-wallet-balance]", "Complete registration");
  else void watchHeaderBalance(root);
}

let balanceWatched = false;

/**
 * The wallet box's balance (XDC, 4 decimals), from the wallet's shared
 * resource: fresh for 30 s, refetched every 30 s and on focus, so the header
 * and the wallet page show one number. Loaded only for a signed-in user.
 */
async function watchHeaderBalance(root: ParentNode): Promise<void> {
  if (balanceWatched) return;
  balanceWatched = true;
  const { walletInfo, formatBalance } = await import("./wallet-data.ts");
  walletInfo.$state.subscribe(({ data, error }) => {
    if (data) setText(root, "[data-wallet-balance]", `${formatBalance(data.xdcBalance, "XDC")} XDC`);
    else if (error) setText(root, "[data-wallet-balance]", "— XDC");
  });
  walletInfo.watch();
}

function setText(root: ParentNode, selector: string, text: string): void {
  root.querySelectorAll<HTMLElement>(selector).forEach((el) => (el.textContent = text));
}
