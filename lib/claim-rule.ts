/**
 * Who may take on an issue: the rule of the `/attempt` comment command
 * (api/services/github-events/commands.ts), which the VS Code extension's
 * Claim command applies too before it sends the person to Contribute. A
 * registered Issuepool user (with a wallet) whose role is contributor.
 */
export type ClaimRefusal = "not_registered" | "not_contributor";

export function claimRefusal(user: { role: string | null; hasWallet: boolean } | null | undefined): ClaimRefusal | null {
  if (!user || !user.hasWallet) return "not_registered";
  if (user.role !== "contributor") return "not_contributor";
  return null;
}

/** The sentence a refused claimant reads (the bot's reply, the editor's message). */
export function claimRefusalText(refusal: ClaimRefusal, platformUrl: string): string {
  return refusal === "not_registered"
    ? `Sign in to Issuepool and complete your registration first: ${platformUrl}/auth`
    : "Only contributors can take on an issue; your Issuepool role is pool manager.";
}
