/**
 * GitHub back, deliveries at once (issue 37, item 6). A delivery whose handler failed because GitHub did not
 * answer is retried with a backoff of up to ten minutes; measured from outside, a merge during a 5-minute outage
 * was paid 213 s after GitHub came back, waiting for its slot. While such deliveries wait, this pass asks GitHub
 * whether it answers (`GET /rate_limit`, free) and, once it does, makes them due now.
 */
import type { AppContext } from "../../context.ts";
import { gitHubAnswers } from "../../github/client.ts";

/** How often GitHub is asked while deliveries wait on it. */
export const GITHUB_RETURN_PROBE_MS = 5_000;

export async function retryWhenGitHubAnswers(ctx: Pick<AppContext, "env" | "webhooks">): Promise<number> {
  if (!(await ctx.webhooks.anyWaitingOn("github"))) return 0;
  if (!(await gitHubAnswers(ctx.env.GITHUB_API_URL))) return 0;
  return ctx.webhooks.retryWaitingOn("github");
}
