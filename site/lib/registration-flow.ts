/**
 * Registering a repository across the GitHub App install (spec section 4):
 * when the server answers `installUrl`, the repository is kept here and the
 * browser goes to GitHub; GitHub sends it back with installation_id and
 * setup_action, the installation is finalized, and the kept registration is
 * retried after 1.5 s.
 */
export const PENDING_RETRY_MS = 1500;
const PENDING_KEY = "ip_pending_registration";
const INSTALLATION_KEY = "ip_github_installation";

export interface PendingRegistration {
  githubRepoId: number;
  githubRepoFullName: string;
}

function read<T>(key: string): T | null {
  try {
    const raw = localStorage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

export const pendingRegistration = () => read<PendingRegistration>(PENDING_KEY);
export const storedInstallation = () => read<{ installationId: number; setupAction: string }>(INSTALLATION_KEY);

export function keepPendingRegistration(pending: PendingRegistration): void {
  localStorage.setItem(PENDING_KEY, JSON.stringify(pending));
}

export function storeInstallation(installationId: number, setupAction: string): void {
  localStorage.setItem(INSTALLATION_KEY, JSON.stringify({ installationId, setupAction }));
}

export function clearPendingRegistration(): void {
  localStorage.removeItem(PENDING_KEY);
}

/** 'Reset Installation': forget the stored installation and any registration waiting on it. */
export function resetInstallationState(): void {
  localStorage.removeItem(INSTALLATION_KEY);
  localStorage.removeItem(PENDING_KEY);
}

/** installation_id and setup_action (install or update) from GitHub's redirect, or null. */
export function installationFromUrl(search: string): { installationId: number; setupAction: "install" | "update" } | null {
  const params = new URLSearchParams(search);
  const id = Number(params.get("installation_id"));
  const action = params.get("setup_action");
  if (!Number.isSafeInteger(id) || id <= 0 || (action !== "install" && action !== "update")) return null;
  return { installationId: id, setupAction: action };
}
