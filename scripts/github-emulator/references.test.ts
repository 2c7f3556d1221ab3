import { describe, expect, test } from "bun:test";
import { FIXTURE_REPOS } from "./fixture.ts";
import { closingReferences, mentionedIssues } from "./references.ts";

const refs = (body: string) => closingReferences(body, "o", "r", "http://127.0.0.1:9").map((r) => `${r.owner}/${r.name}#${r.number}`);

describe("closing references", () => {
  test("every keyword, any case, with or without a colon", () => {
    const keywords = ["close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved"];
    keywords.forEach((k, i) => expect(refs(`${k.toUpperCase()} #${i + 1}`)).toEqual([`o/r#${i + 1}`]));
    expect(refs("Fixes: #12")).toEqual(["o/r#12"]);
  });

  test("other repositories by owner/repo#N or issue URL; duplicates once", () => {
    expect(refs("closes other/repo#4, fixes http://127.0.0.1:9/x/y/issues/5, resolves #4 and fixes o/r#4")).toEqual(["other/repo#4", "x/y#5", "o/r#4"]);
  });

  test("not without a keyword, not glued to other words, not inside code", () => {
    expect(refs("See #1. prefixes #2. fixes#3. `fixes #4`\n```\ncloses #5\n```")).toEqual([]);
  });

  test("mentions include references without keywords", () => {
    expect(mentionedIssues("See #1 and other/repo#2; not a#3", "o", "r").map((r) => `${r.owner}/${r.name}#${r.number}`)).toEqual(["o/r#1", "other/repo#2"]);
  });

  test("the fixture's pull requests close what their `closes` field says", () => {
    for (const repo of FIXTURE_REPOS) {
      for (const issue of repo.issues.filter((i) => i.pull)) {
        expect(closingReferences(issue.body, repo.owner, repo.name).map((r) => r.number)).toEqual(issue.pull!.closes);
      }
    }
  });
});
