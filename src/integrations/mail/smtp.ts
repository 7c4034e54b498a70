import nodemailer from "nodemailer";
import { parseConnectionUrl } from "nodemailer/lib/shared";
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
  // Timeouts in SMTP_URL's query (`?greetingTimeout=2000&socketTimeout=10000`) win over these.
  const fromUrl = parseConnectionUrl(opts.url) as { connectionTimeout?: number; greetingTimeout?: number; socketTimeout?: number };
  const limits = {
    maxConnections: opts.maxConnections ?? 5, maxMessages: 1000,
    connectionTimeout: fromUrl.connectionTimeout ?? 15_000, greetingTimeout: fromUrl.greetingTimeout ?? 15_000, socketTimeout: fromUrl.socketTimeout ?? 60_000,
  };
  // Every message goes out through the one pool of smtp-raw-pool.ts, whose waits are bounded and
  // whose close() ends connections in flight (nodemailer's own pool, closed, let a connect that the
  // server never greeted run to its timeout). Messages not composed beforehand are composed by
  // nodemailer's stream transport, as its SMTP transport would compose them.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  const rawPool = createRawPool({ url: opts.url, dkim: opts.dkim, ...limits });
  return {
    async send(message: OutgoingMessage) {
      let info;
      try {
        info = await composer.sendMail(nodemailerMessage(message));
      } catch (err) {
        throw new MailSendError(`could not compose the message: ${(err as Error).message}`, false, undefined, "local");
      }
      const envelope = info.envelope as { from: string; to: string[] };
      try {
        await rawPool.send({ raw: info.message as Buffer, envelope: { from: envelope.from, to: envelope.to[0] }, messageId: info.messageId });
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
    },
  };
}

/**
 * The message as nodemailer takes it. Our headers are already valid ASCII header values (see
 * core/edition/email-render.ts), so they go out as written: nodemailer would otherwise MIME-encode a
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

/**
 * 5xx replies are permanent (RFC 5321); connection errors and 4xx are worth retrying. Which
 * command was answered (nodemailer's `command`) says what the failure is about: only a reply to
 * RCPT TO is about the recipient. A 5xx greeting (a blocklisted sending IP), a refused AUTH or a
 * `554 relay access denied` at MAIL FROM is the sender's or the relay's problem, for every message.
 * A full mailbox is not permanent: RFC 5321 (4.5.3.1.10) has clients treat `552` at RCPT TO as the
 * temporary `452`, and RFC 3463 describes X.2.2 (mailbox full) as transient.
 */
export function toSendError(err: unknown): MailSendError {
  const e = err as { message?: string; responseCode?: number; permanent?: boolean; response?: string; command?: string };
  const code = typeof e.responseCode === "number" ? e.responseCode : undefined;
  const response = e.response || e.message || String(err);
  const atRcpt = e.command === "RCPT TO";
  const permanent = (e.permanent ?? (code !== undefined && code >= 500 && code < 600)) && !(atRcpt && mailboxFull(code, response));
  const recipient = atRcpt && aboutRecipient(code, response, permanent);
  // Refused by the client itself before a byte was sent (nodemailer's "API" errors: an invalid envelope address).
  const errCode = (err as { code?: string }).code;
  const local = e.command === "API" && code === undefined
    && ((errCode === "EENVELOPE" && /^(Invalid recipient|No recipients)/.test(e.message ?? "")) || errCode === "EMESSAGE" || errCode === "ESTREAM");
  const scope = recipient ? "recipient" : local ? "local" : e.command === "DATA" ? "message" : "session";
  return new MailSendError(response, permanent, code, scope);
}

/** The enhanced status code (RFC 3463) a reply starts with, e.g. `5.2.2`, split into class, subject and detail. */
export function enhancedStatus(response: string): { status: string; klass: string; subject: string } | undefined {
  const m = /^\d{3}[ -]([245])\.(\d{1,3})\.(\d{1,3})\b/.exec(response);
  return m ? { status: `${m[1]}.${m[2]}.${m[3]}`, klass: m[1], subject: m[2] } : undefined;
}

/** A full mailbox: `552` (RFC 5321: at RCPT TO, the temporary 452) or X.2.2 (RFC 3463: transient). */
function mailboxFull(code: number | undefined, response: string): boolean {
  return code === 552 || enhancedStatus(response)?.status.slice(1) === ".2.2";
}

/**
 * Whether a refusal at RCPT TO is about the address itself. A relay that is not letting us through
 * answers at RCPT TO too (Postfix: `554 5.7.1 Relay access denied`, `452 4.3.1 Insufficient system
 * storage`), for every recipient alike: that is a policy (X.7.x), system (X.3.x), network (X.4.x) or
 * protocol (X.5.x) status, not a bad mailbox. With an enhanced status code (RFC 3463), a permanent
 * refusal is about the recipient only for addressing (X.1.x) and mailbox (X.2.x) statuses; a
 * temporary one unless it is about the system, the network or the protocol (4.3.x, 4.4.x, 4.5.x:
 * the relay's; a greylisting 4.7.x stays the recipient's). Without one, the basic codes for a
 * mailbox (45x, 550, 551, 552, 553) are, 421 (closing) and 554 ("transaction failed") are not, and a
 * reply that mentions relaying never is. The same refusal for most of a batch is the relay's all
 * the same: the sender judges that (services/mail/sender.ts).
 */
export function aboutRecipient(code: number | undefined, response: string, permanent = code !== undefined && code >= 500): boolean {
  if (code === 421 || /\brelay/i.test(response)) return false;
  const enhanced = enhancedStatus(response);
  if (enhanced) return permanent ? enhanced.subject === "1" || enhanced.subject === "2" : !["3", "4", "5"].includes(enhanced.subject);
  return code !== undefined && ((code >= 450 && code <= 452) || (code >= 550 && code <= 553));
}
