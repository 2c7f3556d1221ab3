import { isSecretName, type Env } from "./env.ts";
import { createLogger, logDestination, type Logger, type Redaction } from "./logger.ts";

/**
 * What the log must never show, from the configuration: the field names of
 * LOG_REDACT_FIELDS (beside the built-in ones, api/logger.ts) and the values
 * of every configured secret (APP_SECRET, each master key, the operator's and
 * guardian's keys, the GitHub App's and the on-ramp's secrets, a password in
 * SMTP_URL…), which are cut out of any line they would appear in.
 */
export function logRedaction(env: Env): Redaction {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== "string" || !isSecretName(name)) continue;
    values.add(value);
    // A master key list (`k1:base64,k2:base64`) and a hex key with or without its 0x.
    for (const part of value.split(/[,\s]+/)) values.add(part.includes(":") ? part.slice(part.indexOf(":") + 1) : part);
    if (/^0x[0-9a-fA-F]{64}$/.test(value)) values.add(value.slice(2));
  }
  const smtpPassword = /^smtps?:\/\/[^:/@]+:([^@]+)@/.exec(env.SMTP_URL)?.[1];
  if (smtpPassword) values.add(decodeURIComponent(smtpPassword));
  return { fields: env.LOG_REDACT_FIELDS, values: [...values].filter((v) => v.length >= 8) };
}

/** The server's logger as configured: level, format, destination (LOG_FILE or standard output), redaction. */
export function loggerFromEnv(env: Env): Logger {
  return createLogger(env.LOG_LEVEL, logDestination(env.LOG_FILE), {}, env.LOG_FORMAT, { redaction: logRedaction(env) });
}
