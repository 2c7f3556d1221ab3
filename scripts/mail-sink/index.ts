/**
 * A local SMTP server that keeps what it receives, for the embedded default
 * and tests: the platform sends real mail through nodemailer (SMTP_URL) and
 * it lands here instead of in someone's inbox. `routes()` is the page that
 * lists it (mounted at /dev/mail by scripts/dev.ts, development only) and a
 * JSON view of the same list for tests.
 *
 *   bun scripts/mail-sink/index.ts   (standalone: SMTP on 2525, the page on http://127.0.0.1:2526/)
 */
import { SMTPServer } from "smtp-server";
import PostalMime from "postal-mime";
import { Hono } from "hono";
import { html } from "hono/html";

export interface ReceivedMail {
  id: number;
  /** Envelope sender and recipients (what SMTP was told), lowercased. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string | null;
  /** Header fields by lower-case name (the last one when repeated): List-Unsubscribe and the like. */
  headers: Record<string, string>;
  receivedAt: string;
}

export interface MailSink {
  /** SMTP_URL for the platform. */
  smtpUrl: string;
  /** Newest first. */
  messages(filter?: { to?: string }): ReceivedMail[];
  /** Resolves with the first message (new or already received) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** The list page (GET /) and its JSON (GET /messages.json?to=). */
  routes(): Hono;
  stop(): Promise<void>;
}

export interface MailSinkOptions {
  /** 0 or unset: a free port. */
  port?: number;
  /** How many messages to keep (oldest dropped first). */
  keep?: number;
}

const MAX_MESSAGE_BYTES = 2 * 1024 * 1024;

export async function startMailSink(options: MailSinkOptions = {}): Promise<MailSink> {
  const keep = options.keep ?? 500;
  const received: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  let nextId = 1;

  const server = new SMTPServer({
    // Development only, on 127.0.0.1: no TLS (nodemailer would refuse a self-signed certificate) and no login.
    secure: false,
    disabledCommands: ["STARTTLS", "AUTH"],
    authOptional: true,
    logger: false,
    size: MAX_MESSAGE_BYTES,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", (err) => callback(err));
      stream.on("end", () => {
        PostalMime.parse(Buffer.concat(chunks)).then(
          (parsed) => {
            const envelope = session.envelope;
            received.unshift({
              id: nextId++,
              from: (envelope.mailFrom ? envelope.mailFrom.address : parsed.from?.address ?? "").toLowerCase(),
              to: envelope.rcptTo.map((r) => r.address.toLowerCase()),
              subject: parsed.subject ?? "",
              text: parsed.text ?? "",
              html: parsed.html ?? null,
              headers: Object.fromEntries(parsed.headers.map((h) => [h.key.toLowerCase(), h.value])),
              receivedAt: new Date().toISOString(),
            });
            received.length = Math.min(received.length, keep);
            for (const wake of waiters) wake();
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  server.on("error", () => {}); // a client dropping its connection is not our problem
  const port = (server.server.address() as { port: number }).port;

  const messages = (filter: { to?: string } = {}) => {
    const to = filter.to?.toLowerCase();
    return to ? received.filter((m) => m.to.includes(to)) : [...received];
  };

  return {
    smtpUrl: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor(match, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = received.find(match);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`mail sink: no matching message within ${timeoutMs} ms`));
        }, timeoutMs);
        if (!check()) waiters.add(wake);
      });
    },
    routes: () => mailRoutes(messages),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function mailRoutes(messages: MailSink["messages"]): Hono {
  return new Hono()
    .get("/messages.json", (c) => {
      c.header("Cache-Control", "no-store");
      return c.json({ messages: messages({ to: c.req.query("to") }) });
    })
    .get("/", (c) => {
      const to = c.req.query("to");
      const list = messages({ to });
      c.header("Cache-Control", "no-store");
      return c.html(html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Mail · Issuepool development</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
  header { background: #24292f; color: #fff; padding: .75rem 1rem; }
  main { max-width: 56rem; margin: 1.5rem auto; padding: 0 1rem; }
  article { background: #fff; border: 1px solid #d0d7de; border-radius: .5rem; padding: 1rem; margin-bottom: 1rem; }
  h2 { font-size: 1rem; margin: 0 0 .25rem; }
  .meta { color: #59636e; font-size: .85rem; }
  pre { white-space: pre-wrap; word-break: break-word; background: #f6f8fa; padding: .75rem; border-radius: .375rem; }
  form { display: flex; gap: .5rem; margin-bottom: 1rem; }
</style></head>
<body>
<header><strong>Mail received by the local SMTP sink</strong> · development only, nothing here left this machine</header>
<main>
<form method="get"><label>Recipient <input name="to" type="email" value="${to ?? ""}"></label><button type="submit">Filter</button>${to ? html` <a href="?">Show all</a>` : ""}</form>
${list.length === 0 ? html`<p>No mail yet.</p>` : ""}
${list.map(
  (m) => html`<article data-mail-id="${m.id}">
  <h2>${m.subject || "(no subject)"}</h2>
  <p class="meta">From ${m.from} to ${m.to.join(", ")} · ${m.receivedAt}</p>
  <pre>${m.text}</pre>
</article>`,
)}
</main>
</body>
</html>`);
    });
}

if (import.meta.main) {
  const sink = await startMailSink({ port: Number(process.env.SMTP_PORT ?? 2525) });
  const web = Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT ?? 2526), fetch: sink.routes().fetch });
  console.log(`Mail sink: SMTP ${sink.smtpUrl}, received mail at http://127.0.0.1:${web.port}/`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void sink.stop().then(() => process.exit(0)));
}
