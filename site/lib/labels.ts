/**
 * GitHub label colours on the site: the label's own background, and black or
 * white text, whichever contrasts more (WCAG relative luminance), so coloured
 * labels stay readable in both themes.
 */
export function labelStyle(color: string): string {
  const hex = /^[0-9a-f]{6}$/i.test(color) ? color : "6b7280";
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const lin = (v: number) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  const contrastWithBlack = (luminance + 0.05) / 0.05;
  const contrastWithWhite = 1.05 / (luminance + 0.05);
  // Pure black, not the theme's near-black: for mid-tone labels (GitHub's bug red) only pure black or white reach 4.5:1.
  return `background-color:#${hex};color:${contrastWithBlack >= contrastWithWhite ? "#000000" : "#ffffff"}`;
}
