import { hasSeen, markSeen, type GuideName } from "./onboarding-flags.ts";

/**
 * The onboarding dialogs (spec section 2): the welcome dialog on the
 * repository list, the contributor's Contribution Demo, the pool manager's
 * guide and Funding Demo. Each opens by itself once (its seen flag is kept in
 * localStorage) and again from the Help menu (`[data-open-guide="name"]`).
 *
 * The welcome dialog is plain HTML (anonymous visitors download no React for
 * it); the others are React and are fetched the first time one opens.
 */
export type { GuideName };
export const GUIDES: GuideName[] = ["welcome", "contribution-demo", "pool-manager-guide", "funding-demo"];

type Role = "contributor" | "poolmanager" | "user" | null;
const currentRole = (): Role => (document.documentElement.dataset.role as Role | undefined) ?? null;

/** The guide a signed-in visitor is shown once after the welcome: by role. */
export function roleGuide(role: Role): GuideName | null {
  if (role === "poolmanager") return "pool-manager-guide";
  if (role === "contributor") return "contribution-demo";
  return null;
}

/** Which guide opens by itself on a page, or null: the welcome first, then the role's guide. */
export function guideToOpen(page: "repos" | "my-repos" | "other", role: Role, seen: (name: GuideName) => boolean): GuideName | null {
  if (page === "other") return null;
  if (page === "repos" && !seen("welcome")) return "welcome";
  const guide = roleGuide(role);
  if (!guide || seen(guide)) return null;
  // /my-repos is the pool manager's home: their guide may open there too.
  if (page === "my-repos" && guide !== "pool-manager-guide") return null;
  return guide;
}

export async function openGuide(name: GuideName): Promise<void> {
  if (name === "welcome") {
    openWelcome();
    return;
  }
  const { showGuide } = await import("../islands/onboarding/mount.tsx");
  showGuide(name);
}

function welcomeDialog(): HTMLDialogElement | null {
  return document.querySelector<HTMLDialogElement>("[data-welcome-dialog]");
}

function openWelcome(): void {
  const dialog = welcomeDialog();
  if (!dialog || dialog.open) return;
  dialog.showModal();
}

function setupWelcome(): void {
  const dialog = welcomeDialog();
  if (!dialog || dialog.dataset.ready !== undefined) return;
  dialog.dataset.ready = "";
  dialog.addEventListener("close", () => markSeen("welcome"));
  dialog.addEventListener("click", (event) => {
    const target = event.target as HTMLElement;
    // A click on the backdrop lands on the dialog itself.
    if (target === dialog || target.closest("[data-welcome-close]")) dialog.close();
    const next = target.closest<HTMLElement>("[data-welcome-next]")?.dataset.welcomeNext as GuideName | undefined;
    if (next) {
      dialog.close();
      void openGuide(next);
    }
  });
}

function pageOf(pathname: string): "repos" | "my-repos" | "other" {
  if (pathname === "/repos" || pathname === "/repos/") return "repos";
  if (pathname === "/my-repos" || pathname === "/my-repos/") return "my-repos";
  return "other";
}

export function setupOnboarding(): void {
  setupWelcome();
  document.querySelectorAll<HTMLElement>("[data-open-guide]:not([data-guide-ready])").forEach((button) => {
    button.dataset.guideReady = "";
    button.addEventListener("click", () => void openGuide(button.dataset.openGuide as GuideName));
  });
  const guide = guideToOpen(pageOf(location.pathname), currentRole(), hasSeen);
  if (guide) void openUnlessExperienced(guide);
}

/**
 * The guides open by themselves for visitors and new accounts, not for someone who has done what they teach on
 * every new browser (issue 38: alice, running five repositories, got the Welcome and the Pool Manager Guide). Asked
 * once per browser: an experienced account's guides are marked seen (the Help menu still opens them).
 */
async function openUnlessExperienced(guide: GuideName): Promise<void> {
  if (document.documentElement.dataset.auth === "yes") {
    // The guide's module loads while the question is asked: a new account's guide opens no later than before.
    const loading = guide === "welcome" ? undefined : import("../islands/onboarding/mount.tsx").catch(() => undefined);
    const [answer] = await Promise.all([fetch("/api/user/onboarding", { credentials: "same-origin", headers: { Accept: "application/json" } }).catch(() => null), loading]);
    const body = answer?.ok ? ((await answer.json().catch(() => null)) as { newAccount?: boolean } | null) : null;
    if (body?.newAccount === false) {
      for (const name of GUIDES) markSeen(name);
      return;
    }
  }
  await openGuide(guide);
}
