/**
 * The person's browser in the editor sign-in, over real HTTP against a
 * running platform (testing/stack.ts) and its GitHub emulator: it opens
 * the URL the extension handed to env.openExternal, continues with GitHub
 * from the VS Code card, picks `login` on the emulator's authorize page, and
 * lands on our "Signed in" page, whose button holds the editor URI. Cookies
 * are kept like a browser's (paths ignored: one site).
 */
export interface BrowserRun {
  /** The editor URI the "Signed in" page opens (vscode://issuepool.issuepool/auth?code&state). */
  handoffUri: string;
  /** Every http URL the browser asked for, in order. */
  visited: string[];
  /** Where it ended: our page, never GitHub's. */
  landedOn: string;
}

export async function signInInBrowser(authorizeUrl: string, login: string): Promise<BrowserRun> {
  const jar = new Map<string, string>();
  const visited: string[] = [];
  const origin = new URL(authorizeUrl).origin;
  const send = async (url: string, init: RequestInit = {}) => {
    visited.push(url);
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, { ...init, redirect: "manual", headers: { ...(cookie && url.startsWith(origin) ? { Cookie: cookie } : {}), ...(init.headers as Record<string, string>) } });
    for (const header of res.headers.getSetCookie()) {
      const [pair = ""] = header.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at);
      if (/Max-Age=0/i.test(header) || pair.slice(at + 1) === "") jar.delete(name);
      else jar.set(name, pair.slice(at + 1));
    }
    return res;
  };
  const follow = (res: Response, from: string) => new URL(res.headers.get("location")!, from).toString();

  // The editor opened the browser here (Sec-Fetch-Site none); signed out, it goes to the VS Code card.
  const opened = await send(authorizeUrl, { headers: { "Sec-Fetch-Site": "none" } });
  if (opened.status !== 302) throw new Error(`authorize answered ${opened.status}: ${await opened.text()}`);
  const card = follow(opened, authorizeUrl);
  if (!card.endsWith("/auth?source=vscode")) throw new Error(`expected the VS Code card, got ${card}`);
  // "Continue with GitHub" on the card (site/lib/auth-flow.ts githubSignInUrl with source=vscode).
  const start = await send(`${origin}/api/auth/github?returnTo=%2Frepos&source=vscode`, { headers: { "Sec-Fetch-Site": "same-origin" } });
  const authorizePage = new URL(follow(start, origin));
  const form = new URLSearchParams(authorizePage.searchParams);
  form.set("login", login);
  visited.push(authorizePage.toString());
  const granted = await fetch(`${authorizePage.origin}${authorizePage.pathname}`, { method: "POST", body: form, redirect: "manual" });
  const callback = follow(granted, authorizePage.toString());
  const done = await send(callback, { headers: { "Sec-Fetch-Site": "cross-site" } });
  const landedOn = follow(done, callback);
  visited.push(landedOn);
  const handoff = jar.get("ip_vscode_handoff");
  if (!handoff) throw new Error(`no hand-over: the callback went to ${landedOn}`);
  return { handoffUri: decodeURIComponent(handoff), visited, landedOn };
}
