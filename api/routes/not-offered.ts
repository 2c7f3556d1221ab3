import { DomainError, ErrorCode } from "../errors.ts";

/**
 * Calls the original product's client makes that this platform does not offer (docs/api.md, "Clients of the
 * original product"): a JSON 404 that says so, in the one error shape. Referrals, subscriptions, courses and
 * promotional tasks are business lines outside the platform's mission (community bounties are offered:
 * api/routes/funding/community.ts). Anything else unknown is the generic "No API endpoint".
 */
const NOT_OFFERED: [RegExp, string][] = [
  [/^\/api\/(referrals?|subscriptions?|courses?|promotional(-tasks?)?|promo(-tasks?)?)(\/|$)/, "This platform does not offer referrals, subscriptions, courses or promotional tasks."],
];

export function notOffered(method: string, path: string): DomainError | undefined {
  const found = NOT_OFFERED.find(([pattern]) => pattern.test(path));
  if (!found) return undefined;
  return new DomainError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: `${found[1]} (${method} ${path})` });
}
