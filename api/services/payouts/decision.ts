/**
 * The one payout decision (issue 36; docs/design.md, "Who is paid: the payout decision"). Every path that
 * moves a bounty's money asks it, under the bounty's lock, with the facts of the bounty (facts.ts) and of
 * the pull request (fixes.ts): the merge webhook, the issue-closed path and the catch-up pass, a community
 * bounty's claim, the pool manager's release and cancellation, the split's release, a held bounty paid on
 * registration, a funder's withdrawal, the platform's refunds (expiry, not planned), and any new money put
 * into the bounty. It reads nothing and writes nothing: the rules are a table, tested as one
 * (decision.test.ts); the callers (settle.ts and the paths above) carry the answer out.
 *
 * The rules:
 * - Money is due only to the authors of a pull request that was merged after that money was committed
 *   (every unit of the bounty's current round: the pool's allocation, each boost, a community bounty's
 *   funding), that closes the issue (GitHub's closing references), with the issue closed and not reopened
 *   since the merge. A reopened issue needs a new merge. GitHub's times have whole seconds: a merge in the
 *   same second as the last money counts as after it.
 * - Such a merge commits the bounty (a row of bounty_commitments for the round): from then on no funder
 *   takes money back, no money is added, no cancel, claim or release changes who is paid; the bounty is
 *   paid only to those people (at once, through a split's window, or when they register).
 * - A community bounty's claim exists only where the webhook cannot decide (a repository without the App),
 *   and never pays a pool's share.
 * - A bounty already paid, being paid, cancelled or being cancelled moves no more.
 */
import { DomainError, ErrorCode } from "../../errors.ts";
import type { BountyCommitment, CommitmentVia } from "../../../db/schema/index.ts";
import type { GitHubPerson } from "../splits/co-authors.ts";
import type { BountyFacts } from "./facts.ts";
import type { FixFacts } from "./fixes.ts";

export type Trigger =
  /** A merged pull request, told by the webhook, the issue-closed path, the catch-up pass, or its author's claim. */
  | { kind: "merge"; fix: FixFacts; people: GitHubPerson[]; claim?: { login: string; appInstalled: boolean } }
  /** The pool manager releases the bounty by hand to someone they chose. */
  | { kind: "release"; recipient: GitHubPerson; fixes?: FixFacts[] }
  /** The split's release pass pays a split whose window is over. */
  | { kind: "split" }
  /** A bounty held for a GitHub user without a wallet is paid to the wallet they registered. */
  | { kind: "held"; person: GitHubPerson }
  /** The pool manager cancels (the pool's share back to the pool). */
  | { kind: "cancel"; fixes?: FixFacts[] }
  /** A funder takes their share back. */
  | { kind: "withdraw"; fixes?: FixFacts[] }
  /** The platform returns funders' shares: expired, or the issue closed as not planned. */
  | { kind: "refund"; fixes?: FixFacts[] }
  /** New money for the bounty: an allocation, a boost, a community bounty. */
  | { kind: "fund" };

export interface NewCommitment {
  round: number;
  via: CommitmentVia;
  pullNumber: number | null;
  pullUrl: string | null;
  mergedAt: Date | null;
  people: GitHubPerson[];
}

export type Decision =
  | {
      ok: true;
      /** For a merge or a release: who is paid, the author (or the person released to) first. */
      payees?: GitHubPerson[];
      /** The commitment to record (new) or that stands (the same pull request, asked again). */
      commitment?: NewCommitment;
      /** The commitment existed already: the effect (payout, split, hold) was carried out before, or is to be finished. */
      again?: boolean;
    }
  | {
      ok: false;
      refusal: DomainError;
      /** Not a refusal of the request but a moment to wait (the funding not confirmed yet): try again. */
      retry?: boolean;
      /** A merged pull request GitHub knows of that earned the bounty though the platform has not acted on it yet. */
      unpaidFix?: FixFacts;
    };

const refuse = (code: ErrorCode, error: string, message: string, retry?: boolean): Decision => ({ ok: false, refusal: new DomainError({ code, error, message }), retry });

/** Who the bounty of the current round is committed to, whatever recorded it. */
export interface Committed {
  via: CommitmentVia | "split" | "hold";
  pullNumber: number | null;
  people: GitHubPerson[];
}

export function committedTo(facts: BountyFacts): Committed | undefined {
  const c = facts.commitment;
  if (c) return { via: c.via, pullNumber: c.pullNumber, people: peopleOf(c) };
  // Recorded before commitments existed (or by a path that records none): a split or a hold decides the bounty.
  if (facts.split) return { via: "split", pullNumber: facts.split.pullNumber, people: [{ id: facts.split.authorGithubId, login: facts.split.authorLogin }] };
  if (facts.hold) return { via: "hold", pullNumber: facts.hold.pullNumber, people: [{ id: facts.hold.githubUserId, login: facts.hold.githubLogin }] };
  return undefined;
}

export const peopleOf = (c: Pick<BountyCommitment, "people">): GitHubPerson[] => JSON.parse(c.people) as GitHubPerson[];

const describe = (c: Committed) =>
  c.pullNumber !== null ? `pull request #${c.pullNumber} by @${c.people[0]?.login ?? "someone"}` : `@${c.people[0]?.login ?? "someone"} (released by the pool manager)`;

/** GitHub's times have whole seconds. */
const secondOf = (d: Date) => Math.floor(d.getTime() / 1000) * 1000;

/**
 * Whether `fix` earns the bounty's money (the first rule above), or why not. `undefined`: it does. A `retry`
 * answer: the platform does not know yet when the money was committed (its funding is not confirmed).
 */
export function judgeFix(facts: BountyFacts, fix: FixFacts): Decision | undefined {
  const issue = facts.issueNumber;
  if (!fix.merged || !fix.mergedAt) return refuse(ErrorCode.CLAIM_NOT_VERIFIED, "Claim not verified", "The pull request is not merged.");
  if (!fix.closesIssue) return refuse(ErrorCode.CLAIM_NOT_VERIFIED, "Claim not verified", `The pull request does not close issue #${issue}.`);
  if (fix.issueState !== "closed") return refuse(ErrorCode.NOT_DUE, "Issue still open", `Issue #${issue} is still open: a pull request earns its bounty once it closes the issue.`);
  if (fix.reopenedAfterMerge) {
    return refuse(ErrorCode.CLAIM_NOT_VERIFIED, "Claim not verified", `Issue #${issue} was reopened after pull request #${fix.number} was merged: a new merge is needed.`);
  }
  if (!facts.moneyCommittedAt) return refuse(ErrorCode.NOT_READY, "Funding not confirmed", "This bounty's funding is still being confirmed. Try again in a moment.", true);
  if (fix.mergedAt.getTime() < secondOf(facts.moneyCommittedAt)) {
    return refuse(
      ErrorCode.CLAIM_NOT_VERIFIED,
      "Claim not verified",
      `Pull request #${fix.number} was merged (${stamp(fix.mergedAt)}) before this bounty's money was committed (${stamp(facts.moneyCommittedAt)}): it does not earn it.`,
    );
  }
  return undefined;
}

const stamp = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** A bounty that can still move: open on the chain, nothing settling. */
function notOpen(facts: BountyFacts): Decision | undefined {
  if (facts.settling === "pay_bounty") return refuse(ErrorCode.BOUNTY_SETTLING, "Bounty settling", "This bounty is already being paid.");
  if (facts.settling === "cancel_bounty") return refuse(ErrorCode.BOUNTY_SETTLING, "Bounty settling", "This bounty is already being cancelled.");
  switch (facts.chain.status) {
    case "open":
      return undefined;
    case "paid":
    case "queued":
      return refuse(ErrorCode.ALREADY_PAID, "Already paid", "This bounty has already been paid.");
    default:
      return refuse(ErrorCode.NO_OPEN_BOUNTY, "No open bounty", "There is no open bounty on this issue.");
  }
}

/** A merged pull request GitHub knows of that earns the bounty, though the platform has not acted on it (a lost webhook). */
function unpaidFix(facts: BountyFacts, fixes: FixFacts[] | undefined): FixFacts | undefined {
  return fixes?.find((fix) => judgeFix(facts, fix) === undefined);
}

export function decide(facts: BountyFacts, trigger: Trigger): Decision {
  const committed = committedTo(facts);
  switch (trigger.kind) {
    case "merge": {
      const { fix, claim } = trigger;
      if (claim?.appInstalled) {
        return refuse(ErrorCode.CLAIM_NOT_NEEDED, "Claim not needed", "This repository has the Issuepool app: a merged fix is paid by itself, no claim is needed.");
      }
      const closed = notOpen(facts);
      // The same pull request asked again (a redelivered webhook, the catch-up pass): the decision stands.
      if (committed && (committed.via === "merge" || committed.via === "claim" || committed.via === "split" || committed.via === "hold") && committed.pullNumber === fix.number) {
        if (closed && facts.chain.status !== "open") return closed;
        return { ok: true, payees: committed.people, again: true, commitment: facts.commitment ? commitmentOf(facts) : undefined };
      }
      if (closed) return closed;
      if (committed) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `This bounty was already earned by ${describe(committed)}.`);
      if (claim && facts.chain.poolShare > 0n) {
        return refuse(ErrorCode.POOL_BOUNTY, "Pool bounty", "This issue's bounty includes a pool's share, which only a merge seen by the repository's app pays: it cannot be claimed.");
      }
      if (claim && claim.login.toLowerCase() !== fix.author.login.toLowerCase()) {
        return refuse(ErrorCode.CLAIM_NOT_VERIFIED, "Claim not verified", "Only the pull request's author can claim this bounty.");
      }
      const judged = judgeFix(facts, fix);
      if (judged) return judged;
      return {
        ok: true,
        payees: trigger.people,
        commitment: { round: facts.chain.round, via: claim ? "claim" : "merge", pullNumber: fix.number, pullUrl: fix.url, mergedAt: fix.mergedAt, people: trigger.people },
      };
    }
    case "release": {
      if (facts.settling) return notOpen(facts)!;
      const closed = notOpen(facts);
      if (closed) return closed;
      const to = trigger.recipient;
      if (facts.hold && facts.hold.githubUserId !== to.id && facts.hold.githubLogin.toLowerCase() !== to.login.toLowerCase()) {
        return refuse(ErrorCode.BOUNTY_HELD, "Bounty held", `This bounty is held for @${facts.hold.githubLogin}, who earned it: it is paid to them when they register.`);
      }
      if (facts.split) return refuse(ErrorCode.BOUNTY_SHARED, "Bounty being shared", "A merged pull request earned this bounty and it is being shared among its authors: change the shares instead.");
      if (facts.commitment) {
        const c = facts.commitment;
        if (c.via === "release" && c.authorGithubId === to.id) return { ok: true, payees: [to], again: true, commitment: commitmentOf(facts) };
        if (!(facts.hold && c.authorGithubId === to.id)) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `This bounty was already earned by ${describe(committed!)}.`);
      }
      const fix = unpaidFix(facts, trigger.fixes);
      if (fix) {
        return { ...refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `Pull request #${fix.number} by @${fix.author.login} fixed this issue after the bounty was set: it is paid to its author(s), not released by hand.`), unpaidFix: fix } as Decision;
      }
      return { ok: true, payees: [to], commitment: { round: facts.chain.round, via: "release", pullNumber: null, pullUrl: null, mergedAt: null, people: [to] } };
    }
    case "split": {
      const closed = notOpen(facts);
      if (closed && facts.chain.status !== "open") return closed;
      if (!facts.split) return refuse(ErrorCode.NO_OPEN_BOUNTY, "No split", "This issue's bounty is not being shared.");
      return { ok: true };
    }
    case "held": {
      const closed = notOpen(facts);
      if (closed) return closed;
      if (!facts.hold || facts.hold.githubUserId !== trigger.person.id) return refuse(ErrorCode.BOUNTY_COMMITTED, "Not held", "This bounty is not held for this person.");
      if (facts.commitment && facts.commitment.authorGithubId !== trigger.person.id) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `This bounty was already earned by ${describe(committed!)}.`);
      return { ok: true, payees: [trigger.person] };
    }
    case "cancel": {
      if (facts.settling) return notOpen(facts)!;
      if (facts.chain.status !== "open") return refuse(ErrorCode.NO_OPEN_BOUNTY, "No open bounty", "There is no open bounty on this issue.");
      if (facts.hold) return refuse(ErrorCode.BOUNTY_HELD, "Bounty held", `This bounty is held for @${facts.hold.githubLogin}, who earned it: it can no longer be cancelled.`);
      if (facts.split) return refuse(ErrorCode.BOUNTY_SHARED, "Bounty being shared", "A merged pull request earned this bounty and it is being shared among its authors: it can no longer be cancelled.");
      if (committed) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `This bounty was earned by ${describe(committed)}: it can no longer be cancelled.`);
      const fix = unpaidFix(facts, trigger.fixes);
      if (fix) return { ...refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `Pull request #${fix.number} by @${fix.author.login} fixed this issue: the bounty is theirs and can no longer be cancelled.`), unpaidFix: fix } as Decision;
      return { ok: true };
    }
    case "withdraw":
    case "refund": {
      if (facts.chain.status === "paid" || facts.chain.status === "queued" || facts.settling === "pay_bounty") {
        return refuse(ErrorCode.ALREADY_PAID, "Already paid", "This bounty has been paid: its shares went to its contributors.");
      }
      if (committed) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `A pull request fixing this issue was merged (${describe(committed)}): the shares on it go to its author(s).`);
      const fix = unpaidFix(facts, trigger.fixes);
      if (fix) return { ...refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `Pull request #${fix.number} by @${fix.author.login} fixed this issue: the shares on it go to its author(s).`), unpaidFix: fix } as Decision;
      return { ok: true };
    }
    case "fund": {
      if (facts.chain.status === "paid" || facts.chain.status === "queued" || facts.settling === "pay_bounty") {
        return refuse(ErrorCode.ALREADY_PAID, "Bounty closed", "This issue's bounty is already paid or on its way out.");
      }
      if (committed) return refuse(ErrorCode.BOUNTY_COMMITTED, "Bounty committed", `A merged pull request already earned this bounty (${describe(committed)}): it takes no more money.`);
      return { ok: true };
    }
  }
}

function commitmentOf(facts: BountyFacts): NewCommitment {
  const c = facts.commitment!;
  return { round: c.round, via: c.via, pullNumber: c.pullNumber, pullUrl: c.pullUrl, mergedAt: c.mergedAt, people: peopleOf(c) };
}
