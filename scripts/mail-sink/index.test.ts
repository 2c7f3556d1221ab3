import { afterAll, beforeAll, expect, test } from "bun:test";
import { createMailer } from "../../api/mail/mailer.ts";
import { createMemoryLogger } from "../../api/logger.ts";
import { testEnv } from "../../testing/context.ts";
import { startMailSink, type MailSink } from "./index.ts";

let sink: MailSink;
beforeAll(async () => {
  sink = await startMailSink();
});
afterAll(() => sink?.stop());

test("mail sent through the platform's mailer lands in the sink, on its page and in its JSON", async () => {
  const mailer = createMailer(await testEnv({ SMTP_URL: sink.smtpUrl }), createMemoryLogger());
  await mailer.send({ to: "Bob@Example.com", subject: "Hello <there>", text: "Line one\nLine two", html: "<p>Line one</p>" });
  await mailer.send({ to: "carol@example.com", subject: "Other", text: "x" });
  mailer.close();

  const mail = await sink.waitFor((m) => m.subject === "Hello <there>");
  expect(mail).toMatchObject({ to: ["bob@example.com"], from: "no-reply@issuepool.dev", text: "Line one\nLine two\n", html: "<p>Line one</p>\n" });
  expect(sink.messages({ to: "bob@example.com" })).toHaveLength(1);
  expect(sink.messages()).toHaveLength(2);

  const routes = sink.routes();
  const page = await (await routes.request("/?to=bob@example.com")).text();
  expect(page).toContain("Hello &lt;there&gt;");
  expect(page).not.toContain("carol@example.com</");
  const json = await (await routes.request("/messages.json?to=carol@example.com")).json();
  expect(json.messages.map((m: { subject: string }) => m.subject)).toEqual(["Other"]);
});

test("waitFor gives up", async () => {
  await expect(sink.waitFor(() => false, 50)).rejects.toThrow("no matching message");
});
