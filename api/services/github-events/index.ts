import type { AppContext } from "../../context.ts";
import type { WebhookDelivery, WebhookOutcome } from "../../workers/webhooks.ts";
import { handleInstallation, handleInstallationRepositories } from "./installations.ts";
import { handleRepository } from "./repository.ts";
import { handleIssues } from "./issues.ts";
import { handlePullRequest } from "./pull-requests.ts";
import { handleIssueComment } from "./commands.ts";
import { handleMembershipChange } from "../money/managers.ts";
import { noteReviewActivity, trackPullRequestWait } from "../reviews/waits.ts";

/** Routes a stored GitHub delivery to its handler. Every handler is idempotent (deliveries can be retried). */
export async function handleGitHubDelivery(ctx: Pick<AppContext, "env" | "database" | "log" | "chain" | "outbox" | "indexer" | "changes" | "appSecret" | "mailer">, delivery: WebhookDelivery): Promise<WebhookOutcome> {
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(delivery.payload);
  } catch {
    return "ignored";
  }
  switch (delivery.event) {
    case "installation":
      return handleInstallation(ctx, payload);
    case "installation_repositories":
      return handleInstallationRepositories(ctx, payload);
    case "repository":
      return handleRepository(ctx, payload);
    case "issues":
      return handleIssues(ctx, payload);
    case "pull_request": {
      // The payout first; then the pull request's wait for review (issue 39), which asks GitHub for its closing
      // references: a failure there retries the delivery, and the payout's path finds its first decision.
      const outcome = await handlePullRequest(ctx, payload);
      await trackPullRequestWait(ctx, payload);
      return outcome;
    }
    case "pull_request_review":
      await noteReviewActivity(ctx, "pull_request_review", payload);
      return "done";
    case "issue_comment":
      await noteReviewActivity(ctx, "issue_comment", payload);
      return handleIssueComment(ctx, payload, delivery.deliveryId);
    case "member":
    case "organization":
      return handleMembershipChange(ctx, delivery.event, payload);
    default:
      return "ignored"; // ping, and events the platform does not act on
  }
}
