import { isGitHubLogin } from "../splits/co-authors.ts";

/**
 * Text people control, written into the bot's GitHub comments (issue 36): a login, a co-author's name or
 * address from a commit trailer, a word of a command, an amount as typed. Markdown is a language: such text
 * could close a code span, open a link (`[Claim your share](https://evil.example)`), mention and notify anyone
 * (`@org/team`), or start a new block with a line break. Backslash escapes are not enough on GitHub: its
 * autolinker and its @mentions work on the text after markdown is parsed, escapes gone. So what people wrote goes
 * in an inline code span, which GitHub renders as literal text: no link, no autolink, no mention, no HTML. The
 * span's fence is one backtick longer than the longest run of backticks inside (CommonMark 6.1: a span ends only
 * at a run of the same length), line breaks and other control characters become spaces (a blank line would end
 * the paragraph and the span with it), and the text is cut to `max` characters.
 */
export function inlineCode(text: string, max = 120): string {
  let value = [...text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")].slice(0, max).join("");
  if (value.trim() === "") value = value.length ? "\u00a0" : "(empty)";
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  // A space on each side when the text touches a backtick or a space (CommonMark strips one space each side).
  const pad = /^[` ]|[` ]$/.test(value) ? " " : "";
  return `${fence}${pad}${value}${pad}${fence}`;
}

/**
 * A GitHub login as a mention (`@login`, which notifies that person: meant for the people a comment is about or
 * answers), when it is one: GitHub's login rule, or an app's `name[bot]`. Anything else is text, in a code span.
 */
export function mention(login: string): string {
  const bot = /^(.+)\[bot\]$/.exec(login);
  return isGitHubLogin(bot ? bot[1]! : login) ? `@${login}` : inlineCode(`@${login}`);
}

/** A link to a person's public profile on the platform, or nothing when the login is not one a URL may carry. */
export function profileLink(publicUrl: string, login: string): string | undefined {
  return isGitHubLogin(login) ? `[profile](${publicUrl}/@${login})` : undefined;
}
