import { useEffect, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";
import { serverMessage } from "./actions.ts";
import { utcMinute } from "../../../lib/attempt-rules.ts";

type Wait = ApiResponse<"getPullRequestWait">;

/**
 * The author's side of a review deadline (issue 39, item 5), under their own pull request in the attempts panel:
 * how long it has waited and, past twice the repository's deadline without a response, "Ask the pool manager for
 * release" (POST .../release-request: the pool manager is told once; no money moves). Loaded only for a visitor
 * with an open pull request on a bounty, so nobody else's page carries it.
 */
export default function ReleaseRequest({ repoId, pullNumber }: { repoId: number; pullNumber: number }) {
  const [wait, setWait] = useState<Wait | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    api(`/api/reviews/${repoId}/pulls/${pullNumber}`)
      .then((w) => live && setWait(w))
      // No wait recorded (a pull request opened before the repository was registered): nothing to say.
      .catch(() => live && setWait(null));
    return () => {
      live = false;
    };
  }, [repoId, pullNumber]);
  if (!wait || wait.state === "merged" || wait.state === "closed" || wait.state === "reviewed") return null;
  if (wait.releaseRequestedAt) {
    return <span className="block text-muted-foreground" data-release-request="sent">You asked the pool manager for release on {utcMinute(wait.releaseRequestedAt)}.</span>;
  }
  if (wait.state !== "release_requestable") {
    return (
      <span className="block text-muted-foreground" data-release-request="waiting">
        Waiting for a review since {utcMinute(wait.waitingSince)}; without one, you can ask for release from {utcMinute(wait.releaseRequestableFrom)}.
      </span>
    );
  }
  const ask = async () => {
    setBusy(true);
    try {
      const answer = await api(`/api/reviews/${repoId}/pulls/${pullNumber}/release-request`, { method: "POST" });
      setWait(answer);
      toast({
        type: "success",
        title: "Release asked",
        message: answer.poolManagerNotified ? "The pool manager was told by e-mail; the request also shows in their digest." : "The request shows in the pool manager's digest.",
      });
    } catch (err) {
      toast({ type: "error", title: "Not asked", message: serverMessage(err, "The request failed") });
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="mt-1 flex flex-wrap items-center gap-2" data-release-request="due">
      <span className="text-muted-foreground">No review since {utcMinute(wait.waitingSince)}.</span>
      <Button size="sm" variant="outline" disabled={busy} onClick={() => void ask()}>
        Ask the pool manager for release
      </Button>
    </span>
  );
}
