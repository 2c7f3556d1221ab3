import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { erc20Abi, formatEther, formatUnits, getAddress, parseEther, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { startTestChain, type TestChain } from "../../../testing/chain.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { securityCases } from "../../../testing/security.ts";
import { wallets } from "../../../db/schema/index.ts";
import { startMailSink, type MailSink } from "../../../testing/dev-tools.ts";
import { toXdcAddress } from "../../chain/address.ts";

let chain: TestChain;
let sink: MailSink;
let t: TestContext;
let alice: TestSession;
let bob: TestSession;
let aliceWallet: Address;
let keyN = 0;
const key = () => `send-test-${Date.now()}-${keyN++}`;
const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

async function walletOf(session: TestSession): Promise<Address> {
  const [row] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, session.user.id));
  return row!.address as Address;
}

beforeAll(async () => {
  chain = await startTestChain();
  sink = await startMailSink();
  t = await createTestContext({ fileDatabase: true, env: { ...chain.env, SMTP_URL: sink.smtpUrl, SEND_OTP_THRESHOLD: "50" } });
  alice = await signInAs(t, await createTestUser(t, { role: "contributor", email: "alice.send@example.com" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor", email: "bob.send@example.com" }));
  aliceWallet = await walletOf(alice);
  await chain.fund(aliceWallet, { xdc: "500", roxn: "100", usdc: "100" });
}, 60_000);
afterAll(async () => {
  t?.close();
  await sink?.stop();
  await chain?.stop();
});

const send = (session: TestSession, body: Record<string, unknown>, idempotencyKey: string | null = key()) =>
  call(t, "/api/wallet/send", { as: session, body, headers: idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {} });
const quote = (session: TestSession, params: Record<string, string>) => call(t, `/api/wallet/send-quote?${new URLSearchParams(params)}`, { as: session });
const settle = (id: string) => t.ctx.outbox.waitForSettled(id, 10_000);
const xdcOf = async (address: Address) => formatEther(await t.ctx.chain.client.getBalance({ address }));
const tokenOf = async (token: Address, address: Address, decimals = 18) =>
  formatUnits(await t.ctx.chain.client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [address] }), decimals);
const ignoreForDigest = ["rate_limits", "__drizzle_migrations"];

/** A signed-in user whose wallet holds exactly these amounts: a test that reads balances starts from its own. */
async function newSender(amounts: { xdc?: string; roxn?: string; usdc?: string }): Promise<TestSession & { wallet: Address }> {
  const session = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  const wallet = await walletOf(session);
  await chain.fund(wallet, amounts);
  return { ...session, wallet };
}

describe("sending from the wallet", () => {
  test("bad addresses: a clear error each, and nothing is sent", async () => {
    const valid = stranger();
    const lower = valid.toLowerCase();
    // Flip the case of one letter of a checksummed address: still hex, wrong checksum.
    const letter = valid.slice(2).search(/[a-fA-F]/) + 2;
    const badChecksum = valid.slice(0, letter) + (valid[letter] === valid[letter]!.toUpperCase() ? valid[letter]!.toLowerCase() : valid[letter]!.toUpperCase()) + valid.slice(letter + 1);
    const cases: [unknown, string, string][] = [
      ["", "Invalid address", "Enter the recipient's address (xdc… or 0x…)."],
      ["hello", "Invalid address", "Enter a valid XDC address: xdc or 0x followed by 40 hexadecimal characters."],
      [lower.slice(0, 41), "Invalid address", "Enter a valid XDC address: xdc or 0x followed by 40 hexadecimal characters."],
      [`xdc${lower.slice(2)}zz`, "Invalid address", "Enter a valid XDC address: xdc or 0x followed by 40 hexadecimal characters."],
      [badChecksum, "Invalid address checksum", "The address's mixed upper and lower case does not match its checksum: check it for a typo."],
      [`xdc${badChecksum.slice(2)}`, "Invalid address checksum", "The address's mixed upper and lower case does not match its checksum: check it for a typo."],
      ["0x0000000000000000000000000000000000000000", "Invalid address", "Sending to the zero address would destroy the funds."],
      [toXdcAddress(aliceWallet), "Invalid address", "This is your own wallet: enter the address you want to send to."],
      [aliceWallet.toLowerCase(), "Invalid address", "This is your own wallet: enter the address you want to send to."],
    ];
    const before = await databaseDigest(t, ignoreForDigest);
    for (const [to, error, message] of cases) {
      const res = await send(alice, { token: "XDC", to, amount: "1" });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error, message });
      const quoted = await quote(alice, { token: "XDC", to: String(to), amount: "1" });
      expect(quoted.status).toBe(400);
      expect((await quoted.json()).error).toBe(error);
    }
    expect(await databaseDigest(t, ignoreForDigest)).toBe(before);
  });

  test("bad amounts: a clear error each, and nothing is sent", async () => {
    const to = stranger();
    const sender = await newSender({ xdc: "500", roxn: "100", usdc: "100" });
    const balance = await t.ctx.chain.client.getBalance({ address: sender.wallet });
    const cases: [string, unknown, string, string][] = [
      ["XDC", "0", "Invalid Amount", "Please enter a valid XDC amount."],
      ["XDC", "-1", "Invalid Amount", "Please enter a valid XDC amount."],
      ["XDC", "abc", "Invalid Amount", "Please enter a valid XDC amount."],
      ["XDC", "1e18", "Invalid Amount", "Please enter a valid XDC amount."],
      ["XDC", "", "Invalid Amount", "Please enter a valid XDC amount."],
      ["XDC", "0.0000000000000000001", "Invalid Amount", "XDC amounts have at most 18 decimal places."],
      ["USDC", "1.1234567", "Invalid Amount", "USDC amounts have at most 6 decimal places."],
      ["XDC", "100000", "Insufficient XDC Balance", `Your XDC balance is 500.0000 XDC.`],
      ["XDC", formatEther(balance - 10n ** 16n), "Insufficient funds for gas", "Leave at least 0.1 XDC for gas."],
      ["ROXN", "100.01", "Insufficient ROXN Balance", "Your ROXN balance is 100.00 ROXN."],
      ["USDC", "250", "Insufficient USDC Balance", "Your USDC balance is 100.00 USDC."],
      ["BTC", "1", "Invalid token", "Choose XDC, ROXN or USDC."],
    ];
    const before = await databaseDigest(t, ignoreForDigest);
    for (const [token, amount, error, message] of cases) {
      const res = await send(sender, { token, to, amount });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error, message });
    }
    expect(await databaseDigest(t, ignoreForDigest)).toBe(before);
    expect(await xdcOf(to)).toBe("0");
  });

  test("the confirmation step: fee and total, and whether a code is needed", async () => {
    const to = stranger();
    const small = await (await quote(alice, { token: "XDC", to: toXdcAddress(to), amount: "10" })).json();
    expect(small).toMatchObject({ token: "XDC", to: toXdcAddress(to), amount: "10", feeCurrency: "XDC", otpRequired: false, otpThreshold: "50" });
    expect(parseEther(small.fee)).toBeGreaterThan(0n);
    expect(small.total).toBe(formatEther(parseEther("10") + parseEther(small.fee)));
    const token = await (await quote(alice, { token: "ROXN", to, amount: "60" })).json();
    expect(token).toMatchObject({ token: "ROXN", amount: "60", total: null, otpRequired: true });
  });

  test("XDC arrives; a retry with the same key returns the first result and sends nothing more; the send is listed", async () => {
    const to = stranger();
    const k = key();
    const res = await send(alice, { token: "XDC", to: toXdcAddress(to).toLowerCase(), amount: "12.5" }, k);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ token: "XDC", amount: "12.5", to: toXdcAddress(to), explorerUrl: null });
    expect(body.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    await settle(body.id);
    expect(await xdcOf(to)).toBe("12.5");

    const again = await send(alice, { token: "XDC", to: toXdcAddress(to).toLowerCase(), amount: "12.5" }, k);
    expect(again.status).toBe(200);
    expect((await again.json()).transactionHash).toBe(body.transactionHash);
    expect(await xdcOf(to)).toBe("12.5");
    const different = await send(alice, { token: "XDC", to: toXdcAddress(to).toLowerCase(), amount: "13" }, k);
    expect(different.status).toBe(422);

    const { sends } = await (await call(t, "/api/wallet/sends", { as: alice })).json();
    expect(sends.find((s: { id: string }) => s.id === body.id)).toMatchObject({ id: body.id, token: "XDC", amount: "12.5", to: toXdcAddress(to), status: "confirmed", transactionHash: body.transactionHash });
    expect((await (await call(t, "/api/wallet/sends", { as: bob })).json()).sends).toEqual([]);
  });

  test("ROXN and USDC arrive", async () => {
    const to = stranger();
    const roxn = await (await send(alice, { token: "ROXN", to, amount: "5" })).json();
    const usdc = await (await send(alice, { token: "USDC", to, amount: "2.5" })).json();
    await settle(roxn.id);
    await settle(usdc.id);
    expect(await tokenOf(t.ctx.chain.config.contracts.roxn, to)).toBe("5");
    expect(await tokenOf(t.ctx.chain.config.contracts.usdc, to, 6)).toBe("2.5");
  });

  test("above the threshold: refused without the e-mailed code, and the code only fits the send it was asked for", async () => {
    const to = stranger();
    const details = { token: "XDC", to, amount: "60" };
    const noCode = await send(alice, details);
    expect(noCode.status).toBe(400);
    expect(await noCode.json()).toMatchObject({ error: "Confirmation code required", details: { otpRequired: true } });

    const since = Date.now();
    const asked = await call(t, "/api/wallet/send-code", { as: alice, body: details });
    expect(asked.status).toBe(200);
    const mail = await sink.waitFor((m) => m.to.includes("alice.send@example.com") && m.subject === "Confirm your Issuepool transfer" && Date.parse(m.receivedAt) >= since);
    expect(mail.text).toContain(`60 XDC from your Issuepool wallet to ${toXdcAddress(to)}`);
    const code = /\b(\d{6})\b/.exec(mail.text)![1]!;

    const otherAmount = await send(alice, { ...details, amount: "70", otp: code });
    expect(otherAmount.status).toBe(400);
    expect((await otherAmount.json()).error).toBe("Invalid code");
    const otherRecipient = await send(alice, { ...details, to: stranger(), otp: code });
    expect(otherRecipient.status).toBe(400);
    expect(await xdcOf(to)).toBe("0");

    const ok = await send(alice, { ...details, otp: code });
    expect(ok.status).toBe(200);
    await settle((await ok.json()).id);
    expect(await xdcOf(to)).toBe("60");
    const reused = await send(alice, { ...details, otp: code });
    expect(reused.status).toBe(400);
  });

  test("a code is only sent for sends that need one", async () => {
    const res = await call(t, "/api/wallet/send-code", { as: alice, body: { token: "XDC", to: stranger(), amount: "1" } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("No code needed");
  });

  test("concurrent sends from one wallet never eat into the gas reserve", async () => {
    const carol = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    await chain.fund(await walletOf(carol), { xdc: "100.05" });
    const to = stranger();
    const results = await Promise.all(Array.from({ length: 4 }, () => send(carol, { token: "XDC", to, amount: "40" })));
    const accepted = results.filter((r) => r.status === 200);
    expect(accepted).toHaveLength(2);
    for (const refused of results.filter((r) => r.status !== 200)) expect((await refused.json()).error).toBe("Insufficient funds for gas");
    for (const res of accepted) await settle((await res.json()).id);
    expect(await xdcOf(to)).toBe("80");
  });

  test("Max is the balance less the 0.1 XDC reserve and the fee: after sending it exactly 0.1 XDC stays (issue 16)", async () => {
    const sender = await newSender({ xdc: "10" });
    const to = toXdcAddress(stranger());
    const balance = await t.ctx.chain.client.getBalance({ address: sender.wallet });
    const max = await (await call(t, `/api/wallet/send-max?${new URLSearchParams({ token: "XDC", to })}`, { as: sender })).json();
    expect(parseEther(max.fee)).toBeGreaterThan(0n);
    expect(max.reserve).toBe("0.1");
    expect(parseEther(max.amount)).toBe(balance - parseEther("0.1") - parseEther(max.fee));
    // Without a recipient yet, the same figure (a plain transfer costs the same to any ordinary address).
    expect((await (await call(t, "/api/wallet/send-max?token=XDC", { as: sender })).json()).amount).toBe(max.amount);
    // The quote of that amount totals what the form promises to spend, no more.
    const quoted = await (await quote(sender, { token: "XDC", to, amount: max.amount })).json();
    expect(parseEther(quoted.total)).toBe(balance - parseEther("0.1"));
    // What Max used to fill (balance - 0.1) would take the fee out of the reserve: refused.
    const old = await quote(sender, { token: "XDC", to, amount: formatEther(balance - parseEther("0.1")) });
    expect(await old.json()).toMatchObject({ error: "Insufficient funds for gas", message: "Leave at least 0.1 XDC for gas." });
    const res = await send(sender, { token: "XDC", to, amount: max.amount });
    expect(res.status).toBe(200);
    expect((await settle((await res.json()).id)).status).toBe("confirmed");
    const left = await t.ctx.chain.client.getBalance({ address: sender.wallet });
    expect(left).toBeGreaterThanOrEqual(parseEther("0.1"));
    expect(left - parseEther("0.1")).toBeLessThan(parseEther("0.0001"));
    // Tokens: all of it (the fee is paid in XDC).
    const tokens = await newSender({ xdc: "1", roxn: "12.5" });
    expect(await (await call(t, "/api/wallet/send-max?token=ROXN", { as: tokens })).json()).toMatchObject({ token: "ROXN", amount: "12.5" });
  });

  test("an Idempotency-Key is optional, but a malformed one is refused", async () => {
    const res = await send(alice, { token: "XDC", to: stranger(), amount: "1" }, "short");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("Idempotency-Key required");
  });

  test("signed out: 401", async () => {
    expect((await call(t, `/api/wallet/send-quote?token=XDC&to=${stranger()}&amount=1`)).status).toBe(401);
    expect((await call(t, "/api/wallet/sends")).status).toBe(401);
    expect((await call(t, "/api/wallet/send-max?token=XDC")).status).toBe(401);
  });

  securityCases(() => ({ method: "POST", path: "/api/wallet/send", body: { token: "XDC", to: getAddress(stranger()), amount: "1" } }), {
    t: () => t,
    owner: () => alice,
    stranger: () => bob,
  });
  securityCases(() => ({ method: "POST", path: "/api/wallet/send-code", body: { token: "XDC", to: getAddress(stranger()), amount: "60" } }), {
    t: () => t,
    owner: () => alice,
    stranger: () => bob,
  });
});

