/**
 * How someone takes on a bountied issue, shared by the bot's comment on
 * GitHub (api/services/bot/bounty-comment.ts) and the repository page
 * (site/islands/repo-detail/claim-how-to.tsx), so both tell each kind of
 * visitor the same route (issue 16: the comment told everyone to "choose
 * Contribute", a button registered contributors never see; the spec shows it
 * only to visitors who are neither contributors nor pool managers):
 *
 * - a registered contributor comments `/attempt` on the issue;
 * - anyone else chooses Contribute on the issue on Issuepool, which signs
 *   them in with GitHub, has them pick the contributor role and puts them
 *   down for the issue;
 * - then a pull request that says `Fixes #n`; once merged, the bounty is paid.
 *
 * Texts use Markdown code spans (`…`); the page renders them as <code>.
 */
export const ATTEMPT_COMMAND = "/attempt";

export const CLAIM_STEPS = {
  contributor: `Comment \`${ATTEMPT_COMMAND}\` on the issue on GitHub.`,
  newcomer: "Choose Contribute on the issue: you sign in with GitHub, pick the contributor role and are put down for it.",
  pullRequest: (issueNumber: number | string) => `Open a pull request with \`Fixes #${issueNumber}\` in its description.`,
  paid: "When it is merged, the bounty is paid to your Issuepool wallet automatically.",
} as const;

/**
 * The guides' one sentence on taking on an issue (the welcome, the Rewards Guide, the FAQ; issue 38: each said
 * "choose Contribute", a button signed-in contributors never see).
 */
export const HOW_TO_TAKE_AN_ISSUE = `Pick a funded issue and comment ${ATTEMPT_COMMAND} on it on GitHub (new to Issuepool? Contribute on the issue signs you in with GitHub and puts you down for it), then open a pull request with “Fixes #number”.`;
