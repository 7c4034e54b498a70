import { mailFrom } from "../../config/mail.ts";
import { senderDomain } from "../../core/edition/email-headers.ts";
import { AppError } from "../../core/errors.ts";
import { outboxIdOf, type MailFeedback } from "../../core/mail/feedback.ts";
import type { ProviderWebhookResult } from "../../contract/mail-webhooks.ts";
import { arfFeedback, parseArf } from "../../integrations/mail/arf.ts";
import { unauthorized, type FeedbackProvider, type WebhookDelivery } from "../../integrations/mail/feedback-webhook.ts";
import { markWebhookSeen, outboxRecipient } from "../../store/mail/feedback.ts";
import { recordMailEvent } from "../../store/readers/subscribers.ts";
import type { AppContext } from "../platform/context.ts";
import { suppress } from "../readers/suppressions.ts";
import { resolveToken } from "../readers/unsubscribe.ts";

/** The environment variable each provider's endpoint needs (named in its 503). */
export const WEBHOOK_SECRET_ENV: Record<FeedbackProvider, string> = {
  ses: "SES_SNS_TOPIC_ARN",
  sendgrid: "SENDGRID_WEBHOOK_PUBLIC_KEY",
  postmark: "POSTMARK_WEBHOOK_USER and POSTMARK_WEBHOOK_PASSWORD",
  mailgun: "MAILGUN_WEBHOOK_SIGNING_KEY",
};

/**
 * `POST /webhooks/mail/{provider}`: the provider verifies the request its own way (nothing is
 * stored before that), then its events go to the one bounce/complaint service below. An SNS
 * subscription confirmation is confirmed instead.
 */
export async function handleProviderWebhook(ctx: AppContext, provider: FeedbackProvider, raw: string, headers: Headers): Promise<ProviderWebhookResult> {
  const hook = ctx.mailWebhooks[provider];
  if (!hook) throw new AppError("service_misconfigured", `${WEBHOOK_SECRET_ENV[provider]} is not configured on this server.`);
  const delivery = await hook.receive({ raw, headers, nowMs: ctx.config.now().getTime() });
  if (delivery.confirm) {
    try {
      await delivery.confirm();
    } catch (err) {
      throw new AppError("upstream_error", `The subscription could not be confirmed: ${(err as Error).message}`);
    }
    ctx.log.info({ provider }, "mail provider webhook subscription confirmed");
    return { ...emptyResult(provider), confirmed: true };
  }
  return applyFeedback(ctx, provider, delivery);
}

/**
 * `POST /webhooks/mail/arf`: a complaint feedback-loop report (RFC 5965) as the inbound-mail
 * service received it. Not a report at all: 400.
 */
export async function handleArfReport(ctx: AppContext, raw: string): Promise<ProviderWebhookResult> {
  const report = await parseArf(raw);
  if (!report) throw new AppError("validation_error", "The body is not a feedback report (no message/feedback-report part).", { issues: [{ path: "body", message: "expected multipart/report; report-type=feedback-report" }] });
  const events = arfFeedback(report);
  return applyFeedback(ctx, "arf", { events, ignored: events.length ? 0 : 1 });
}

function emptyResult(provider: string): ProviderWebhookResult {
  return { provider, received: 0, suppressed: 0, recorded: 0, ignored: 0, duplicates: 0, unmatched: 0, confirmed: false };
}

/**
 * The events of one verified request, applied in one durable commit (on disk before the provider
 * hears 200, so it never has to send them again). A nonce seen before refuses the whole request;
 * an event id seen before is a duplicate and changes nothing.
 */
export async function applyFeedback(ctx: AppContext, source: FeedbackProvider | "arf", delivery: WebhookDelivery): Promise<ProviderWebhookResult> {
  const nowMs = ctx.config.now().getTime();
  const result = { ...emptyResult(source), received: delivery.events.length + delivery.ignored, ignored: delivery.ignored };
  await ctx.commits.run(() => {
    if (delivery.nonce && !markWebhookSeen(ctx.db, source, "nonce", delivery.nonce, nowMs)) throw unauthorized("This signed request was already received (a replay).");
    for (const e of delivery.events) {
      if (!markWebhookSeen(ctx.db, source, "event", e.eventId, nowMs)) {
        result.duplicates++;
        continue;
      }
      const outcome = applyOne(ctx, source, e);
      result[outcome]++;
    }
  });
  return result;
}

/** One event for one reader: hard bounces and complaints suppress, soft and policy bounces are only recorded. */
function applyOne(ctx: AppContext, source: string, e: MailFeedback): "suppressed" | "recorded" | "unmatched" {
  const who = recipientOf(ctx, e);
  if (!who) {
    ctx.log.warn({ provider: source, kind: e.kind, eventId: e.eventId }, "mail feedback for no known recipient; nothing done");
    return "unmatched";
  }
  const now = ctx.config.now().toISOString();
  switch (e.kind) {
    case "hard_bounce":
      suppress(ctx, who.email, "bounced", source, e.detail);
      return "suppressed";
    case "complaint":
      // Every town: suppressing the address marks each subscription complained and cancels unsent mail.
      suppress(ctx, who.email, "complained", source, e.detail);
      return "suppressed";
    case "soft_bounce":
      recordMailEvent(ctx.db, { email: who.email, subscriberId: who.subscriberId, kind: "soft_bounce", source, detail: e.detail, now });
      return "recorded";
    case "policy":
      recordMailEvent(ctx.db, { email: who.email, subscriberId: who.subscriberId, kind: "policy_refusal", source, detail: e.detail, now });
      // The sender's problem (a blocklisted IP, throttling, DMARC): for the operator, not the reader.
      ctx.log.warn({ alert: "mail_policy_refusal", provider: source, detail: e.detail }, "a receiving mail system refused our mail on policy grounds; the reader is not suppressed");
      return "recorded";
  }
}

/** The reader an event is about: through our Message-ID (an outbox row), our unsubscribe token, else the reported address. */
function recipientOf(ctx: AppContext, e: MailFeedback): { email: string; subscriberId: number | null } | undefined {
  const outboxId = outboxIdOf(e.messageId, senderDomain(mailFrom(ctx.config)));
  const row = outboxId === undefined ? undefined : outboxRecipient(ctx.db, outboxId);
  if (row) return { email: row.email.toLowerCase(), subscriberId: row.subscriberId };
  const sub = e.token ? resolveToken(ctx, e.token) : undefined;
  if (sub) return { email: sub.email.toLowerCase(), subscriberId: sub.id };
  const email = e.email?.trim().toLowerCase();
  if (email && /^[^\s@<>]+@[^\s@<>]+$/.test(email)) return { email, subscriberId: null };
  return undefined;
}
