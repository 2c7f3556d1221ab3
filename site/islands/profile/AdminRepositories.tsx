import { useCallback, useEffect, useMemo, useState } from "react";
import { api, ApiRequestError, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
// decimalToUnits, not funding-rules' fromApi: the funding rules (the repository page's chunk) stay off /my-repos (issue 27: page weight).
import { decimalToUnits, formatFull } from "../../lib/format.ts";
import type { Currency } from "../../lib/funding-rules.ts";
import { badgeClass, cardClass, inputClass } from "../../lib/ui.ts";
import { Button, ButtonLink } from "../ui/button.tsx";
import { Spinner } from "../ui/spinner.tsx";
import {
  clearPendingRegistration,
  installationFromUrl,
  keepPendingRegistration,
  pendingRegistration,
  PENDING_RETRY_MS,
  resetInstallationState,
  storeInstallation,
  type PendingRegistration,
} from "../../lib/registration-flow.ts";

type UserRepository = ApiResponse<"listUserRepositories">["repositories"][number];

/**
 * 'My GitHub Repositories (Admin)' (spec section 2, Profile) and the
 * repository registration page GitHub returns to after installing the app:
 * finalizes the installation, resumes a registration that went through the
 * install, and lists the user's repositories with their badges and actions.
 */
export default function AdminRepositories() {
  const [repos, setRepos] = useState<UserRepository[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const [busy, setBusy] = useState<number | null>(null);
  /** A registration finishing by itself after the App was installed for it (its full name). */
  const [finishing, setFinishing] = useState<string | null>(null);

  const load = useCallback(async (refresh = false) => {
    setError(null);
    try {
      const { repositories } = await api(`/api/github/user/repos${refresh ? "?refresh=1" : ""}`);
      setRepos(repositories);
    } catch (err) {
      setError(errorMessage(err, "Failed to fetch GitHub repositories"));
      setRepos([]);
    }
  }, []);

  const register = useCallback(
    async (pending: PendingRegistration) => {
      setBusy(pending.githubRepoId);
      try {
        const answer = await api("/api/repositories/register", { method: "POST", body: { ...pending } });
        if (answer && answer.success === false && "installUrl" in answer && answer.installUrl) {
          keepPendingRegistration(pending);
          location.assign(answer.installUrl);
          return;
        }
        if (!answer || answer.success !== true) {
          toast({ type: "error", title: "Failed to register repository", message: "Server returned an invalid response format" });
          return;
        }
        clearPendingRegistration();
        toast({ type: "success", message: "Repository registered successfully", action: { label: "Fund / Manage", href: `/repos/${pending.githubRepoFullName}` } });
        await load();
      } catch (err) {
        clearPendingRegistration();
        const title = err instanceof ApiRequestError && err.title === "Requires Admin" ? "Requires Admin" : "Failed to register repository";
        toast({ type: "error", title, message: errorMessage(err, "Failed to register repository") });
      } finally {
        setBusy(null);
      }
    },
    [load],
  );

  useEffect(() => {
    const installation = installationFromUrl(location.search);
    if (!installation) {
      void load();
      return;
    }
    storeInstallation(installation.installationId, installation.setupAction);
    history.replaceState(history.state, "", location.pathname);
    // Back from installing the App for a registration: it finishes by itself (spec: retried after 1.5 s), so its row
    // says so from the start instead of offering Register (issue 38: a Register button and "you can now register",
    // then the registration 1.5 s later with nothing shown).
    const waiting = pendingRegistration();
    if (waiting) {
      setBusy(waiting.githubRepoId);
      setFinishing(waiting.githubRepoFullName);
    }
    (async () => {
      try {
        const { count } = await api("/api/github/app/finalize-installation", {
          method: "POST",
          body: { installationId: installation.installationId },
        });
        if (!waiting) {
          toast({
            type: "success",
            message: count > 0 ? `Successfully linked ${count} repositories.` : "GitHub App successfully installed! You can now register your repositories.",
          });
        }
      } catch (err) {
        toast({ type: "error", title: "Installation Link Error", message: errorMessage(err, "Failed to finalize installation") });
      }
      await load(true);
      const pending = pendingRegistration();
      if (pending) setTimeout(() => void register(pending).finally(() => setFinishing(null)), PENDING_RETRY_MS);
      else {
        setBusy(null);
        setFinishing(null);
      }
    })();
  }, [load, register]);

  const shown = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (repos ?? [])
      .filter((r) => !term || r.full_name.toLowerCase().includes(term))
      .sort((a, b) => Number(b.permissions.admin) - Number(a.permissions.admin) || a.full_name.localeCompare(b.full_name));
  }, [repos, search]);
  const hasAdmin = (repos ?? []).some((r) => r.permissions.admin);

  return (
    <>
    <AwaitingDecisionsCard />
    <section className={`${cardClass} p-6`} aria-labelledby="admin-repos-title">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <h2 id="admin-repos-title" className="text-lg font-semibold">My GitHub Repositories (Admin)</h2>
        <input
          type="search"
          aria-label="Search repositories"
          placeholder="Search repositories"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          className={`${inputClass} sm:w-64`}
        />
      </div>
      {error && <p role="alert" className="mt-4 text-sm text-destructive">{error}</p>}
      {finishing && (
        <p role="status" className="mt-4 flex items-center gap-2 rounded-lg border border-primary/30 bg-primary/5 px-3 py-2 text-sm" data-registering={finishing}>
          <Spinner className="h-4 w-4" /> GitHub App installed. Registering {finishing}…
        </p>
      )}
      {repos === null ? (
        <div className="mt-6 flex justify-center text-primary"><Spinner label="Loading repositories" /></div>
      ) : !hasAdmin ? (
        <p className="mt-6 text-center text-sm text-muted-foreground">No repositories found where you have admin rights.</p>
      ) : (
        <ul className="mt-4 divide-y divide-border">
          {shown.map((repo) => (
            <li key={repo.id} className="flex flex-col gap-3 py-4 sm:flex-row sm:items-center sm:justify-between" data-admin-repo={repo.full_name}>
              <div className="min-w-0">
                <p className="truncate font-medium">{repo.full_name}</p>
                {repo.description && <p className="truncate text-sm text-muted-foreground">{repo.description}</p>}
                <div className="mt-2 flex flex-wrap gap-1.5">
                  {repo.permissions.admin ? (
                    <span className={`${badgeClass} border-success/30 bg-success/10 text-success`}>Admin</span>
                  ) : (
                    <span className={`${badgeClass} border-border text-muted-foreground`}>No Admin</span>
                  )}
                  {repo.appInstalled && <span className={`${badgeClass} border-primary/30 bg-primary/10 text-primary`}>App Installed</span>}
                  {!repo.permissions.admin && <span className={`${badgeClass} border-warning/40 bg-warning/10`}>Requires Admin</span>}
                  {repo.registered && <span className={`${badgeClass} border-border`}>Registered</span>}
                  {repo.private && <span className={`${badgeClass} border-border text-muted-foreground`}>Private</span>}
                </div>
              </div>
              <div className="flex shrink-0 gap-2">
                {repo.registered ? (
                  <ButtonLink href={`/repos/${repo.full_name}`} size="sm">Fund / Manage</ButtonLink>
                ) : repo.permissions.admin ? (
                  <Button size="sm" disabled={busy !== null} onClick={() => void register({ githubRepoId: repo.id, githubRepoFullName: repo.full_name })}>
                    {busy === repo.id ? (
                      <>
                        <Spinner className="h-4 w-4" /> Registering…
                      </>
                    ) : repo.appInstalled ? (
                      "Register"
                    ) : (
                      "Install App & Register"
                    )}
                  </Button>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-border pt-4">
        <a href="/repos" className="text-sm font-medium text-primary underline-offset-4 hover:underline">View All Registered Repositories</a>
        <Button
          variant="outline"
          size="sm"
          onClick={() => {
            resetInstallationState();
            setRepos(null);
            void load(true);
          }}
        >
          Reset Installation
        </Button>
      </div>
    </section>
    </>
  );
}

interface AwaitingBounty {
  repoId: number;
  repositoryFullName: string;
  issueNumber: number;
  issueTitle: string | null;
  currency: Currency;
  amount: string;
  reason: "closed_completed" | "closed_not_planned";
}

/**
 * Bounties of the user's repositories that await their decision (issue 11): an issue closed without a paying
 * pull request. Each links to the repository page, where they release or cancel it. Nothing shows when none wait.
 */
function AwaitingDecisionsCard() {
  const [items, setItems] = useState<AwaitingBounty[]>([]);
  useEffect(() => {
    api<{ bounties: AwaitingBounty[] }>("/api/blockchain/awaiting-decisions").then(
      (data) => setItems(data.bounties),
      () => setItems([]),
    );
  }, []);
  if (items.length === 0) return null;
  return (
    <section className={`${cardClass} border-warning/40 p-6`} aria-labelledby="awaiting-dashboard-title" data-awaiting-dashboard>
      <h2 id="awaiting-dashboard-title" className="text-lg font-semibold">Awaiting your decision</h2>
      <p className="mt-1 text-sm text-muted-foreground">
        These issues were closed without a merged pull request paying their bounty. Release each to the contributor who did the work, or cancel it back to the pool.
      </p>
      <ul className="mt-4 divide-y divide-border">
        {items.map((b) => (
          <li key={`${b.repoId}:${b.issueNumber}`} className="flex flex-wrap items-center justify-between gap-3 py-3" data-awaiting-issue={b.issueNumber}>
            <div className="min-w-0">
              <p className="break-words font-medium">{b.issueTitle ?? `Issue #${b.issueNumber}`}</p>
              <p className="text-xs text-muted-foreground">
                {b.repositoryFullName} #{b.issueNumber} · {b.reason === "closed_completed" ? "closed as completed" : "closed as not planned"}
              </p>
            </div>
            <span className="font-semibold tabular-nums">
              {formatFull(decimalToUnits(b.amount, b.currency) ?? 0n, b.currency)} {b.currency}
            </span>
            <ButtonLink href={`/repos/${b.repositoryFullName}#issues`} size="sm">
              Decide
            </ButtonLink>
          </li>
        ))}
      </ul>
    </section>
  );
}
