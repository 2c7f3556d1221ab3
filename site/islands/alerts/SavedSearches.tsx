import { useCallback, useEffect, useState } from "react";
import { api, errorMessage, type ApiResponse } from "../../lib/api.ts";
import { toast } from "../../stores/toast.ts";
import { inputClass } from "../../lib/ui.ts";
import { Button } from "../ui/button.tsx";

type Search = ApiResponse<"listSavedSearches">["searches"][number];

/** An explore link as pasted ("https://…/explore?currency=XDC", "/explore?…", "?…" or the bare query): its query. */
export function queryOfLink(text: string): string {
  const trimmed = text.trim();
  const at = trimmed.indexOf("?");
  return at >= 0 ? trimmed.slice(at + 1) : trimmed.replace(/^\/?explore\/?$/, "");
}

/**
 * The user's saved explore searches: open one, its feed, the daily digest on or off, delete; a search saved
 * from a pasted explore link (the explore page's "Save this search" does the same from the page).
 */
export default function SavedSearches() {
  const [searches, setSearches] = useState<Search[] | null>(null);
  const [link, setLink] = useState("");
  const [busy, setBusy] = useState(false);
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

  const add = async (event: React.FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await api("/api/alerts/searches", { method: "POST", body: { query: queryOfLink(link) } });
      setLink("");
      await load();
    } catch (err) {
      toast({ type: "error", title: "Search not saved", message: errorMessage(err) });
    } finally {
      setBusy(false);
    }
  };

  const form = (
    <form className="mt-4 flex gap-2" onSubmit={add} aria-label="Save a search">
      <label className="sr-only" htmlFor="saved-search-link">Explore link</label>
      <input
        id="saved-search-link"
        className={inputClass}
        placeholder="Paste an Explore link, e.g. /explore?currency=XDC&min=10"
        value={link}
        onChange={(e) => setLink(e.target.value)}
      />
      <Button type="submit" disabled={busy || !link.trim()}>Save search</Button>
    </form>
  );
  if (searches === null) return <p className="text-sm text-muted-foreground">Loading…</p>;
  if (!searches.length) {
    return (
      <>
        <p className="text-sm text-muted-foreground">
          No saved searches yet. Filter bounties on <a className="text-primary hover:underline" href="/explore">Explore</a> and choose “Save this search”.
        </p>
        {form}
      </>
    );
  }
  return (
    <>
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
    {form}
    </>
  );
}
