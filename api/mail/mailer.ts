import nodemailer, { type Transporter } from "nodemailer";
import type { Env } from "../env.ts";
import type { Logger } from "../logger.ts";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (List-Unsubscribe and List-Unsubscribe-Post on digests, RFC 8058). */
  headers?: Record<string, string>;
}

export interface Mailer {
  /** Sends, or throws MailError: callers decide what a failure means for the user. */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export class MailError extends Error {}

/** Real SMTP through nodemailer (SMTP_URL): the local sink in development, any provider in production. */
export function createMailer(env: Env, log: Logger, options: { pool?: boolean } = {}): Mailer {
  let transport: Transporter | undefined;
  // Fail fast: a code the user waits for should not hang for minutes (nodemailer reads these from the URL).
  const url = new URL(env.SMTP_URL);
  // Bulk mail (the daily digest) keeps a few connections open instead of one per message.
  if (options.pool && !url.searchParams.has("pool")) url.searchParams.set("pool", "true");
  for (const [name, ms] of [["connectionTimeout", 10_000], ["greetingTimeout", 10_000], ["socketTimeout", 15_000]] as const) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, String(ms));
  }
  const transporter = () => (transport ??= nodemailer.createTransport(url.toString()));
  return {
    async send(message) {
      try {
        await transporter().sendMail({ from: env.MAIL_FROM, ...message });
        log.info("mail sent", { subject: message.subject });
      } catch (err) {
        log.warn("mail failed", { subject: message.subject, err: (err as Error).message });
        throw new MailError((err as Error).message);
      }
    },
    close() {
      transport?.close();
    },
  };
}
