/**
 * The answer to an old address of a renamed or transferred repository (issue 39): a permanent redirect to the same
 * page under its current name. Permanent, but remembered for a limited time only (`maxAge`): GitHub lets a new
 * repository take a freed name, and then the old address is that repository's again.
 */
export function movedPermanently(location: string, maxAge: number): Response {
  return new Response(null, { status: 301, headers: { Location: location, "Cache-Control": `public, max-age=${maxAge}` } });
}
