import type { RenderedEmail } from "../../core/email-render.ts";

/** One message ready to send (as rendered by core/email-render); the mailer adds nothing but transport (and DKIM when configured). */
export type OutgoingMessage = RenderedEmail & { messageId?: string };

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

/** A failed send. `permanent`: the receiving server refused for good (5xx); otherwise retry later. */
export class MailSendError extends Error {
  readonly permanent: boolean;
  readonly responseCode?: number;
  constructor(message: string, permanent: boolean, responseCode?: number) {
    super(message);
    this.name = "MailSendError";
    this.permanent = permanent;
    this.responseCode = responseCode;
  }
}
