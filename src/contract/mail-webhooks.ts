import { z } from "zod";

// The bounce/complaint webhook (`POST /webhooks/mail`): outside the public API, so not in the
// OpenAPI document, but validated from this one schema all the same.

export const MailNotification = z.object({
  type: z.enum(["bounce", "complaint"]),
  email: z.email(),
  /** Bounces only: a hard (permanent) bounce suppresses; a soft one is only recorded. Default true. */
  permanent: z.boolean().optional(),
  detail: z.string().max(1000).optional(),
});

/**
 * A mail to the List-Unsubscribe mailto address, as an inbound-mail service reports it: its subject
 * (`unsubscribe {token}`) or the token itself.
 */
export const MailtoUnsubscribe = z.object({
  type: z.literal("unsubscribe"),
  token: z.string().max(200).optional(),
  subject: z.string().max(1000).optional(),
}).refine((u) => u.token !== undefined || u.subject !== undefined, "needs token or subject");

export const MailEvent = z.union([MailNotification, MailtoUnsubscribe]);

/** One event, or `{ events: [...] }` with up to 1000 of them. */
export const MailWebhookBody = z.union([MailEvent, z.object({ events: z.array(MailEvent).min(1).max(1000) })]);

export type MailNotification = z.infer<typeof MailNotification>;
export type MailEvent = z.infer<typeof MailEvent>;
export type MailWebhookBody = z.infer<typeof MailWebhookBody>;

/**
 * The answer of the providers' signed webhooks (`POST /webhooks/mail/{ses,sendgrid,postmark,mailgun}`)
 * and of `POST /webhooks/mail/arf` (docs/mail.md). Outside the public API like `/webhooks/mail`.
 */
export const ProviderWebhookResult = z.object({
  provider: z.string(),
  /** Events in the request, acted on or not. */
  received: z.int(),
  /** Addresses suppressed (hard bounces, complaints). */
  suppressed: z.int(),
  /** Soft and policy bounces recorded in the reader's history (never suppressed). */
  recorded: z.int(),
  /** Events not about bounces or complaints (deliveries, opens...). */
  ignored: z.int(),
  /** Events already received (a provider's retry or a replay): nothing changed. */
  duplicates: z.int(),
  /** Events naming no reader we know. */
  unmatched: z.int(),
  /** An Amazon SNS subscription confirmation, confirmed. */
  confirmed: z.boolean(),
});
export type ProviderWebhookResult = z.infer<typeof ProviderWebhookResult>;
