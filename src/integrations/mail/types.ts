import type { RenderedEmail } from "../../core/edition/email-render.ts";

/**
 * One message ready to send (as rendered by core/email-render); the mailer adds nothing but transport
 * (and DKIM when configured). `date` is the Date header (the sender's clock; nodemailer's real one without it).
 */
export type OutgoingMessage = RenderedEmail & { messageId?: string; date?: Date };

/**
 * A message already in its final RFC 5322 form (message-template.ts), sent as it is: nodemailer
 * only dot-stuffs it on the way (and DKIM-signs it when configured).
 */
export interface RawMessage {
  raw: Buffer;
  envelope: { from: string; to: string };
  /** The Message-ID header it carries. */
  messageId: string;
}

/** SMTP when SMTP_URL is set, otherwise .eml files in an outbox folder under DATA_DIR. */
export interface Mailer {
  /** Resolves when accepted by the transport; rejects with `{ permanent: boolean }` information on failure. */
  send(message: OutgoingMessage): Promise<{ messageId: string }>;
  /** The same for a message composed beforehand. */
  sendRaw(message: RawMessage): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

/**
 * What a failure is about. `local`: this message could not be composed or was refused by the SMTP
 * client before anything was sent (an invalid address): that row alone is retried, then given up;
 * `recipient`: the server answered about this one address (at RCPT TO);
 * `message`: it refused this message's data (at or after DATA); `session`: the connection, the
 * greeting, EHLO, AUTH, MAIL FROM, a timeout, or the transport itself (a full outbox disk): nothing
 * said about the recipient, so it must never be held against the recipient.
 */
export type MailFailureScope = "recipient" | "message" | "session" | "local";

/**
 * A failed send. `permanent`: the server refused for good (5xx); otherwise retry later. Only a
 * permanent failure with `scope: "recipient"` is a bounce (RFC 5321: a 5xx at MAIL FROM or at the
 * greeting is about the sender or the session, not the address).
 */
export class MailSendError extends Error {
  readonly permanent: boolean;
  readonly responseCode?: number;
  readonly scope: MailFailureScope;
  constructor(message: string, permanent: boolean, responseCode?: number, scope: MailFailureScope = "session") {
    super(message);
    this.name = "MailSendError";
    this.permanent = permanent;
    this.responseCode = responseCode;
    this.scope = scope;
  }

  /** The server refused this address for good: the one case that suppresses it. */
  get bounce(): boolean {
    return this.permanent && this.scope === "recipient";
  }
}
