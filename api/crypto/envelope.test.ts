import { describe, expect, test } from "bun:test";
import { encodeBase64 } from "@oslojs/encoding";
import { createKeyring, KeyringError, parseKeyringSpec } from "./keyring.ts";
import { rewrap, seal, sealedKeyId, SealedSecretError, sealText, unseal, unsealText } from "./envelope.ts";

const key = (fill: number) => encodeBase64(new Uint8Array(32).fill(fill));

describe("keyring", () => {
  test("parses ids and 32-byte keys; the first is active", async () => {
    const ring = await createKeyring(`new:${key(2)},old:${key(1)}`);
    expect(ring.active.id).toBe("new");
    expect([...ring.byId.keys()]).toEqual(["new", "old"]);
  });

  test("refuses short keys, bad ids, duplicates and empty specs", () => {
    expect(() => parseKeyringSpec(`a:${encodeBase64(new Uint8Array(16))}`)).toThrow(KeyringError);
    expect(() => parseKeyringSpec(`bad id:${key(1)}`)).toThrow(KeyringError);
    expect(() => parseKeyringSpec(`a:${key(1)},a:${key(2)}`)).toThrow(KeyringError);
    expect(() => parseKeyringSpec("")).toThrow(KeyringError);
    expect(() => parseKeyringSpec("nokey")).toThrow(KeyringError);
  });
});

describe("envelope encryption", () => {
  test("round-trips; the sealed form does not contain the plaintext", async () => {
    const ring = await createKeyring(`k1:${key(7)}`);
    const secret = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    const sealed = await sealText(ring, secret, "wallet:abc:0xAbC");
    expect(sealed).not.toContain(secret.slice(2, 20));
    expect(sealed.startsWith("v1.k1.")).toBe(true);
    expect(await unsealText(ring, sealed, "wallet:abc:0xAbC")).toBe(secret);
  });

  test("each seal uses a fresh data key and iv", async () => {
    const ring = await createKeyring(`k1:${key(7)}`);
    const a = await sealText(ring, "same", "ctx");
    const b = await sealText(ring, "same", "ctx");
    expect(a).not.toBe(b);
  });

  test("a sealed value moved to another context, tampered, or under another key does not open", async () => {
    const ring = await createKeyring(`k1:${key(7)}`);
    const sealed = await seal(ring, new Uint8Array([1, 2, 3]), "wallet:1:0xA");
    await expect(unseal(ring, sealed, "wallet:2:0xA")).rejects.toThrow(SealedSecretError);
    const parts = sealed.split(".");
    parts[5] = parts[5]!.slice(0, -2) + (parts[5]!.endsWith("A") ? "BB" : "AA");
    await expect(unseal(ring, parts.join("."), "wallet:1:0xA")).rejects.toThrow(SealedSecretError);
    const other = await createKeyring(`k1:${key(8)}`);
    await expect(unseal(other, sealed, "wallet:1:0xA")).rejects.toThrow(SealedSecretError);
    const missing = await createKeyring(`k9:${key(7)}`);
    await expect(unseal(missing, sealed, "wallet:1:0xA")).rejects.toThrow(/not configured/);
  });

  test("rotation: old secrets open with the old key listed second; rewrap moves them to the new key", async () => {
    const before = await createKeyring(`k1:${key(7)}`);
    const sealed = await sealText(before, "token", "ctx");
    const after = await createKeyring(`k2:${key(9)},k1:${key(7)}`);
    expect(await unsealText(after, sealed, "ctx")).toBe("token");
    const rewrapped = await rewrap(after, sealed, "ctx");
    expect(sealedKeyId(rewrapped)).toBe("k2");
    expect(rewrapped.split(".").slice(4)).toEqual(sealed.split(".").slice(4));
    const onlyNew = await createKeyring(`k2:${key(9)}`);
    expect(await unsealText(onlyNew, rewrapped, "ctx")).toBe("token");
  });
});
