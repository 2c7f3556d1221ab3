import { describe, expect, test } from "bun:test";
import { afterRegistration, VSCODE_LOOP_GUARD_MS, vscodeReturnTarget } from "./auth-flow.ts";

/** A Storage that keeps values in a map (the page's localStorage). */
function memoryStorage(): Storage {
  const values = new Map<string, string>();
  return {
    get length() {
      return values.size;
    },
    clear: () => values.clear(),
    getItem: (key) => values.get(key) ?? null,
    key: (i) => [...values.keys()][i] ?? null,
    removeItem: (key) => void values.delete(key),
    setItem: (key, value) => void values.set(key, value),
  };
}

describe("the VS Code return (spec section 4, Registration)", () => {
  test("back from VS Code without a session: a silent sign-in, unless one was tried under 10 s ago (the loop guard)", () => {
    const storage = memoryStorage();
    const start = 1_000_000;
    expect(vscodeReturnTarget(start, storage)).toBe("/api/auth/github?source=vscode&prompt=none");
    expect(vscodeReturnTarget(start + VSCODE_LOOP_GUARD_MS - 1, storage)).toBe("/vscode/wallet");
    expect(VSCODE_LOOP_GUARD_MS).toBe(10_000);
    expect(vscodeReturnTarget(start + VSCODE_LOOP_GUARD_MS, storage)).toBe("/api/auth/github?source=vscode&prompt=none");
  });

  test("a registration for VS Code ends on finalize-onboarding, which hands over to the editor", () => {
    const session = memoryStorage();
    (globalThis as { sessionStorage?: Storage }).sessionStorage = session;
    try {
      expect(afterRegistration("vscode", "/repos")).toBe("/api/auth/vscode/finalize-onboarding");
      expect(session.getItem("ip_auth_source")).toBe("vscode");
      expect(afterRegistration(null, "/wallet")).toBe("/wallet");
    } finally {
      delete (globalThis as { sessionStorage?: Storage }).sessionStorage;
    }
  });
});
