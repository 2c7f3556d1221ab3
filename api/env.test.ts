import { beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadEnv as load } from "./env.ts";
import { sharedTestSecrets } from "../testing/dev-tools.ts";
import { NO_CHAIN, NO_EXTERNALS } from "../testing/context.ts";

let secrets: Record<string, string>;
beforeAll(async () => {
  const { GITHUB_APP_PUBLIC_KEY: _public, ...rest } = await sharedTestSecrets();
  secrets = { ...rest, ...NO_CHAIN, ...NO_EXTERNALS };
});
/** loadEnv with valid secrets underneath, so each test varies only what it is about. */
const loadEnv = (overrides: Record<string, string | number | undefined>, source: Record<string, string | undefined>) =>
  load(overrides, { ...secrets, ...source });

describe("loadEnv", () => {
  test("defaults give the embedded setup on port 3000", () => {
    const env = loadEnv({}, {});
    expect(env.PORT).toBe(3000);
    expect(env.HOST).toBe("127.0.0.1");
    expect(env.DATABASE_URL).toBe("file:data/app.db");
    expect(env.PUBLIC_URL).toBe("http://localhost:3000");
    expect(env.CHAIN).toBe("local");
    expect(env.SUPPORT_CHAT_SCRIPT_URL).toBeUndefined();
  });

  test("PORT and HOST come from the environment; PUBLIC_URL follows PORT", () => {
    const env = loadEnv({}, { PORT: "4010", HOST: "0.0.0.0" });
    expect(env.PORT).toBe(4010);
    expect(env.HOST).toBe("0.0.0.0");
    expect(env.PUBLIC_URL).toBe("http://localhost:4010");
  });

  test("DATABASE_URL follows DATA_DIR unless given", () => {
    expect(loadEnv({}, { DATA_DIR: "/tmp/x/" }).DATABASE_URL).toBe("file:/tmp/x/app.db");
    expect(loadEnv({}, { DATA_DIR: "/tmp/x", DATABASE_URL: "libsql://db.example.com" }).DATABASE_URL).toBe("libsql://db.example.com");
  });

  test("a bad value fails with a message naming the variable and the value", () => {
    expect(() => loadEnv({}, { PORT: "eighty" })).toThrow(ConfigError);
    try {
      loadEnv({}, { PORT: "eighty", LOG_LEVEL: "loud" });
    } catch (err) {
      expect((err as Error).message).toContain("PORT");
      expect((err as Error).message).toContain('"eighty"');
      expect((err as Error).message).toContain("LOG_LEVEL");
    }
  });

  test("secrets are required, validated, and never echoed", () => {
    expect(() => load({}, {})).toThrow(/APP_SECRET/);
    try {
      loadEnv({}, { APP_SECRET: "c2hvcnQ=", ENCRYPTION_KEYS: "k1:dG9vc2hvcnQ=", GITHUB_APP_PRIVATE_KEY: "not a pem" });
      throw new Error("expected a ConfigError");
    } catch (err) {
      const message = (err as Error).message;
      expect(message).toContain("APP_SECRET");
      expect(message).toContain("ENCRYPTION_KEYS");
      expect(message).toContain("GITHUB_APP_PRIVATE_KEY");
      expect(message).not.toContain("c2hvcnQ=");
      expect(message).not.toContain("dG9vc2hvcnQ=");
      expect(message).not.toContain("not a pem");
    }
  });

  test("a PEM key with \\n escapes (one-line env) is accepted", () => {
    const oneLine = secrets.GITHUB_APP_PRIVATE_KEY!.replace(/\n/g, "\\n");
    expect(loadEnv({}, { GITHUB_APP_PRIVATE_KEY: oneLine }).GITHUB_APP_PRIVATE_KEY).toBe(secrets.GITHUB_APP_PRIVATE_KEY!);
  });

  test("every bad variable is reported at once", () => {
    try {
      loadEnv({}, { PUBLIC_URL: "not a url", SUPPORT_EMAIL: "nope" });
      throw new Error("expected a ConfigError");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain("PUBLIC_URL");
      expect((err as Error).message).toContain("SUPPORT_EMAIL");
    }
  });

  test("an empty optional URL means not configured", () => {
    expect(loadEnv({}, { SUPPORT_CHAT_SCRIPT_URL: "" }).SUPPORT_CHAT_SCRIPT_URL).toBeUndefined();
    expect(loadEnv({}, { SUPPORT_CHAT_SCRIPT_URL: "https://chat.example.com/w.js" }).SUPPORT_CHAT_SCRIPT_URL).toBe(
      "https://chat.example.com/w.js",
    );
  });

  test("overrides win over the environment", () => {
    expect(loadEnv({ PORT: 5000 }, { PORT: "4000" }).PORT).toBe(5000);
  });
});
