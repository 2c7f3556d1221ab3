import { z } from "zod";

/** GitHub repository ids and issue numbers in paths: positive integers. */
export const positiveId = z.coerce
  .number({ message: "must be a number" })
  .int("must be a whole number")
  .positive("must be positive")
  .max(Number.MAX_SAFE_INTEGER, "is too large");

export const RepoParam = z.object({ repoId: positiveId });
export const RepoIssueParam = z.object({ repoId: positiveId, issueId: positiveId });
export const IdParam = z.object({ id: positiveId });

/** GitHub's rules for owner (user/organization) and repository names. */
export const ownerName = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, "is not a GitHub owner name");
export const repoName = z.string().regex(/^[A-Za-z0-9._-]{1,100}$/, "is not a GitHub repository name");
export const OwnerRepoParam = z.object({ owner: ownerName, repo: repoName });
export const OwnerRepoQuery = z.object({ owner: ownerName, repo: repoName });
