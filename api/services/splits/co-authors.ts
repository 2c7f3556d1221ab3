/**
 * Who co-authored a pull request, from its commits' `Co-authored-by:`
 * trailers (issue 29, item 4), and which GitHub account each address is.
 *
 * Read as git reads trailers: only the message's last paragraph, one
 * `Co-authored-by: Name <address>` a line, the key in any case. A trailer
 * anywhere else (quoted in the body, in a code block) is text, not a claim;
 * an address that is not well formed (isTrailerAddress) is no co-author.
 * An address becomes a login in this order:
 *   1. `ID+login@users.noreply.github.com`: GitHub's private address; the
 *      account whose id is ID (a login renamed since is followed by its id),
 *   2. `login@users.noreply.github.com`: the older form,
 *   3. any other address: GitHub's user search on public e-mail addresses,
 *      taken only when exactly one person matches.
 * Bots (`…[bot]`), organisations and addresses nobody owns are left out:
 * the pool manager can still name anyone in the split during the release
 * window. Nothing here touches the network: the GitHub questions are the
 * caller's `lookup`, so the rules are table-tested.
 */

export interface CoAuthorTrailer {
  name: string;
  email: string;
}

/** A person the platform can pay (or hold a share for). */
export interface GitHubPerson {
  id: number;
  login: string;
}

/** How the caller answers GitHub questions (api/services/splits/pull-people.ts asks the installation). */
export interface GitHubLookup {
  /** The account with this login (null: none, or not a person). */
  userByLogin(login: string): Promise<(GitHubPerson & { type?: string }) | null>;
  /** The people whose public e-mail address is this one. */
  usersByEmail(email: string): Promise<(GitHubPerson & { type?: string })[]>;
}

/** Enough for any honest pull request; beyond it a commit message is noise, not co-authors to pay. */
export const MAX_CO_AUTHORS = 10;
/** Addresses asked about per pull request at most: a thousand trailers must not become a thousand GitHub calls. */
export const MAX_TRAILERS_ASKED = 2 * MAX_CO_AUTHORS;
const MAX_EMAIL_LENGTH = 254;
/** GitHub's login rule: letters, digits and single inner hyphens, at most 39 characters. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
const TRAILER = /^co-authored-by[ \t]*:[ \t]*([^<>]*?)[ \t]*<([^<>\s]+)>[ \t]*$/i;
/**
 * The addresses a trailer may name: a subset of RFC 5322's addr-spec that every real address fits. The local part
 * is dot-atoms of letters, digits and `!#$%&'+/=?^_-` (no backtick, `*`, `{|}` or `~`: atext, but markdown, and
 * no honest address needs them), at most 64 characters; the domain is host names (letters, digits, inner hyphens)
 * with a top-level domain of letters. No quoted local parts, comments, IP literals, spaces, brackets or `<`.
 * Anything else is not a co-author (issue 36: an "address" holding a markdown link became one in the bot's comment).
 */
const LOCAL_ATOM = "[A-Za-z0-9!#$%&'+/=?^_-]+";
const DOMAIN_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
const ADDRESS = new RegExp(`^(?=[^@]{1,64}@)${LOCAL_ATOM}(?:\\.${LOCAL_ATOM})*@(?:${DOMAIN_LABEL}\\.)+[A-Za-z]{2,63}$`);

/** Whether `email` is an address a co-author trailer may name (ADDRESS above, at most 254 characters). */
export const isTrailerAddress = (email: string) => email.length <= MAX_EMAIL_LENGTH && ADDRESS.test(email);
const NOREPLY_DOMAIN = "users.noreply.github.com";

export const isGitHubLogin = (login: string) => LOGIN.test(login);

/** The `Co-authored-by:` trailers of one commit message, in order, each address once. */
export function coAuthorTrailers(message: string): CoAuthorTrailer[] {
  const paragraphs = message.replace(/\r\n?/g, "\n").trim().split(/\n[ \t]*\n/);
  // The first paragraph is the subject: git never reads trailers there.
  if (paragraphs.length < 2) return [];
  const last = paragraphs[paragraphs.length - 1]!;
  const seen = new Set<string>();
  const found: CoAuthorTrailer[] = [];
  for (const raw of last.split("\n")) {
    const match = TRAILER.exec(raw.trim());
    if (!match) continue;
    const email = match[2]!.toLowerCase();
    if (!isTrailerAddress(email) || seen.has(email)) continue;
    seen.add(email);
    found.push({ name: match[1]!.slice(0, 100), email });
  }
  return found;
}

/** The login (and id) a GitHub no-reply address names, if it is one. */
export function noreplyAccount(email: string): { login: string; id?: number } | undefined {
  const at = email.lastIndexOf("@");
  if (at < 0 || email.slice(at + 1).toLowerCase() !== NOREPLY_DOMAIN) return undefined;
  const local = email.slice(0, at);
  const withId = /^([0-9]{1,12})\+(.+)$/.exec(local);
  const login = withId ? withId[2]! : local;
  if (!isGitHubLogin(login)) return undefined;
  return withId ? { login, id: Number(withId[1]) } : { login };
}

const isPerson = (account: { login: string; type?: string } | null | undefined): boolean =>
  Boolean(account) && (account!.type === undefined || account!.type === "User") && !account!.login.endsWith("[bot]");

/** The account an address belongs to, or null when it names nobody the platform can pay. */
export async function resolveAddress(email: string, lookup: GitHubLookup): Promise<GitHubPerson | null> {
  const noreply = noreplyAccount(email);
  if (noreply) {
    const account = await lookup.userByLogin(noreply.login);
    if (!isPerson(account)) return null;
    // ID+login: the id is what GitHub keeps; a login that now belongs to someone else is not this person.
    if (noreply.id !== undefined && account!.id !== noreply.id) return null;
    return { id: account!.id, login: account!.login };
  }
  if (email.endsWith(`@${NOREPLY_DOMAIN}`)) return null; // a no-reply address that names no valid login
  const matches = (await lookup.usersByEmail(email)).filter(isPerson);
  return matches.length === 1 ? { id: matches[0]!.id, login: matches[0]!.login } : null;
}

export interface PullPeople {
  /** The pull request's author first, then each co-author once, in the order their trailers appear. */
  people: GitHubPerson[];
  /** Trailers whose address names nobody the platform can pay (shown, so the pool manager can decide). */
  unresolved: CoAuthorTrailer[];
}

/**
 * The people a merged pull request pays by default: its author and the
 * co-authors named in its commits' trailers. The author is never counted
 * twice (a trailer naming them is dropped); at most MAX_CO_AUTHORS others.
 */
export async function pullPeople(author: GitHubPerson, commitMessages: string[], lookup: GitHubLookup): Promise<PullPeople> {
  const trailers: CoAuthorTrailer[] = [];
  const emails = new Set<string>();
  for (const message of commitMessages) {
    for (const t of coAuthorTrailers(message)) {
      if (emails.has(t.email)) continue;
      emails.add(t.email);
      trailers.push(t);
    }
  }
  const people: GitHubPerson[] = [author];
  const unresolved: CoAuthorTrailer[] = [];
  for (const trailer of trailers.slice(0, MAX_TRAILERS_ASKED)) {
    if (people.length > MAX_CO_AUTHORS) break;
    const person = await resolveAddress(trailer.email, lookup);
    if (!person) unresolved.push(trailer);
    else if (!people.some((p) => p.id === person.id)) people.push(person);
  }
  return { people, unresolved };
}
