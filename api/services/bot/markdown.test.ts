/**
 * Text people control stays text in the bot's comments (issue 36): whatever goes through inlineCode comes out of a
 * GFM parser as exactly one code span holding it (line breaks as spaces), with no link, autolink, HTML or mention
 * around it, however many backticks it holds; mention() pings only real logins.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mentionsIn, renderedMarkdown } from "../../../testing/markdown.ts";
import { inlineCode, mention, profileLink } from "./markdown.ts";

const PAYLOAD = "x`[**Claim_your_share_here**](https://evil.example/phish)`@evil.com";
const HOSTILE = [
  PAYLOAD,
  "`",
  "``",
  "a ``` b",
  "`` [x](https://evil.example) ``",
  "[Claim your share](https://evil.example/phish)",
  "![img](https://evil.example/p.png)",
  "<img src=x onerror=alert(1)>",
  "<a href='https://evil.example'>x</a>",
  "@alice please pay @org/team",
  "line one\nline two\n\n# heading\n- item",
  "crlf\r\n\r\n[x](https://evil.example)",
  "https://evil.example/phish www.evil.example",
  "**bold** _em_ ~~del~~ | table |",
  " leading and trailing ",
  "` starts with a backtick",
  "ends with a backtick `",
  "\\`escaped\\`",
  "nul\u0000and\u0085next\u2028line",
];

/** A sentence with the span in it, as the bot writes one. */
const sentence = (span: string) => `Co-authors not found on GitHub: ${span}, ${inlineCode("second")}.`;

describe("inlineCode", () => {
  for (const text of HOSTILE) {
    test(`stays one code span: ${JSON.stringify(text).slice(0, 50)}`, () => {
      const rendered = renderedMarkdown(sentence(inlineCode(text)));
      expect(rendered.links).toEqual([]);
      expect(rendered.html).toEqual([]);
      expect(rendered.codes).toEqual([text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " "), "second"]);
      expect(rendered.text.join("")).toBe("Co-authors not found on GitHub: , .");
      expect(mentionsIn(sentence(inlineCode(text)))).toEqual([]);
    });
  }

  test("any text at all: one code span with that text, nothing else (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("`", "[", "]", "(", ")", "*", "_", "<", ">", "@", "!", "\\", " ", "\n", "a", "h", "t", "p", ":", "/", ".", "#", "|", "~") , maxLength: 60 }), (text) => {
        const span = inlineCode(text, 1000);
        const rendered = renderedMarkdown(`before ${span} after`);
        expect(rendered.links).toEqual([]);
        expect(rendered.html).toEqual([]);
        expect(rendered.codes).toHaveLength(1);
        const expected = text.replace(/\n/g, " ");
        expect(rendered.codes[0]).toBe(expected.trim() === "" ? (expected.length ? "\u00a0" : "(empty)") : expected);
        expect(rendered.text.join("")).toBe("before  after");
      }),
      { numRuns: 500 },
    );
  });

  test("is cut to its length", () => {
    expect(renderedMarkdown(inlineCode("x".repeat(500), 40)).codes).toEqual(["x".repeat(40)]);
  });
});

describe("mention", () => {
  test("a GitHub login (or an app's bot) is a mention; anything else is a code span that pings nobody", () => {
    expect(mention("bob")).toBe("@bob");
    expect(mention("dependabot[bot]")).toBe("@dependabot[bot]");
    for (const login of ["evil](https://evil.example)", "a b", "org/team", "x`y", "-bad", "bad-", "a--b", "@alice", "x\n@alice"]) {
      const rendered = renderedMarkdown(`Working on it: ${mention(login)}.`);
      expect(rendered.links).toEqual([]);
      expect(rendered.codes).toHaveLength(1);
      expect(mentionsIn(`Working on it: ${mention(login)}.`)).toEqual([]);
    }
  });

  test("a profile link only for a login a URL may carry", () => {
    expect(profileLink("https://issuepool.example", "bob")).toBe("[profile](https://issuepool.example/@bob)");
    expect(profileLink("https://issuepool.example", "x)(https://evil.example")).toBeUndefined();
  });
});
