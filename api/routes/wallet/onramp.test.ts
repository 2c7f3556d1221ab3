import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestContext, type TestContext } from "../../../testing/context.ts";
import { call, createTestUser, databaseDigest, signInAs, type TestSession } from "../../../testing/auth.ts";
import { onrampTransactions, wallets } from "../../../db/schema/index.ts";
import { toXdcAddress } from "../../chain/address.ts";

let t: TestContext;
let alice: TestSession;
let bob: TestSession;

beforeAll(async () => {
  t = await createTestContext({ env: { ONRAMP_URL: "https://onramp.example/", ONRAMP_APP_ID: "issuepool-test" } });
  alice = await signInAs(t, await createTestUser(t, { role: "contributor" }));
  bob = await signInAs(t, await createTestUser(t, { role: "contributor" }));
});
afterAll(() => t?.close());

describe("buying XDC with INR", () => {
  test("the provider's hosted page, with an initiated order behind it", async () => {
    const res = await call(t, "/api/wallet/buy-xdc-url", { as: alice });
    expect(res.status).toBe(200);
    const url = new URL((await res.json()).url);
    expect(url.origin + url.pathname).toBe("https://onramp.example/main/buy/");
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, alice.user.id));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      appId: "issuepool-test",
      walletAddress: toXdcAddress(wallet!.address),
      coinCode: "xdc",
      network: "xdc",
      fiatType: "1",
      redirectUrl: `${t.env.PUBLIC_URL}/wallet`,
    });
    const reference = url.searchParams.get("merchantRecognitionId")!;
    expect(reference).toMatch(/^ipr_[a-z2-7]{32}$/);
    const [order] = await t.ctx.database.db.select().from(onrampTransactions).where(eq(onrampTransactions.merchantReference, reference));
    expect(order).toMatchObject({ userId: alice.user.id, type: "onramp", status: "initiated", walletAddress: wallet!.address, fiatCurrency: "INR" });

    const { transactions } = await (await call(t, "/api/wallet/onramp-transactions?limit=10", { as: alice })).json();
    expect(transactions.find((tx: { id: string }) => tx.id === order!.id)).toMatchObject({ id: order!.id, status: "initiated", amount: null, orderId: null, metadata: { transactionType: "onramp" } });
    const someoneElse = await signInAs(t, await createTestUser(t, { role: "contributor" }));
    expect((await (await call(t, "/api/wallet/onramp-transactions", { as: someoneElse })).json()).transactions).toEqual([]);
  });

  test("the editor's wallet page gets the user back there", async () => {
    const res = await call(t, "/api/wallet/buy-xdc-url?returnTo=/vscode/wallet", { as: alice });
    expect(new URL((await res.json()).url).searchParams.get("redirectUrl")).toBe(`${t.env.PUBLIC_URL}/vscode/wallet`);
    expect((await call(t, "/api/wallet/buy-xdc-url?returnTo=https://evil.example/", { as: alice })).status).toBe(400);
  });

  test("another site cannot make the browser start an order", async () => {
    const before = await databaseDigest(t);
    const res = await call(t, "/api/wallet/buy-xdc-url", { as: alice, headers: { "Sec-Fetch-Site": "cross-site" } });
    expect(res.status).toBe(403);
    expect(await databaseDigest(t)).toBe(before);
  });

  test("signed out: 401; no wallet: the spec's sentence", async () => {
    expect((await call(t, "/api/wallet/buy-xdc-url")).status).toBe(401);
    expect((await call(t, "/api/wallet/onramp-transactions")).status).toBe(401);
    const carol = await signInAs(t, await createTestUser(t, { registered: false }));
    const res = await call(t, "/api/wallet/buy-xdc-url", { as: carol });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toBe("No wallet is connected. Please check your profile settings.");
  });

  test("the list holds the latest 10 by default", async () => {
    for (let i = 0; i < 12; i++) await call(t, "/api/wallet/buy-xdc-url", { as: bob });
    expect((await (await call(t, "/api/wallet/onramp-transactions", { as: bob })).json()).transactions).toHaveLength(10);
    expect((await (await call(t, "/api/wallet/onramp-transactions?limit=3", { as: bob })).json()).transactions).toHaveLength(3);
    expect((await call(t, "/api/wallet/onramp-transactions?limit=0", { as: bob })).status).toBe(400);
    expect((await call(t, "/api/wallet/onramp-transactions?limit=abc", { as: bob })).status).toBe(400);
  });

  test("the token catalogue", async () => {
    const body = await (await call(t, "/api/wallet/tokens", { as: alice })).json();
    expect(body.tokens.map((token: { symbol: string }) => token.symbol)).toEqual(["XDC", "ROXN", "USDC"]);
    expect(body.tokens[0]).toMatchObject({ contractAddress: null, decimals: 18, explorerUrl: null });
    expect(body.tokens[2]).toMatchObject({ decimals: 6, contractAddress: toXdcAddress(t.ctx.chain.config.contracts.usdc) });
    expect(body.walletExplorerUrl).toBeNull();
  });
});
