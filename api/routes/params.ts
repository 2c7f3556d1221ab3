import { z } from "zod";

/**
 * Ids (GitHub repository ids, issue numbers, user and installation ids): a JSON integer, or a canonical decimal
 * string where the spec sends strings (paths, queries, some bodies). Nothing else: no `true`, `"1."`, `"1e2"`,
 * `"0x10"`, `"01"`, `" 1"`, `"1.0000000000000000001"` (each of which a number coercion would take as an id).
 */
const ID_TOO_LARGE = `must be at most ${Number.MAX_SAFE_INTEGER}`;
const integerId = z.number({ message: "must be a number" }).int("must be a whole number").positive("must be positive").max(Number.MAX_SAFE_INTEGER, ID_TOO_LARGE);
const decimalId = z
  .string()
  .regex(/^[1-9][0-9]*$/, "must be a positive whole number in plain digits")
  .max(16, ID_TOO_LARGE)
  .transform(Number)
  .pipe(z.number().max(Number.MAX_SAFE_INTEGER, ID_TOO_LARGE));
export const positiveId = z.union([integerId, decimalId], { message: "must be a positive whole number" });

export const RepoParam = z.object({ repoId: positiveId });
export const RepoIssueParam = z.object({ repoId: positiveId, issueId: positiveId });
export const IdParam = z.object({ id: positiveId });

/** GitHub's rules for owner (user/organization) and repository names. */
export const ownerName = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "is not a GitHub owner name");
export const repoName = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "is not a GitHub repository name");
export const OwnerRepoParam = z.object({ owner: ownerName, repo: repoName });
export const OwnerRepoQuery = z.object({ owner: ownerName, repo: repoName });
