import { useEffect, useState } from "react";
import { api, errorMessage } from "../../lib/api.ts";
import "../../stores/session.ts";
import { toast } from "../../stores/toast.ts";

/**
 * The owner's choice to show their wallet address on their public profile (/@login; issue 30). Hidden until they
 * choose; the current choice is read from the public profile itself.
 */
export default function PublicProfileSettings({ login }: { login: string }) {
  const [shown, setShown] = useState<boolean | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    // The profile is a public read the browser may keep for 60 s; the owner needs what holds now (the server's copy
    // is dropped when they change it, and the parameter, which the server's cache ignores, skips the browser's).
    api(`/api/contributors/${encodeURIComponent(login)}?now=${Date.now()}`)
      .then((profile) => setShown(profile.walletAddress !== null))
      .catch(() => setShown(false));
  }, [login]);
  const change = async (next: boolean) => {
    // Shown at once, put back if the server refuses.
    setShown(next);
    setSaving(true);
    try {
      await api("/api/user/profile-visibility", { method: "PATCH", body: { showWalletAddress: next } });
      toast({ type: "success", message: next ? "Your wallet address shows on your public profile." : "Your wallet address is hidden from your public profile." });
    } catch (err) {
      setShown(!next);
      toast({ type: "error", title: "Not saved", message: errorMessage(err) });
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="mt-4 flex flex-col gap-2 text-sm" data-public-profile-settings>
      <a href={`/@${login}`} className="text-primary hover:underline">Your public profile: /@{login}</a>
      <label className="flex items-center gap-2">
        <input type="checkbox" className="h-4 w-4" checked={shown ?? false} disabled={shown === null || saving} onChange={(e) => void change(e.currentTarget.checked)} />
        Show my wallet address on my public profile
      </label>
    </div>
  );
}
