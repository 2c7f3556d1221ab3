import { describe, expect, test } from "bun:test";
import type { BountyCommitment, HeldPayout, PayoutSplit } from "../../../db/schema/index.ts";
import { decide, judgeFix, type Decision, type Trigger } from "./decision.ts";
import type { BountyFacts } from "./facts.ts";
import type { FixFacts } from "./fixes.ts";

/**
 * The payout decision as a table (decision.ts): each rule, each path, and each of issue 36's four attacks as
 * the facts the platform sees when it is tried. The same function is run by every path over HTTP and webhooks
 * in payouts.test.ts and the adversarial model test.
 */
const T0 = Date.parse("2026-11-20T10:00:00Z");
const at = (s: number) => new Date(T0 + s * 1000);
const bob = { id: 1002, login: "bob" };
const carol = { id: 1003, login: "carol" };
const mallory = { id: 1666, login: "mallory" };

function facts(over: Omit<Partial<BountyFacts>, "chain"> & { chain?: Partial<BountyFacts["chain"]> } = {}): BountyFacts {
  const { chain, ...rest } = over;
  return {
    repoId: 5003,
    issueNumber: 7,
    chain: { status: "open", currency: "XDC", amount: 5n * 10n ** 18n, poolShare: 5n * 10n ** 18n, boosted: 0n, round: 0, recipient: "0x0000000000000000000000000000000000000000", ...chain },
    moneyCommittedAt: at(0),
    ...rest,
  };
}

function fix(over: Partial<FixFacts> = {}): FixFacts {
  return { number: 12, url: "https://github.com/alice/lite/pull/12", author: bob, merged: true, mergedAt: at(60), closesIssue: true, issueState: "closed", reopenedAfterMerge: false, ...over };
}

const merge = (f: FixFacts = fix(), people = [f.author]): Trigger => ({ kind: "merge", fix: f, people });
const claim = (f: FixFacts, login = f.author.login, appInstalled = false): Trigger => ({ kind: "merge", fix: f, people: [f.author], claim: { login, appInstalled } });
const refused = (d: Decision) => (d.ok ? "ok" : d.refusal.code);

const commitment = (over: Partial<BountyCommitment> = {}): BountyCommitment => ({
  githubRepoId: 5003,
  issueNumber: 7,
  round: 0,
  via: "merge",
  pullNumber: 12,
  pullUrl: "https://github.com/alice/lite/pull/12",
  mergedAt: at(60),
  people: JSON.stringify([bob]),
  authorGithubId: bob.id,
  authorLogin: bob.login,
  committedAt: at(61),
  ...over,
});
const split = { githubRepoId: 5003, issueNumber: 7, pullNumber: 12, authorGithubId: bob.id, authorLogin: "bob", status: "window" } as PayoutSplit;
const hold = { githubRepoId: 5003, issueNumber: 7, githubUserId: carol.id, githubLogin: "carol", pullNumber: 12, releasedAt: null } as HeldPayout;

describe("a merged pull request earns the bounty only when", () => {
  test("it was merged after every unit of the money was committed (the same second counts as after)", () => {
    expect(decide(facts(), merge(fix({ mergedAt: at(60) })))).toMatchObject({ ok: true, payees: [bob], commitment: { via: "merge", pullNumber: 12, round: 0 } });
    expect(refused(decide(facts({ moneyCommittedAt: at(61) }), merge(fix({ mergedAt: at(60) }))))).toBe("claim_not_verified");
    // GitHub's times have whole seconds: money at .900 and a merge stamped in that second is after it.
    expect(decide(facts({ moneyCommittedAt: new Date(T0 + 60_900) }), merge(fix({ mergedAt: at(60) }))).ok).toBe(true);
    expect(refused(decide(facts({ moneyCommittedAt: new Date(T0 + 61_000) }), merge(fix({ mergedAt: at(60) }))))).toBe("claim_not_verified");
  });

  test("it is merged, closes the issue, and the issue is closed and not reopened since", () => {
    expect(refused(decide(facts(), merge(fix({ merged: false, mergedAt: null }))))).toBe("claim_not_verified");
    expect(refused(decide(facts(), merge(fix({ closesIssue: false }))))).toBe("claim_not_verified");
    expect(refused(decide(facts(), merge(fix({ issueState: "open" }))))).toBe("not_due");
    const reopened = decide(facts(), merge(fix({ reopenedAfterMerge: true })));
    expect(refused(reopened)).toBe("claim_not_verified");
    expect(reopened.ok ? "" : reopened.refusal.message).toContain("a new merge is needed");
  });

  test("while the funding is not confirmed, it waits (retry), neither paying nor refusing for good", () => {
    const d = decide(facts({ moneyCommittedAt: undefined }), merge());
    expect(d).toMatchObject({ ok: false, retry: true });
  });

  test("co-authors share it: every person is a payee, the author first", () => {
    expect(decide(facts(), merge(fix(), [bob, carol]))).toMatchObject({ ok: true, payees: [bob, carol] });
  });

  test("a bounty already paid, being paid or cancelled moves no more", () => {
    expect(refused(decide(facts({ chain: { status: "paid" } }), merge()))).toBe("already_paid");
    expect(refused(decide(facts({ chain: { status: "queued" } }), merge()))).toBe("already_paid");
    expect(refused(decide(facts({ chain: { status: "cancelled" } }), merge()))).toBe("no_open_bounty");
    expect(refused(decide(facts({ settling: "pay_bounty" }), merge()))).toBe("bounty_settling");
  });

  test("the same pull request asked again finds its decision; another one finds the bounty committed", () => {
    const committed = facts({ commitment: commitment() });
    expect(decide(committed, merge())).toMatchObject({ ok: true, again: true, payees: [bob] });
    const other = decide(committed, merge(fix({ number: 13, author: mallory, mergedAt: at(120) })));
    expect(refused(other)).toBe("bounty_committed");
    // A split or a hold recorded before commitments existed decides the bounty too.
    expect(refused(decide(facts({ split }), merge(fix({ number: 13 }))))).toBe("bounty_committed");
    expect(refused(decide(facts({ hold }), merge(fix({ number: 13 }))))).toBe("bounty_committed");
  });
});

describe("issue 36's attacks, as the decision sees them", () => {
  test("high: an old pull request on a reopened issue with a pool bounty, through a community claim", () => {
    // Merged an hour before the pool's allocation, the issue reopened since: refused three times over.
    const old = fix({ author: mallory, mergedAt: at(-3600), reopenedAfterMerge: true, issueState: "open" });
    expect(refused(decide(facts(), claim(old, "mallory", true)))).toBe("claim_not_needed");
    expect(refused(decide(facts(), claim(old, "mallory", false)))).toBe("pool_bounty");
    expect(refused(decide(facts({ chain: { poolShare: 0n } }), claim({ ...old, issueState: "closed", reopenedAfterMerge: false }, "mallory")))).toBe("claim_not_verified");
    // And by the merge path (a redelivered webhook, the issue closed by hand): the old merge earns nothing.
    expect(refused(decide(facts(), merge({ ...old, issueState: "closed", reopenedAfterMerge: false })))).toBe("claim_not_verified");
  });

  test("high: a claim during a split's release window", () => {
    const f = facts({ split, commitment: commitment({ people: JSON.stringify([bob, carol]) }) });
    expect(refused(decide(f, claim(fix(), "bob", true)))).toBe("claim_not_needed");
    expect(refused(decide(f, claim(fix({ number: 13 }), "bob", false)))).toBe("bounty_committed");
  });

  test("medium: a community bounty paid to a pull request merged before it existed", () => {
    const f = facts({ chain: { poolShare: 0n, boosted: 10n ** 18n }, moneyCommittedAt: at(0) });
    expect(refused(decide(f, claim(fix({ mergedAt: at(-10) }))))).toBe("claim_not_verified");
    expect(decide(f, claim(fix({ mergedAt: at(10) })))).toMatchObject({ ok: true, commitment: { via: "claim" } });
    // Only its author claims it.
    expect(refused(decide(f, claim(fix({ mergedAt: at(10) }), "mallory")))).toBe("claim_not_verified");
  });

  test("medium: a funder's withdrawal after the merge, and the platform's expiry refund", () => {
    for (const kind of ["withdraw", "refund"] as const) {
      expect(refused(decide(facts({ commitment: commitment() }), { kind }))).toBe("bounty_committed");
      expect(refused(decide(facts({ split }), { kind }))).toBe("bounty_committed");
      expect(refused(decide(facts({ hold }), { kind }))).toBe("bounty_committed");
      // The platform has not acted on the merge yet (its webhook lost): GitHub's answer decides.
      expect(refused(decide(facts(), { kind, fixes: [fix()] }))).toBe("bounty_committed");
      expect((decide(facts(), { kind, fixes: [fix()] }) as { unpaidFix?: FixFacts }).unpaidFix?.number).toBe(12);
      // An old merge does not stop a withdrawal.
      expect(decide(facts(), { kind, fixes: [fix({ mergedAt: at(-10) })] }).ok).toBe(true);
      expect(decide(facts(), { kind }).ok).toBe(true);
    }
  });
});

describe("the other paths", () => {
  test("release by hand: refused once earned by someone else, allowed to the person already released to", () => {
    expect(decide(facts(), { kind: "release", recipient: carol })).toMatchObject({ ok: true, payees: [carol], commitment: { via: "release", pullNumber: null } });
    expect(refused(decide(facts({ commitment: commitment() }), { kind: "release", recipient: carol }))).toBe("bounty_committed");
    expect(refused(decide(facts({ split }), { kind: "release", recipient: carol }))).toBe("bounty_shared");
    expect(refused(decide(facts({ hold }), { kind: "release", recipient: bob }))).toBe("bounty_held");
    expect(decide(facts({ hold }), { kind: "release", recipient: carol }).ok).toBe(true);
    const again = facts({ commitment: commitment({ via: "release", pullNumber: null, authorGithubId: carol.id, authorLogin: "carol", people: JSON.stringify([carol]) }) });
    expect(decide(again, { kind: "release", recipient: carol })).toMatchObject({ ok: true, again: true });
    expect(refused(decide(facts(), { kind: "release", recipient: carol, fixes: [fix()] }))).toBe("bounty_committed");
    expect(refused(decide(facts({ settling: "cancel_bounty" }), { kind: "release", recipient: carol }))).toBe("bounty_settling");
  });

  test("cancel: only an open bounty nobody earned", () => {
    expect(decide(facts(), { kind: "cancel" }).ok).toBe(true);
    expect(refused(decide(facts({ chain: { status: "paid" } }), { kind: "cancel" }))).toBe("no_open_bounty");
    expect(refused(decide(facts({ hold }), { kind: "cancel" }))).toBe("bounty_held");
    expect(refused(decide(facts({ split }), { kind: "cancel" }))).toBe("bounty_shared");
    expect(refused(decide(facts({ commitment: commitment() }), { kind: "cancel" }))).toBe("bounty_committed");
    expect(refused(decide(facts(), { kind: "cancel", fixes: [fix()] }))).toBe("bounty_committed");
    expect(refused(decide(facts({ settling: "pay_bounty" }), { kind: "cancel" }))).toBe("bounty_settling");
  });

  test("new money: refused once paid or earned", () => {
    expect(decide(facts(), { kind: "fund" }).ok).toBe(true);
    expect(decide(facts({ chain: { status: "none" } }), { kind: "fund" }).ok).toBe(true);
    expect(refused(decide(facts({ chain: { status: "paid" } }), { kind: "fund" }))).toBe("already_paid");
    expect(refused(decide(facts({ commitment: commitment() }), { kind: "fund" }))).toBe("bounty_committed");
  });

  test("a held bounty is paid only to the person it is held for; a split only while it is live", () => {
    expect(decide(facts({ hold }), { kind: "held", person: carol })).toMatchObject({ ok: true, payees: [carol] });
    expect(refused(decide(facts({ hold }), { kind: "held", person: bob }))).toBe("bounty_committed");
    expect(decide(facts({ split }), { kind: "split" }).ok).toBe(true);
    expect(refused(decide(facts({ split, chain: { status: "paid" } }), { kind: "split" }))).toBe("already_paid");
  });

  test("judgeFix is the rule the paths share", () => {
    expect(judgeFix(facts(), fix())).toBeUndefined();
    expect(judgeFix(facts(), fix({ mergedAt: at(-1) }))).toMatchObject({ ok: false });
  });
});
