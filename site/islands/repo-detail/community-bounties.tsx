import { useEffect, useState } from "react";
import { api, type ApiResponse } from "../../lib/api.ts";
import { decimalToUnits, formatFull } from "../../lib/format.ts";

type CommunityBounty = ApiResponse<"listCommunityBounties">["bounties"][number];

/**
 * An unregistered repository's community bounties (issue 29, item 2): what people put on its issues, and the
 * invitation to its maintainers, for whom registering means merged fixes are paid without a claim.
 */
export function CommunityBountiesOf({ owner, name }: { owner: string; name: string }) {
  const [bounties, setBounties] = useState<CommunityBounty[] | null>(null);
  useEffect(() => {
    const query = new URLSearchParams({ repo: `${owner}/${name}`, limit: "50" });
    api(`/api/community-bounties?${query}`).then(
      (data) => setBounties(data.bounties.filter((b) => b.status === "funded" || b.status === "claimed")),
      () => setBounties([]),
    );
  }, [owner, name]);
  if (!bounties?.length) return null;
  return (
    <section aria-labelledby="community-bounties-title" className="rounded-xl border border-border p-4" data-community-bounties>
      <h3 id="community-bounties-title" className="font-semibold">Community bounties</h3>
      <p className="mt-1 text-sm text-muted-foreground">
        People funded these issues from their Issuepool wallets. The author of a merged fix claims the bounty on Issuepool; maintainers who register this repository (and
        install the Issuepool App) get merged fixes paid automatically.
      </p>
      <ul className="mt-3 grid gap-2">
        {bounties.map((b) => (
          <li key={b.id} className="flex flex-wrap items-center gap-2 text-sm">
            <a href={b.githubIssueUrl} target="_blank" rel="noopener noreferrer" className="font-medium text-primary underline-offset-4 hover:underline">
              #{b.githubIssueNumber} {b.title}
            </a>
            <span className="font-semibold tabular-nums">
              {formatFull(decimalToUnits(b.amount, b.currency) ?? 0n, b.currency)} {b.currency}
            </span>
            {b.status === "claimed" && <span className="text-xs text-muted-foreground">claimed by @{b.claimedByGithubUsername}</span>}
          </li>
        ))}
      </ul>
    </section>
  );
}
