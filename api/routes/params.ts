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
