import { useCallback, useState } from "react";
import { api, ApiRequestError } from "../../lib/api.ts";
import { contributeSignInUrl, roleSelectionLinks } from "../../lib/repo-detail-links.ts";
import type { RepoView } from "../../lib/repo-detail-data.ts";
import type { SessionUser } from "../../stores/session.ts";
import { toast } from "../../stores/toast.ts";
import { serverMessage } from "./actions.ts";

/** Long enough to read the two choices; paused while hovered or focused. */
export const ROLE_NOTICE_MS = 10_000;

/**
 * Contribute (spec sections 5, 6 and 8): signed out, the code host's
 * sign-in; without a role, 'Role Selection Required' with both registration
 * pages; a contributor is registered for the issue on the platform.
 */
export function useContribute(repo: RepoView | null, user: SessionUser | null) {
  const [contributing, setContributing] = useState<number | null>(null);

  const contribute = useCallback(
    async (issueNumber: number) => {
      if (!repo?.repoId) return;
      if (!user) {
        location.assign(contributeSignInUrl(repo.owner, repo.name, issueNumber));
        return;
      }
      if (!user.role) {
        roleSelectionRequired(repo, issueNumber);
        return;
      }
      if (user.role !== "contributor") {
        toast({ type: "info", title: "Contribute is for contributors", message: "As a pool manager you set rewards on issues; contributors solve them." });
        return;
      }
      setContributing(issueNumber);
      try {
        const result = await api("/api/blockchain/register", {
          method: "POST",
          body: { role: user.role, walletAddress: user.xdcWalletAddress ?? undefined, issueId: issueNumber, repoId: repo.repoId },
        });
        toast({ type: "success", title: "Success!", message: result.message || "You're now registered to contribute to this issue." });
      } catch (err) {
        if (err instanceof ApiRequestError && err.status === 403 && err.title === "Role Selection Required") {
          roleSelectionRequired(repo, issueNumber);
        } else {
          toast({ type: "error", title: "Failed to process contribution", message: serverMessage(err, "Failed to register with smart contract") });
        }
      } finally {
        setContributing(null);
      }
    },
    [repo?.repoId, repo?.owner, repo?.name, user],
  );

  return { contribute, contributing };
}

/** 'Role Selection Required' with both registration pages, which bring the user back to contribute. */
function roleSelectionRequired(repo: RepoView, issueNumber: number): void {
  const links = roleSelectionLinks(repo.owner, repo.name, issueNumber);
  toast({
    type: "error",
    title: "Role Selection Required",
    message: "Please select your role as Pool Manager or Contributor",
    duration: ROLE_NOTICE_MS,
    actions: [
      { label: "Pool Manager", href: links.poolManager, button: "outline" },
      { label: "Contributor", href: links.contributor, button: "default" },
    ],
  });
}
