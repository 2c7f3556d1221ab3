import { describe, expect, test } from "bun:test";
import { coAuthorTrailers, noreplyAccount, pullPeople, resolveAddress, type GitHubLookup } from "./co-authors.ts";

/** A GitHub that knows a few people (and an organisation, a bot, two people sharing an address). */
const ACCOUNTS = [
  { id: 1002, login: "bob", type: "User", email: "bob@example.com" },
  { id: 1003, login: "carol", type: "User", email: "carol@example.com" },
  { id: 1007, login: "grace", type: "User", email: "shared@example.com" },
  { id: 1008, login: "heidi", type: "User", email: "shared@example.com" },
  { id: 2001, login: "issuepool-demo", type: "Organization", email: "org@example.com" },
  { id: 49699333, login: "dependabot[bot]", type: "Bot", email: "bot@example.com" },
];
const asked: string[] = [];
const lookup: GitHubLookup = {
  async userByLogin(login) {
    asked.push(`login:${login}`);
    return ACCOUNTS.find((a) => a.login.toLowerCase() === login.toLowerCase()) ?? null;
  },
  async usersByEmail(email) {
    asked.push(`email:${email}`);
    return ACCOUNTS.filter((a) => a.email === email);
  },
};

describe("Co-authored-by trailers", () => {
  const cases: [string, string, string[]][] = [
    ["one trailer", "Fix the parser\n\nCo-authored-by: Carol <carol@example.com>", ["carol@example.com"]],
    ["several, any case, CRLF", "Fix\r\n\r\nco-authored-by: Carol <Carol@Example.com>\r\nCO-AUTHORED-BY: Bob <bob@example.com>", ["carol@example.com", "bob@example.com"]],
    ["the same address twice counts once", "Fix\n\nCo-authored-by: C <carol@example.com>\nCo-authored-by: C2 <CAROL@example.com>", ["carol@example.com"]],
    ["among other trailers", "Fix\n\nSigned-off-by: Bob <bob@example.com>\nCo-authored-by: Carol <carol@example.com>\nReviewed-by: x", ["carol@example.com"]],
    ["a subject alone is never a trailer", "Co-authored-by: Carol <carol@example.com>", []],
    ["not in the last paragraph: text, not a claim", "Fix\n\nCo-authored-by: Carol <carol@example.com>\n\nMore words after it.", []],
    ["no angle brackets", "Fix\n\nCo-authored-by: carol@example.com", []],
    ["two addresses on one line", "Fix\n\nCo-authored-by: A <a@example.com> <b@example.com>", []],
    ["an address without a domain", "Fix\n\nCo-authored-by: A <carol@localhost>", []],
    ["spaces inside the address", "Fix\n\nCo-authored-by: A <carol @example.com>", []],
    ["a misspelt key", "Fix\n\nCo-authored: Carol <carol@example.com>\nCoauthored-by: Carol <carol@example.com>", []],
    ["an absurdly long address", `Fix\n\nCo-authored-by: A <${"a".repeat(250)}@example.com>`, []],
    ["an empty name is fine", "Fix\n\nCo-authored-by: <carol@example.com>", ["carol@example.com"]],
    ["indented lines and trailing spaces", "Fix\n\n  Co-authored-by:   Carol   <carol@example.com>   ", ["carol@example.com"]],
    ["markup in the name is only a name", "Fix\n\nCo-authored-by: <script>alert(1)</script> <carol@example.com>", []],
    // Issue 36: only well-formed addresses (a subset of RFC 5322's addr-spec); markdown is never an address.
    ["a markdown link posing as an address", "Fix\n\nCo-authored-by: Eve <x`[**Claim_your_share_here**](https://evil.example/phish)`@evil.com>", []],
    ["a backtick in the address", "Fix\n\nCo-authored-by: Eve <e`ve@evil.example>", []],
    ["brackets in the address", "Fix\n\nCo-authored-by: Eve <[eve]@evil.example>\nCo-authored-by: Eve <eve@[127.0.0.1]>\nCo-authored-by: Eve <(eve)@evil.example>", []],
    ["markdown emphasis, pipes and tildes", "Fix\n\nCo-authored-by: Eve <**eve**@evil.example>\nCo-authored-by: Eve <e|ve@evil.example>\nCo-authored-by: Eve <~eve@evil.example>", []],
    ["a quoted local part", 'Fix\n\nCo-authored-by: Eve <"eve carol"@evil.example>', []],
    ["dots out of place", "Fix\n\nCo-authored-by: A <.carol@example.com>\nCo-authored-by: A <carol.@example.com>\nCo-authored-by: A <ca..rol@example.com>\nCo-authored-by: A <carol@example..com>", []],
    ["a domain without a top-level name of letters", "Fix\n\nCo-authored-by: A <carol@example.c0m>\nCo-authored-by: A <carol@-example.com>\nCo-authored-by: A <carol@1.2.3.4>", []],
    ["a local part over 64 characters", `Fix\n\nCo-authored-by: A <${"a".repeat(65)}@example.com>`, []],
    ["two @ in the address", "Fix\n\nCo-authored-by: A <carol@evil@example.com>", []],
    ["ordinary addresses still are", "Fix\n\nCo-authored-by: O'Brien <o'brien+git@mail.example.ie>\nCo-authored-by: A <a.b_c-d@sub.example.co.uk>\nCo-authored-by: C <1003+carol@users.noreply.github.com>", ["o'brien+git@mail.example.ie", "a.b_c-d@sub.example.co.uk", "1003+carol@users.noreply.github.com"]],
  ];
  for (const [name, message, emails] of cases) {
    test(name, () => expect(coAuthorTrailers(message).map((t) => t.email)).toEqual(emails));
  }
});

describe("GitHub no-reply addresses", () => {
  const cases: [string, ReturnType<typeof noreplyAccount>][] = [
    ["1003+carol@users.noreply.github.com", { login: "carol", id: 1003 }],
    ["carol@users.noreply.github.com", { login: "carol" }],
    ["1003+carol@USERS.NOREPLY.GITHUB.COM", { login: "carol", id: 1003 }],
    ["carol@example.com", undefined],
    ["-carol@users.noreply.github.com", undefined],
    ["car--ol@users.noreply.github.com", undefined],
    [`${"a".repeat(40)}@users.noreply.github.com`, undefined],
    ["1+2+carol@users.noreply.github.com", undefined],
    ["carol@users.noreply.github.com.evil.example", undefined],
    ["49699333+dependabot[bot]@users.noreply.github.com", undefined],
  ];
  for (const [email, expected] of cases) test(email, () => expect(noreplyAccount(email)).toEqual(expected));
});

describe("resolving an address to a person", () => {
  const cases: [string, string | null][] = [
    ["1003+carol@users.noreply.github.com", "carol"],
    ["carol@users.noreply.github.com", "carol"],
    ["carol@example.com", "carol"],
    // The id is what counts: the login now belongs to someone else.
    ["9999+carol@users.noreply.github.com", null],
    ["nobody@users.noreply.github.com", null],
    ["issuepool-demo@users.noreply.github.com", null],
    ["org@example.com", null],
    ["bot@example.com", null],
    ["49699333+dependabot[bot]@users.noreply.github.com", null],
    // Two people show that address: neither is taken.
    ["shared@example.com", null],
    ["unknown@example.com", null],
  ];
  for (const [email, login] of cases) test(`${email} -> ${login}`, async () => expect((await resolveAddress(email, lookup))?.login ?? null).toBe(login));
});

describe("the people of a pull request", () => {
  const bob = { id: 1002, login: "bob" };
  test("the author first, then each co-author once, across commits", async () => {
    const found = await pullPeople(bob, ["One\n\nCo-authored-by: Carol <carol@example.com>", "Two\n\nCo-authored-by: C <1003+carol@users.noreply.github.com>\nCo-authored-by: B <bob@example.com>"], lookup);
    expect(found.people.map((p) => p.login)).toEqual(["bob", "carol"]);
    expect(found.unresolved).toEqual([]);
  });
  test("addresses nobody owns are listed, not paid", async () => {
    const found = await pullPeople(bob, ["Fix\n\nCo-authored-by: Who <who@example.com>"], lookup);
    expect(found.people.map((p) => p.login)).toEqual(["bob"]);
    expect(found.unresolved).toEqual([{ name: "Who", email: "who@example.com" }]);
  });
  test("a thousand trailers cost twenty GitHub questions at most", async () => {
    asked.length = 0;
    const trailers = Array.from({ length: 1000 }, (_, i) => `Co-authored-by: U${i} <u${i}@example.com>`).join("\n");
    const found = await pullPeople(bob, [`Fix\n\n${trailers}`], lookup);
    expect(found.people).toHaveLength(1);
    expect(asked.length).toBe(20);
  });
  test("at most ten co-authors besides the author", async () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ id: 3000 + i, login: `u${i}`, type: "User", email: `u${i}@example.com` }));
    const wide: GitHubLookup = { userByLogin: async () => null, usersByEmail: async (email) => many.filter((m) => m.email === email) };
    const found = await pullPeople(bob, [`Fix\n\n${many.map((m) => `Co-authored-by: X <${m.email}>`).join("\n")}`], wide);
    expect(found.people.map((p) => p.login)).toEqual(["bob", ...many.slice(0, 10).map((m) => m.login)]);
  });
});
