import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { Button } from "../ui/button.tsx";

type Search = ApiResponse<"listSavedSearches">["searches"][number];

/** The user's saved explore searches: open one, its feed, the daily digest on or off, delete. */
export default function SavedSearches() {
  const [searches, setSearches] = useState<Search[] | null>(null);
  const load = useCallback(async () => {
    try {
      setSearches((await api<ApiResponse<"listSavedSearches">>("/api/alerts/searches")).searches);
    } catch (err) {
      toast({ type: "error", title: "Saved searches", message: errorMessage(err) });
      setSearches([]);
    }
  }, []);
  useEffect(() => void load(), [load]);

  const update = async (search: Search, change: { digest?: boolean } | "delete") => {
    try {
      if (change === "delete") await api(`/api/alerts/searches/${search.id}`, { method: "DELETE" });
      else await api(`/api/alerts/searches/${search.id}`, { method: "PATCH", body: change });
      await load();
    } catch (err) {
      toast({ type: "error", title: "Saved searches", message: errorMessage(err) });
    }
  };

  if (searches === null) return <p className="text-sm text-muted-foreground">Loading…</p>;
  if (!searches.length) {
    return (
      <p className="text-sm text-muted-foreground">
        No saved searches yet. Filter bounties on <a className="text-primary hover:underline" href="/explore">Explore</a> and choose “Save this search”.
      </p>
    );
  }
  return (
    <ul className="divide-y divide-border" data-saved-searches>
      {searches.map((search) => (
        <li key={search.id} className="flex flex-wrap items-center gap-3 py-3" data-saved-search={search.id}>
          <a className="min-w-0 flex-1 truncate font-medium text-primary hover:underline" href={`/explore${search.query ? `?${search.query}` : ""}`}>{search.name}</a>
          <a className="text-xs text-muted-foreground hover:underline" href={`/api/feeds/explore${search.query ? `?${search.query}` : ""}`}>Atom feed</a>
          <label className="flex items-center gap-1.5 text-sm">
            <input type="checkbox" checked={search.digest} onChange={(e) => void update(search, { digest: e.target.checked })} />
            Daily e-mail
          </label>
          <Button size="sm" variant="outline" onClick={() => void update(search, "delete")}>Delete</Button>
        </li>
      ))}
    </ul>
  );
}
