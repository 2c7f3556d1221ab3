import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { buildSite } from "../../testing/dev-tools.ts";
import { createMemoryLogger } from "../logger.ts";
import { startServer, type RunningServer } from "../server.ts";
import { openDatabase, migrateDatabase } from "../../db/client.ts";
import { insertTestRepositories } from "../../testing/fixtures.ts";
import { makeTempDir, NO_CHAIN, NO_EXTERNALS, testEnv } from "../../testing/context.ts";
import { sharedTestSecrets } from "../../testing/dev-tools.ts";

const ROOT = join(import.meta.dir, "..", "..");
let running: RunningServer;
let base: string;

beforeAll(async () => {
  await buildSite({ quiet: true });
  const env = await testEnv({ PORT: 0, SUPPORT_EMAIL: "help@issuepool.test", SITE_DIST_DIR: join(ROOT, "dist") });
  const database = await openDatabase(env.DATABASE_URL);
  await migrateDatabase(database);
  await insertTestRepositories(database.db, { githubUrl: "http://github.test" });
  running = await startServer(env, { log: createMemoryLogger(), database });
  base = `http://127.0.0.1:${running.server.port}`;
}, 120_000);
afterAll(() => running?.stop());

describe("the site inside the API process", () => {
  test("/ redirects to /repos", async () => {
    const res = await fetch(`${base}/`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/repos");
  });

  test("/repos is rendered on the server with its data in the HTML", async () => {
    const res = await fetch(`${base}/repos`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Explore Bounties");
    expect(html).toContain("issuepool-demo/xdc-wallet-kit");
    expect(html).toContain("1,250.0000 XDC");
    expect(html).toMatch(/3 of 4 repositories have funds/);
    expect(html).not.toContain("carol/private-notes");
    expect(res.headers.get("x-page-cache")).toBeNull();
  });

  test("a repeated /repos is served from the page cache with an ETag; 304 when unchanged", async () => {
    const first = await fetch(`${base}/repos?cache-probe=1`);
    const etag = first.headers.get("etag");
    expect(etag).toBeTruthy();
    expect(first.headers.get("cache-control")).toBe("public, max-age=120");
    const again = await fetch(`${base}/repos?cache-probe=1`, { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
  });

  test("a cached page answered before the app carries the same security headers as the first render", async () => {
    const first = await fetch(`${base}/repos?headers-probe=1`);
    const again = await fetch(`${base}/repos?headers-probe=1`, { headers: { "X-Request-Id": "page-hit" } });
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(await first.text());
    for (const name of ["content-type", "cache-control", "etag", "link", "x-frame-options", "content-security-policy", "referrer-policy", "x-content-type-options"]) {
      expect(again.headers.get(name)).toBe(first.headers.get(name));
    }
    expect(again.headers.get("x-frame-options")).toBe("DENY");
    expect(again.headers.get("x-request-id")).toBe("page-hit");
  });

  test("a first visit fetches the page's stylesheets at once, and parses the page's content before its closed dialogs", async () => {
    // scripts/bench/phone-paint.ts: on a slow phone the browser otherwise finds the stylesheet only after committing
    // the page and parsing its head, and the heading waited behind ~9 KB of the phone menu and the welcome dialog.
    for (const path of ["/faq", "/repos?link-probe=1", "/repos?link-probe=1", "/issuepool-demo/xdc-wallet-kit", "/explore"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      const head = html.slice(0, html.indexOf("</head>"));
      const sheets = [...head.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]);
      expect(sheets.length).toBeGreaterThan(0);
      expect(res.headers.get("link"), path).toBe(sheets.map((href) => `<${href}>; rel=preload; as=style`).join(", "));
      const mainEnd = html.indexOf("</main>");
      expect(html.indexOf("<h1"), path).toBeLessThan(mainEnd);
      for (const dialog of ['id="mobile-nav"', "data-welcome-dialog"]) expect(html.indexOf(dialog), `${path} ${dialog}`).toBeGreaterThan(mainEnd);
    }
  });

  test("pages are gzipped for clients that accept it", async () => {
    const res = await fetch(`${base}/faq`, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(res.headers.get("content-encoding")).toBe("gzip");
  });

  test("the prerendered FAQ carries the configured support e-mail and every section", async () => {
    const html = await (await fetch(`${base}/faq`)).text();
    expect(html).toContain("mailto:help@issuepool.test");
    expect(html.includes("__IP_RUNTIME")).toBe(false);
    for (const title of [
      "General Platform Questions", "Blockchain &amp; Tokens", "Account &amp; Wallet", "Repository Management",
      "Issue Rewards", "Technical Questions", "Troubleshooting", "Pool Manager Guide", "Future Plans",
    ]) expect(html).toContain(title);
    expect(html).toContain('id="pool-manager"');
    expect(html).toContain("Chat with Support");
    expect(html).toContain("Local Environment: development chain");
  });

  test("an unknown page is the 404 page with HTTP 404", async () => {
    const res = await fetch(`${base}/definitely/not/a/page`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("404 Page Not Found");
  });

  test("hashed assets are served with a long-lived cache", async () => {
    const html = await (await fetch(`${base}/faq`)).text();
    const asset = /\/_astro\/[^"']+\.css/.exec(html)?.[0];
    expect(asset).toBeTruthy();
    const res = await fetch(base + asset);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    // Document headers stay on documents: about ten of these load with a page (issue 27: page weight).
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    for (const name of ["x-frame-options", "referrer-policy", "content-security-policy"]) expect(res.headers.get(name)).toBeNull();
  });

  test("HEAD works for pages and files", async () => {
    const page = await fetch(`${base}/repos`, { method: "HEAD" });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe("");
    const file = await fetch(`${base}/faq`, { method: "HEAD" });
    expect(file.status).toBe(200);
  });
});

describe("the production entry", () => {
  test("serves, and stops cleanly on SIGTERM (exit 0)", async () => {
    const dir = await makeTempDir();
    const proc = Bun.spawn([process.execPath, join(ROOT, "api", "serve.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...(await sharedTestSecrets()), ...NO_CHAIN, ...NO_EXTERNALS, PORT: "0", DATA_DIR: dir, SITE_DIST_DIR: join(ROOT, "dist"), LOG_FORMAT: "json" },
      stdout: "pipe",
      stderr: "inherit",
    });
    const reader = proc.stdout.getReader();
    let output = "";
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
      url = /"url":"([^"]+)"/.exec(output)?.[1];
    }
    expect(url).toBeTruthy();
    expect((await fetch(`${url}/faq`)).status).toBe(200);
    // no chain in this test: health answers, and says so
    const health = await fetch(`${url}/api/health`);
    expect(health.status).toBe(503);
    expect((await health.json()).chain.ok).toBe(false);
    proc.kill("SIGTERM");
    const code = await proc.exited;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output += new TextDecoder().decode(value);
    }
    expect(code).toBe(0);
    expect(output).toContain('"msg":"stopped"');
  });
});

describe("the built site", () => {
  // bun test runs with NODE_ENV=test, and a site built from a test (this file's beforeAll, after a source change)
  // shipped React's development build: 131 KB gzip instead of ~60, over every page's JavaScript budget.
  test("ships React's production build, whoever built it", async () => {
    const dir = join(ROOT, "dist", "client", "_astro");
    const react = [...new Bun.Glob("react.*.js").scanSync(dir)];
    expect(react).toHaveLength(1);
    const source = await Bun.file(join(dir, react[0]!)).text();
    // A warning only React's development build carries.
    expect(source.includes("is deprecated in plain JavaScript React classes"), `${react[0]} is React's development build`).toBe(false);
    expect(Bun.gzipSync(new TextEncoder().encode(source)).length).toBeLessThan(80_000);
  });
});
