import { useState } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";

/**
 * "Save this search" for /explore (an island the explore page mounts with the page's URL query): saves it for the
 * daily digest. Signed-out visitors are sent to sign in and come back.
 */
export default function SaveSearchButton({ query, signedIn }: { query?: string; signedIn: boolean }) {
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const current = () => query ?? location.search.replace(/^\?/, "");
  const save = async () => {
    if (!signedIn) {
      location.assign(`/auth?returnTo=${encodeURIComponent(location.pathname + location.search)}`);
      return;
    }
    setBusy(true);
    try {
      await api("/api/alerts/searches", { method: "POST", body: { query: current() } });
      setSaved(true);
      toast({ type: "success", title: "Search saved", message: "New matching bounties come in a daily e-mail.", action: { label: "Manage", href: "/settings/alerts" } });
    } catch (err) {
      toast({ type: "error", title: "Search not saved", message: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" size="sm" onClick={() => void save()} disabled={busy || saved} data-save-search>
      {saved ? "Saved" : "Save this search"}
    </Button>
  );
}
