/**
 * No secret in any log line (issue 41): a run of sign-in, key export, a send
 * above the code threshold and an on-ramp delivery, at the debug level, and
 * then every line the platform logged is searched for each secret it
 * handled: the session token, the one-time codes, the exported wallet key
 * (with and without its 0x), the on-ramp's signature, APP_SECRET and the
 * other configured secrets.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { decodeBase64, encodeBase64 } from "@oslojs/encoding";
import { call, type TestSession } from "../testing/auth.ts";
import { startMailSink, type MailSink } from "../testing/dev-tools.ts";
import { startTestStack, type TestStack } from "../testing/stack.ts";
import { toXdcAddress } from "./chain/address.ts";

let sink: MailSink;
let stack: TestStack;

beforeAll(async () => {
  sink = await startMailSink();
  stack = await startTestStack({ env: { SMTP_URL: sink.smtpUrl, SEND_OTP_THRESHOLD: "5", LOG_LEVEL: "debug" } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await sink?.stop();
});

async function codeFrom(session: TestSession, subject: string, since: number): Promise<string> {
  const mail = await sink.waitFor((m) => m.to.includes(session.user.email!) && m.subject === subject && Date.parse(m.receivedAt) >= since);
  return /\b(\d{6})\b/.exec(mail.text)![1]!;
}

test("sign-in, export, send and on-ramp: no secret they handled appears in any log line", async () => {
  const t = stack.t;
  const secrets: Record<string, string> = {};
  // Sign-in (the real OAuth flow through the emulator): the session token is the cookie's value.
  const alice = await stack.signUp("alice", "contributor");
  secrets.sessionToken = alice.cookie.slice(alice.cookie.indexOf("=") + 1);
  secrets.csrfToken = alice.csrfToken;
  await stack.chain.fund(alice.wallet, { xdc: "50" });

  // Export: the e-mailed code, then the key, encrypted to the browser's ephemeral key.
  let since = Date.now();
  expect((await call(t, "/api/wallet/export-request", { as: alice, body: {} })).status).toBe(200);
  secrets.exportCode = await codeFrom(alice, "Your Issuepool key export code", since);
  const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, ["deriveBits"]);
  const ephemeralPublicKey = encodeBase64(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey)));
  const exported = await call(t, "/api/wallet/export-data", { as: alice, body: { ephemeralPublicKey, otp: secrets.exportCode } });
  expect(exported.status).toBe(200);
  const body = (await exported.json()) as { cipherText: string; iv: string; serverPublicKey: string };
  const server = await crypto.subtle.importKey("raw", decodeBase64(body.serverPublicKey) as Uint8Array<ArrayBuffer>, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const shared = await crypto.subtle.deriveBits({ name: "ECDH", public: server }, pair.privateKey, 256);
  const aes = await crypto.subtle.importKey("raw", await crypto.subtle.digest("SHA-256", shared), "AES-GCM", false, ["decrypt"]);
  const walletKey = new TextDecoder().decode(
    await crypto.subtle.decrypt({ name: "AES-GCM", iv: decodeBase64(body.iv) as Uint8Array<ArrayBuffer> }, aes, decodeBase64(body.cipherText) as Uint8Array<ArrayBuffer>),
  );
  expect(walletKey).toMatch(/^0x[0-9a-f]{64}$/);
  secrets.walletKey = walletKey;
  secrets.walletKeyHex = walletKey.slice(2);

  // A send above the threshold: its own e-mailed code.
  const details = { token: "XDC", to: "0x000000000000000000000000000000000000bEEF", amount: "6" };
  since = Date.now();
  expect((await call(t, "/api/wallet/send-code", { as: alice, body: details })).status).toBe(200);
  secrets.sendCode = await codeFrom(alice, "Confirm your Issuepool transfer", since);
  const sent = await call(t, "/api/wallet/send", { as: alice, body: { ...details, otp: secrets.sendCode }, headers: { "Idempotency-Key": `secrets-${Date.now()}` } });
  expect(sent.status).toBe(200);

  // The on-ramp: an order started, and the provider's signed delivery.
  const started = await call(t, "/api/wallet/buy-xdc-url", { as: alice });
  expect(started.status).toBe(200);
  const reference = new URL(((await started.json()) as { url: string }).url).searchParams.get("merchantRecognitionId")!;
  const raw = JSON.stringify({
    orderId: 7001,
    merchantRecognitionId: reference,
    eventType: "onramp",
    status: 4,
    walletAddress: toXdcAddress(alice.wallet),
    coinCode: "xdc",
    network: "xdc",
    fiatType: 1,
    fiatAmount: 1000,
    actualCryptoAmount: "25.5",
    transactionHash: `0x${"cd".repeat(32)}`,
  });
  secrets.onrampSignature = createHmac("sha512", t.env.ONRAMP_APP_SECRET).update(raw).digest("hex");
  const delivered = await t.app.request("/api/webhooks/onramp", { method: "POST", headers: { "content-type": "application/json", "x-onramp-signature": secrets.onrampSignature }, body: raw });
  expect(delivered.status).toBe(200);

  // The configured secrets.
  secrets.APP_SECRET = t.env.APP_SECRET;
  for (const [i, entry] of t.env.ENCRYPTION_KEYS.split(",").entries()) secrets[`ENCRYPTION_KEY_${i}`] = entry.slice(entry.indexOf(":") + 1);
  secrets.OPERATOR_PRIVATE_KEY = t.env.OPERATOR_PRIVATE_KEY.slice(2);
  secrets.GITHUB_CLIENT_SECRET = t.env.GITHUB_CLIENT_SECRET;
  secrets.GITHUB_WEBHOOK_SECRET = t.env.GITHUB_WEBHOOK_SECRET;
  secrets.ONRAMP_APP_SECRET = t.env.ONRAMP_APP_SECRET;

  const lines = t.log.lines;
  // The run was logged (requests among them), so the search below searched something.
  expect(lines.filter((l) => l.includes('"path":"/api/wallet/export-data"')).length).toBeGreaterThan(0);
  expect(lines.length).toBeGreaterThan(8);
  const found = Object.entries(secrets).flatMap(([name, value]) => {
    const pattern = /^\d{6}$/.test(value) ? new RegExp(`\\b${value}\\b`) : new RegExp(value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "i");
    return lines.filter((l) => pattern.test(l)).map((l) => `${name}: ${l.slice(0, 300)}`);
  });
  expect(found).toEqual([]);
}, 120_000);
