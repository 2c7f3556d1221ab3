import { describe, expect, test } from "bun:test";
import { safeReturnTo } from "./return-to.ts";

const site = "http://localhost:3000";

describe("safeReturnTo", () => {
  test("keeps same-site paths with query and hash", () => {
    expect(safeReturnTo("/repos/alice/x?tab=rewards#top", site)).toBe("/repos/alice/x?tab=rewards#top");
    expect(safeReturnTo("/profile", site)).toBe("/profile");
  });

  test.each([
    ["absent", undefined],
    ["empty", ""],
    ["another origin", "https://evil.example/steal"],
    ["protocol-relative", "//evil.example/x"],
    ["backslash trick", "/\\evil.example"],
    ["javascript", "javascript:alert(1)"],
    ["relative without slash", "repos"],
    ["control characters", "/x\n/y"],
    ["the sign-in endpoint itself", "/api/auth/github?returnTo=/x"],
    ["too long", "/" + "a".repeat(3000)],
  ])("falls back to /repos for %s", (_label, value) => {
    expect(safeReturnTo(value as string | undefined, site)).toBe("/repos");
  });
});
