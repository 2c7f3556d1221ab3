import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { wallets } from "../../../db/schema/index.ts";
import { sealText } from "../../crypto/envelope.ts";
import { createTestUser } from "../../../testing/auth.ts";
import { createTestContext } from "../../../testing/context.ts";
import { upgradeWalletKeyContexts, walletContext, withWalletAccount } from "./custodial.ts";

const addressOf = (t: Awaited<ReturnType<typeof createTestContext>>, id: string) =>
  t.ctx.database.db
    .select()
    .from(wallets)
    .where(eq(wallets.id, id))
    .then(([row]) => withWalletAccount(t.ctx, row!, async (account) => account.address));

test("a wallet key is sealed for its owner: a row moved to another user no longer decrypts (issue 15, finding 6)", async () => {
  const t = await createTestContext();
  try {
    const owner = await createTestUser(t, { role: "contributor" });
    const other = await createTestUser(t, { registered: false });
    const [wallet] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.userId, owner.id));
    expect(wallet!.keyContextVersion).toBe(2);
    expect(String(await addressOf(t, wallet!.id))).toBe(wallet!.address);
    // Someone with write access to the table gives the row to another user: the key is useless to them.
    await t.ctx.database.db.update(wallets).set({ userId: other.id }).where(eq(wallets.id, wallet!.id));
    await expect(addressOf(t, wallet!.id)).rejects.toThrow(/could not be decrypted/);
  } finally {
    t.close();
  }
});

test("keys sealed the old way (wallet id and address only) are re-sealed for their owner at start, once, keeping the key", async () => {
  const t = await createTestContext();
  try {
    const owner = await createTestUser(t, { registered: false });
    const other = await createTestUser(t, { registered: false });
    const key = generatePrivateKey();
    const legacy = { id: crypto.randomUUID(), userId: owner.id, address: privateKeyToAccount(key).address, keyContextVersion: 1 };
    await t.ctx.database.db.insert(wallets).values({ ...legacy, privateKeySealed: await sealText(t.ctx.keyring, key, walletContext(legacy)) });
    expect(await upgradeWalletKeyContexts(t.ctx)).toBe(1);
    expect(await upgradeWalletKeyContexts(t.ctx)).toBe(0);
    const [upgraded] = await t.ctx.database.db.select().from(wallets).where(eq(wallets.id, legacy.id));
    expect(upgraded!.keyContextVersion).toBe(2);
    expect(String(await addressOf(t, legacy.id))).toBe(legacy.address);
    await t.ctx.database.db.update(wallets).set({ userId: other.id }).where(eq(wallets.id, legacy.id));
    await expect(addressOf(t, legacy.id)).rejects.toThrow(/could not be decrypted/);
  } finally {
    t.close();
  }
});
