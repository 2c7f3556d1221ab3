import { describe, expect, test } from "bun:test";
import { safeReturnTo } from "./return-to.ts";
import { safeClientReturnTo } from "../../../testing/dev-tools.ts";

const site = "http://localhost:3000";

describe("safeReturnTo", () => {
  test("keeps same-site paths, including ones that only look odd", () => {
    expect(safeReturnTo("/@evil.com", site)).toBe("/@evil.com"); // a path on this site
    expect(safeReturnTo("/x@evil.com/y", site)).toBe("/x@evil.com/y");
    expect(safeReturnTo("/a/./b/../c", site)).toBe("/a/c");
    expect(safeReturnTo("/repos?next=//evil.com", site)).toBe("/repos?next=//evil.com");
  });

  test("the page uses the same rule", () => {
    for (const value of ["/.//evil.com", "/\t/evil.com", "/profile"]) expect(safeClientReturnTo(value)).toBe(safeReturnTo(value, site));
  });

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
    // Dot segments that normalise to a protocol-relative path (issue 15, finding 1).
    ["dot segment", "/.//evil.com"],
    ["parent segment", "/..//evil.com"],
    ["segment then parent", "/x/..//evil.com"],
    ["encoded dot segment", "/%2e//evil.com"],
    ["encoded parent segment", "/%2E%2E//evil.com"],
    ["deep parent segments", "/a/b/../../..//evil.com"],
    // Encoded and raw slashes and backslashes.
    ["encoded slashes", "/%2F%2Fevil.com"],
    ["encoded backslashes", "/%5C%5Cevil.com"],
    ["backslash then slash", "/\\/evil.com"],
    // Characters browsers drop (finding 2: /auth's "Continue to App").
    ["tab", "/\t/evil.com"],
    ["newline", "/\n/evil.com"],
    ["carriage return", "/\r//evil.com"],
    ["DEL", "/\u007f/evil.com"],
    // Userinfo and schemes.
    ["userinfo", "//user@evil.com/"],
    ["scheme with slashes", "https:/evil.com"],
    ["data URL", "data:text/html,<script>alert(1)</script>"],
    ["leading space", " /repos"],
  ])("falls back to /repos for %s", (_label, value) => {
    expect(safeReturnTo(value as string | undefined, site)).toBe("/repos");
  });
});
