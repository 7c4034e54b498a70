import path from "node:path";
import type { Config } from "../../config/load.ts";
import { withSignedHeaders } from "./dkim.ts";
import { createOutboxDirMailer } from "./outbox-dir.ts";
import { createSmtpMailer } from "./smtp.ts";
import type { Mailer } from "./types.ts";

export type { Mailer, OutgoingMessage, RawMessage } from "./types.ts";
export { MailSendError } from "./types.ts";

/** SMTP when `SMTP_URL` is set, otherwise `.eml` files in `DATA_DIR/outbox`. DKIM-signed when a key is configured. */
export function createMailer(config: Config): Mailer {
  const dkim = withSignedHeaders(config.mail.dkim);
  if (config.smtpUrl) return createSmtpMailer({ url: config.smtpUrl, dkim, maxConnections: config.mail.concurrency });
  return createOutboxDirMailer(outboxDir(config), dkim);
}

export function outboxDir(config: Config): string {
  return path.join(config.dataDir, "outbox");
}
