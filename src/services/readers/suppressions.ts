import { isPolicyRefusal } from "../../core/mail/feedback.ts";
import { recordMailEvent, suppressAddress, type SuppressionReason } from "../../store/readers/subscribers.ts";
import type { MailEvent, MailNotification, MailWebhookBody } from "../../contract/mail-webhooks.ts";
import type { AppContext } from "../platform/context.ts";
import { unsubscribeByToken } from "./unsubscribe.ts";


/** Puts an address on the suppression list; its history is kept. Returns false if it already was. */
export function suppress(ctx: AppContext, email: string, reason: SuppressionReason, source: string, detail: string | null = null): boolean {
  const added = suppressAddress(ctx.db, email.trim().toLowerCase(), reason, source, detail, ctx.config.now().toISOString());
  ctx.log.info({ reason, source, added }, "address suppressed");
  return added;
}

/**
 * A bounce or complaint reported by the mail provider: hard bounces and complaints suppress the
 * address. A bounce whose detail says the sender was refused (blocked, throttled, DMARC, `5.7.x`) is
 * recorded as a policy refusal and never suppresses, as with the providers' own webhooks.
 */
export function handleMailNotification(ctx: AppContext, n: MailNotification): { suppressed: boolean } {
  const email = n.email.trim().toLowerCase();
  if (n.type === "bounce" && (n.permanent === false || isPolicyRefusal(n.detail))) {
    const kind = n.permanent === false ? "soft_bounce" : "policy_refusal";
    recordMailEvent(ctx.db, { email, kind, source: "webhook", detail: n.detail ?? null, now: ctx.config.now().toISOString() });
    return { suppressed: false };
  }
  suppress(ctx, email, n.type === "complaint" ? "complained" : "bounced", "webhook", n.detail ?? null);
  return { suppressed: true };
}

/** The provider's notifications in order: suppressions, soft bounces and mailto unsubscribes. */
export async function handleMailEvents(ctx: AppContext, events: MailEvent[]): Promise<{ processed: number; suppressed: number; unsubscribed: number }> {
  let suppressed = 0, unsubscribed = 0;
  for (const n of events) {
    if (n.type === "unsubscribe") {
      const token = n.token ?? /unsubscribe\s+(\S+)/i.exec(n.subject ?? "")?.[1] ?? "";
      if (await unsubscribeByToken(ctx, token, "city", "mailto")) unsubscribed++;
    } else if (handleMailNotification(ctx, n).suppressed) suppressed++;
  }
  return { processed: events.length, suppressed, unsubscribed };
}

/** POST /webhooks/mail: one event or `{events: [...]}`. */
export function handleMailWebhook(ctx: AppContext, body: MailWebhookBody) {
  return handleMailEvents(ctx, "events" in body ? body.events : [body]);
}
