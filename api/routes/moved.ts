import type { DatabaseDeps } from "../context.ts";
import { movedAddress, MOVED_MAX_AGE_S } from "../services/repositories/former-names.ts";

/**
 * An old address of a renamed or transferred public repository (issue 39): the permanent redirect to the same
 * address under the repository's current name, or undefined when `owner/name` is no such former name. The
 * request's path must end with `/{owner}/{name}{rest}`; what comes before it (the route's base) and the query are
 * kept. 301 (these are GET addresses: readers and browsers follow it and update what they stored), remembered for
 * MOVED_MAX_AGE_S only: a new repository may take the freed name later.
 */
export async function movedResponse(ctx: DatabaseDeps, requestUrl: string, owner: string, name: string, rest = ""): Promise<Response | undefined> {
  const url = new URL(requestUrl);
  const tail = `/${owner}/${name}${rest}`;
  if (!url.pathname.endsWith(tail)) return undefined;
  const base = url.pathname.slice(0, url.pathname.length - tail.length);
  const location = await movedAddress(ctx, owner, name, (current) => `${base}/${current.fullName}${rest}${url.search}`);
  if (!location) return undefined;
  return new Response(null, { status: 301, headers: { Location: location, "Cache-Control": `public, max-age=${MOVED_MAX_AGE_S}` } });
}
