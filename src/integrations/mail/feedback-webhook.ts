import crypto from "node:crypto";
import { AppError } from "../../core/errors.ts";
import type { MailFeedback } from "../../core/mail/feedback.ts";

export type FeedbackProvider = "ses" | "sendgrid" | "postmark" | "mailgun";

/** One POST as it arrived: the raw body (signatures cover its exact bytes) and the headers. */
export interface WebhookRequest {
  raw: string;
  headers: Headers;
  /** Our clock (config.now), for signature timestamps. */
  nowMs: number;
}

/** A verified request, as the bounce/complaint service (src/services/mail/feedback.ts) takes it. */
export interface WebhookDelivery {
  events: MailFeedback[];
  /** Events the provider reports that we do not act on (deliveries, opens, clicks). */
  ignored: number;
  /** A one-use value the signature covers (Mailgun's token, a SendGrid signature): seen again, the request is a replay. */
  nonce?: string;
  /** Amazon SNS only: a subscription confirmation, confirmed by calling this (a GET on its SubscribeURL). */
  confirm?: () => Promise<void>;
}

/**
 * A provider's bounce and complaint webhook (one file per provider, as listmonk's
 * internal/bounce/webhooks/). `receive` verifies the request the provider's way and maps its
 * events; anything unsigned, wrongly signed or stale throws `unauthorized` before a byte is stored.
 */
export interface FeedbackWebhook {
  readonly provider: FeedbackProvider;
  receive(request: WebhookRequest): Promise<WebhookDelivery>;
}

/** Signed timestamps older (or further ahead) than this are refused: a captured request cannot be replayed later. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function unauthorized(detail: string, headers?: Record<string, string>): AppError {
  return new AppError("unauthorized", detail, { headers });
}

/** The body as JSON, once its signature has been checked (a signed body that is not JSON is the sender's bug). */
export function parseSignedJson(raw: string, what: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new AppError("validation_error", `The ${what} body is not JSON.`, { issues: [{ path: "body", message: "not JSON" }] });
  }
}

/** Equal strings, compared in constant time (as digests, so the length leaks nothing either). */
export function safeEqual(a: string, b: string): boolean {
  const digest = (s: string) => crypto.createHash("sha256").update(s).digest();
  return crypto.timingSafeEqual(digest(a), digest(b));
}

/** A Unix timestamp (seconds) within the tolerance of our clock. */
export function fresh(timestampSeconds: number, nowMs: number, toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS): boolean {
  return Number.isFinite(timestampSeconds) && Math.abs(nowMs / 1000 - timestampSeconds) <= toleranceSeconds;
}

/** A Message-ID with its angle brackets, as our outbox writes it (providers echo it with or without). */
export function bracketed(messageId: unknown): string | null {
  if (typeof messageId !== "string" || !messageId.trim()) return null;
  const id = messageId.trim();
  return id.startsWith("<") ? id : `<${id}>`;
}

export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
