import { describe, expect, test } from "bun:test";
import { ConfigError, loadEnv } from "./env.ts";

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
