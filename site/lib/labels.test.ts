import { describe, expect, test } from "bun:test";
import { labelStyle } from "./labels.ts";

describe("labelStyle", () => {
  test("dark text on light labels, white text on dark ones", () => {
    expect(labelStyle("fbca04")).toContain("color:#111827");
    expect(labelStyle("a2eeef")).toContain("color:#111827");
    expect(labelStyle("b60205")).toContain("color:#ffffff");
    expect(labelStyle("0075ca")).toContain("color:#ffffff");
  });
  test("a malformed colour falls back to grey instead of injecting CSS", () => {
    expect(labelStyle("red;background:url(x)")).toStartWith("background-color:#6b7280");
  });
});
