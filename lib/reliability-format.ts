/** How the sponsors' records read to a person (the badge in api/, the pages in site/). */

/** "within 15 minutes", "over 30 days": a bucket bound as a person reads it. */
export function describeWithin(ms: number | null): string | null {
  if (ms === null) return null;
  if (!Number.isFinite(ms)) return "over 30 days";
  const minutes = ms / 60_000;
  if (minutes < 60) return `within ${minutes} minutes`;
  const hours = minutes / 60;
  if (hours < 24) return hours === 1 ? "within an hour" : `within ${hours} hours`;
  const days = hours / 24;
  return days === 1 ? "within a day" : `within ${days} days`;
}

/** "92% paid automatically" style share; null when there is nothing to share. */
export function describeShare(share: number | null): string | null {
  return share === null ? null : `${Math.round(share * 100)}%`;
}
