import type { AppContext } from "../../context.ts";
import type { WebhookDelivery, WebhookOutcome } from "../../workers/webhooks.ts";
import { handleInstallation, handleInstallationRepositories } from "./installations.ts";
import { handleRepository } from "./repository.ts";
import { handleIssues } from "./issues.ts";
import { handlePullRequest } from "./pull-requests.ts";
import { handleIssueComment } from "./commands.ts";
import { handleMembershipChange } from "../money/managers.ts";

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
    case "pull_request":
      return handlePullRequest(ctx, payload);
    case "issue_comment":
      return handleIssueComment(ctx, payload, delivery.deliveryId);
    case "member":
    case "organization":
      return handleMembershipChange(ctx, delivery.event, payload);
    default:
      return "ignored"; // ping, and events the platform does not act on
  }
}
