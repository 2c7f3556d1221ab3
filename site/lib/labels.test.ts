import { describe, expect, test } from "bun:test";
import { labelStyle } from "./labels.ts";

function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe("labelStyle", () => {
  test("dark text on light labels, white text on dark ones", () => {
    expect(labelStyle("fbca04")).toContain("color:#000000");
    expect(labelStyle("a2eeef")).toContain("color:#000000");
    expect(labelStyle("b60205")).toContain("color:#ffffff");
    expect(labelStyle("0075ca")).toContain("color:#ffffff");
  });
  test("mid-tone labels still reach 4.5:1 (the text colour used is the one the contrast was computed for)", () => {
    for (const color of ["d73a4a", "008672", "7057ff", "777777"]) {
      const text = /color:#(\w{6})$/.exec(labelStyle(color))![1]!;
      expect(contrast(color, text)).toBeGreaterThanOrEqual(4.5);
    }
  });
  test("a malformed colour falls back to grey instead of injecting CSS", () => {
    expect(labelStyle("red;background:url(x)")).toStartWith("background-color:#6b7280");
  });
});
