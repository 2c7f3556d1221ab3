/**
 * The e-mailed codes of cash-outs (issue 40), the way someone holding a stolen session would try them: over the API,
 * against the on-ramp simulator's sell side, anvil and the SMTP sink, all real. A cash-out above SEND_OTP_THRESHOLD
 * (20 here) or to a UPI id no code confirmed needs the code mailed for exactly its currency, amount and UPI id;
 * turning automatic cash-out on, or moving it to another UPI id, needs the code mailed for that id; automatic
 * cash-outs go only to a confirmed id. Refused means nothing recorded: no cash-out, no outbox row, no provider order.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, like } from "drizzle-orm";
import type { Address } from "viem";
import { cashouts, cashoutSettings, chainTransactions, rewardArrivals } from "../../../db/schema/index.ts";
import { call, type TestSession } from "../../../testing/auth.ts";
import { eventually } from "../../../testing/stack.ts";
import { startCashoutWorld, type CashoutWorld } from "../../../testing/cashout-world.ts";
import { walletOfUser } from "../../services/wallets/custodial.ts";

type Session = TestSession & { wallet: Address };
let world: CashoutWorld;
let dave: Session;
let erin: Session;
let frank: Session;
let grace: Session;

beforeAll(async () => {
  world = await startCashoutWorld({ env: { SEND_OTP_THRESHOLD: "20" } });
  dave = await world.stack.signUp("dave", "contributor");
  erin = await world.stack.signUp("erin", "contributor");
  frank = await world.stack.signUp("frank", "contributor");
  grace = await world.stack.signUp("grace", "contributor");
  for (const who of [dave, erin, frank, grace]) await world.stack.chain.fund(who.wallet, { xdc: "100" });
}, 120_000);
afterAll(async () => {
  await world?.stop();
});

const t = () => world.stack.t;
const db = () => world.stack.t.ctx.database.db;
const post = (as: TestSession, path: string, body: unknown) => call(t(), path, { as, body });
const quote = async (as: TestSession, amount: string, upiId: string) => {
  const res = await post(as, "/api/wallet/cashout/quote", { currency: "XDC", amount, upiId });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const confirm = (as: TestSession, quoteId: string, upiId: string, otp?: string) => post(as, "/api/wallet/cashout", { quoteId, upiId, ...(otp ? { otp } : {}) });
const settings = async (as: TestSession) => (await call(t(), "/api/wallet/cashout/settings", { as })).json();
const putSettings = (as: TestSession, body: unknown) => call(t(), "/api/wallet/cashout/settings", { as, method: "PUT", body });
const lastMailId = (to: string) => Math.max(0, ...world.sink.messages({ to }).map((m) => m.id));

/** Asks for a code at `path` and reads it from the mail the sink received after. */
async function mailedCode(as: Session, path: string, body: unknown, subject: string): Promise<{ code: string; text: string }> {
  const to = as.user.email!;
  const before = lastMailId(to);
  const res = await post(as, path, body);
  expect(res.status, await res.clone().text()).toBe(200);
  expect((await res.json()).message).toBe(`We sent a 6-digit code to ${to[0]}***@example.com.`);
  const mail = await eventually(async () => world.sink.messages({ to }).find((m) => m.id > before && m.subject === subject), 10_000, `the mail "${subject}"`);
  return { code: /^ {4}(\d{6})$/m.exec(mail.text)![1]!, text: mail.text };
}
const cashoutCode = (as: Session, quoteId: string, upiId: string) => mailedCode(as, "/api/wallet/cashout/send-code", { quoteId, upiId }, "Confirm your Issuepool cash-out");
const autoCode = (as: Session, upiId: string) => mailedCode(as, "/api/wallet/cashout/settings/send-code", { upiId }, "Confirm automatic cash-out on Issuepool");

/** What a refused confirmation must leave untouched: the user's cash-outs, the wallet's outbox rows, the provider's orders. */
async function footprint(as: Session) {
  const wallet = await walletOfUser(db(), as.user.id);
  return {
    cashouts: (await db().select().from(cashouts).where(eq(cashouts.userId, as.user.id))).length,
    outbox: (await db().select().from(chainTransactions).where(eq(chainTransactions.walletId, wallet!.id))).length,
    orders: world.simulator.sell.orders.size,
  };
}
const settled = (as: TestSession, id: string) =>
  eventually(async () => {
    const row = await (await call(t(), `/api/wallet/cashouts/${id}`, { as })).json();
    return row.status === "completed" ? row : undefined;
  }, 30_000, "cash-out completed");

describe("cash-out codes", () => {
  test("above the threshold: refused without the code and nothing is sent; with the mailed code it goes through once; the spent code works for nothing else", async () => {
    const q = await quote(dave, "25", "dave@okaxis");
    expect(q).toMatchObject({ otpRequired: true, otpReason: "amount", otpThreshold: "20" });
    const before = await footprint(dave);

    const refused = await confirm(dave, q.id, "dave@okaxis");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "code_required", error: "Confirmation code required", message: "Cash-outs above 20 XDC need the 6-digit code we e-mail you." });
    expect(await footprint(dave)).toEqual(before);

    const { code, text } = await cashoutCode(dave, q.id, "dave@okaxis");
    expect(text).toContain("cashing out 25 XDC from your Issuepool wallet, with the rupees paid to the UPI id dave@okaxis");
    const wrong = await confirm(dave, q.id, "dave@okaxis", code === "000000" ? "111111" : "000000");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: "invalid_code", message: "The code is not correct. 4 attempts left." });
    expect(await footprint(dave)).toEqual(before);

    // Confirmed three times at once with the one code (a double click): one cash-out, the code spent once.
    const answers = await Promise.all([1, 2, 3].map(() => confirm(dave, q.id, "dave@okaxis", code)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const bodies = await Promise.all(answers.map((a) => a.json()));
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    const done = await settled(dave, bodies[0].id);
    expect(done).toMatchObject({ amount: "25", upiId: "dave@okaxis" });
    const after = await footprint(dave);
    expect(after.cashouts - before.cashouts).toBe(1);
    expect(after.orders - before.orders).toBe(1);
    expect(await db().select().from(chainTransactions).where(eq(chainTransactions.idempotencyKey, `cashout:${done.id}`))).toHaveLength(1);

    // A retry of the same confirmation after a lost answer: the first answer, no second code asked for.
    const replay = await confirm(dave, q.id, "dave@okaxis", code);
    expect(replay.status).toBe(200);
    expect((await replay.json()).id).toBe(done.id);
    // The spent code for a second cash-out of the same amount to the same id: refused, nothing recorded.
    const again = await quote(dave, "25", "dave@okaxis");
    expect(again.otpRequired).toBe(true);
    const reused = await confirm(dave, again.id, "dave@okaxis", code);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ code: "invalid_code", message: "This code is invalid, used or expired. Request a new code." });
    expect(await footprint(dave)).toEqual(after);
  }, 90_000);

  test("a first cash-out to a new UPI id below the threshold needs the code, a second to the same id does not; a code for one UPI id or amount works for no other", async () => {
    const first = await quote(erin, "2", "erin@okaxis");
    expect(first).toMatchObject({ otpRequired: true, otpReason: "new_upi_id" });
    const before = await footprint(erin);
    const refused = await confirm(erin, first.id, "erin@okaxis");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "code_required", message: "A first cash-out to erin@okaxis needs the 6-digit code we e-mail you.", details: { reason: "new_upi_id" } });

    const { code } = await cashoutCode(erin, first.id, "erin@okaxis");
    // The stolen session tries the code on its own UPI id, then on another amount: neither works.
    const elsewhere = await confirm(erin, first.id, "thief@okaxis", code);
    expect(elsewhere.status).toBe(400);
    expect((await elsewhere.json()).code).toBe("invalid_code");
    const other = await quote(erin, "3", "erin@okaxis");
    const otherAmount = await confirm(erin, other.id, "erin@okaxis", code);
    expect(otherAmount.status).toBe(400);
    expect((await otherAmount.json()).code).toBe("invalid_code");
    expect(await footprint(erin)).toEqual(before);

    const ok = await confirm(erin, first.id, "erin@okaxis", code);
    expect(ok.status, await ok.clone().text()).toBe(200);
    await settled(erin, (await ok.json()).id);

    // The id is confirmed now (in any letter case); a cash-out to it below the threshold needs no code.
    const second = await quote(erin, "3", "Erin@OkAxis");
    expect(second).toMatchObject({ otpRequired: false, otpReason: null });
    const notNeeded = await post(erin, "/api/wallet/cashout/send-code", { quoteId: second.id, upiId: "erin@okaxis" });
    expect(notNeeded.status).toBe(400);
    expect((await notNeeded.json()).code).toBe("code_not_needed");
    const plain = await confirm(erin, second.id, "erin@okaxis");
    expect(plain.status, await plain.clone().text()).toBe(200);
    await settled(erin, (await plain.json()).id);
    // thief@okaxis is still not confirmed.
    expect((await quote(erin, "1", "thief@okaxis")).otpReason).toBe("new_upi_id");
  }, 90_000);

  test("automatic cash-out: on and moved only with the code mailed for its UPI id; refused, the old settings stay; a reward afterwards goes to the confirmed id only", async () => {
    const on = { upiId: "frank@oksbi", auto: { enabled: true, minXdc: "1" } };
    const refused = await putSettings(frank, on);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "code_required", message: "Turning on automatic cash-out needs the 6-digit code we e-mail you." });
    expect((await settings(frank)).auto.enabled).toBe(false);

    const turnOn = await autoCode(frank, "frank@oksbi");
    expect(turnOn.text).toContain("Use this code to turn on automatic cash-out to the UPI id frank@oksbi:");
    const saved = await putSettings(frank, { ...on, otp: turnOn.code });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const savedBody = await saved.json();
    expect(savedBody).toMatchObject({ upiId: "frank@oksbi", upiIdConfirmed: true, auto: { enabled: true, minXdc: "1" } });
    // The same save again with the spent code (a retry after a lost answer): the same answer, no second code.
    const replay = await putSettings(frank, { ...on, otp: turnOn.code });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(savedBody);

    // The stolen session moves automatic cash-out to its own UPI id: without the code, with a guessed one, with the code of frank's id.
    const move = { upiId: "thief@oksbi", auto: { enabled: true, minXdc: "1" } };
    const moveMail = await autoCode(frank, "thief@oksbi");
    expect(moveMail.text).toContain("change the UPI id of your automatic cash-out from frank@oksbi to thief@oksbi");
    for (const otp of [undefined, moveMail.code === "000000" ? "111111" : "000000", turnOn.code]) {
      const res = await putSettings(frank, { ...move, ...(otp ? { otp } : {}) });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe(otp ? "invalid_code" : "code_required");
    }
    expect(await settings(frank)).toMatchObject({ upiId: "frank@oksbi", upiIdConfirmed: true, auto: { enabled: true } });
    // Nor does a manual cash-out elsewhere (confirmed with its own code) move where future rewards go.
    const manual = await quote(frank, "1", "frank.alt@okaxis");
    const manualCode = await cashoutCode(frank, manual.id, "frank.alt@okaxis");
    expect((await confirm(frank, manual.id, "frank.alt@okaxis", manualCode.code)).status).toBe(200);
    expect((await settings(frank)).upiId).toBe("frank@oksbi");

    const paidTx = await world.payReward(frank.wallet, "3");
    await world.passes.runOnce();
    const arrival = await eventually(async () => {
      const [row] = await db().select().from(rewardArrivals).where(like(rewardArrivals.eventKey, `%:${paidTx.toLowerCase()}:%`));
      return row?.note ? row : undefined;
    }, 10_000, "the reward handled");
    expect(arrival.cashoutId).toBeTruthy();
    const [auto] = await db().select().from(cashouts).where(eq(cashouts.id, arrival.cashoutId!));
    expect(auto).toMatchObject({ trigger: "auto", upiId: "frank@oksbi", userId: frank.user.id });
    expect(await db().select().from(cashouts).where(eq(cashouts.upiId, "thief@oksbi"))).toHaveLength(0);
  }, 120_000);

  test("automatic cash-out saved before codes were asked for (its UPI id never confirmed): the reward is kept and says why", async () => {
    await db().insert(cashoutSettings).values({ userId: grace.user.id, upiId: "grace@oksbi", autoEnabled: true, autoMinXdc: 10n ** 18n });
    expect(await settings(grace)).toMatchObject({ upiId: "grace@oksbi", upiIdConfirmed: false, auto: { enabled: true } });
    const paidTx = await world.payReward(grace.wallet, "2");
    await world.passes.runOnce();
    const arrival = await eventually(async () => {
      const [row] = await db().select().from(rewardArrivals).where(like(rewardArrivals.eventKey, `%:${paidTx.toLowerCase()}:%`));
      return row?.note ? row : undefined;
    }, 10_000, "the reward handled");
    expect(arrival.cashoutId).toBeNull();
    expect(arrival.note).toContain("kept: The UPI id grace@oksbi has not been confirmed");
    expect(await db().select().from(cashouts).where(eq(cashouts.userId, grace.user.id))).toHaveLength(0);
    // Saving it again now asks for the code (it stays on, but to an id no code confirmed).
    const res = await putSettings(grace, { auto: { minXdc: "2" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "code_required", message: "Automatic cash-out to grace@oksbi needs the 6-digit code we e-mail you." });
  }, 90_000);
});
