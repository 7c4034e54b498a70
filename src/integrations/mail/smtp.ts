import nodemailer from "nodemailer";
import { createRawPool } from "./smtp-raw-pool.ts";
import { MailSendError, type Mailer, type OutgoingMessage, type RawMessage } from "./types.ts";

export interface SmtpMailerOptions {
  /** e.g. `smtp://user:pass@mail.example.com:587` or `smtps://...:465`. */
  url: string;
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  maxConnections?: number;
}

/**
 * Pooled SMTP through nodemailer. STARTTLS is used whenever the server offers it (nodemailer's
 * default; certificates are verified), `smtps://` connects over TLS from the start. Timeouts stay
 * well under the outbox lease so a hung connection cannot outlive its claim.
 */
export function createSmtpMailer(opts: SmtpMailerOptions): Mailer {
  const limits = { maxConnections: opts.maxConnections ?? 5, maxMessages: 1000, connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 60_000 };
  const transport = nodemailer.createTransport({ url: opts.url, pool: true, ...limits });
  // Messages composed beforehand skip sendMail (see smtp-raw-pool.ts).
  const rawPool = createRawPool({ url: opts.url, dkim: opts.dkim, ...limits });
  return {
    async send(message: OutgoingMessage) {
      try {
        const info = await transport.sendMail(nodemailerMessage(message, opts.dkim));
        return { messageId: info.messageId };
      } catch (err) {
        throw toSendError(err);
      }
    },
    async sendRaw(message: RawMessage) {
      try {
        await rawPool.send(message);
        return { messageId: message.messageId };
      } catch (err) {
        throw toSendError(err);
      }
    },
    async close() {
      rawPool.close();
      transport.close();
    },
  };
}

/**
 * The message as nodemailer takes it. Our headers are already valid ASCII header values (see
 * core/email-render.ts), so they go out as written: nodemailer would otherwise MIME-encode a
 * quoted List-Id phrase and mail clients would no longer recognise it.
 */
export function nodemailerMessage(message: OutgoingMessage, dkim?: SmtpMailerOptions["dkim"]) {
  const headers = Object.fromEntries(Object.entries(message.headers).map(([k, value]) => [k, { prepared: true, value }]));
  return { ...message, headers, ...(dkim ? { dkim } : {}) };
}

/** A composed message as nodemailer takes it: sent as it is, with the envelope given (not read from its headers). */
export function nodemailerRaw(message: RawMessage, dkim?: SmtpMailerOptions["dkim"]) {
  // The Message-ID is the one the raw message carries; given here, nodemailer does not make up another for its own bookkeeping.
  return { raw: message.raw, messageId: message.messageId, envelope: { from: message.envelope.from, to: [message.envelope.to] }, ...(dkim ? { dkim } : {}) };
}

/** 5xx replies are permanent (RFC 5321); connection errors and 4xx are worth retrying. */
export function toSendError(err: unknown): MailSendError {
  const e = err as { message?: string; responseCode?: number; permanent?: boolean; response?: string };
  const code = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const permanent = e.permanent ?? (code !== undefined && code >= 500 && code < 600);
  return new MailSendError(e.response || e.message || String(err), permanent, code);
}
