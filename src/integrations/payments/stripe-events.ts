import type Stripe from "stripe";
import { AppError } from "../../core/errors.ts";
import type { PaymentEvent } from "./types.ts";

/** The signature header Stripe (and our local provider, which mimics it) sends. */
export const SIGNATURE_HEADER = "stripe-signature";

/** Signatures older than this (seconds) are stale: a replayed capture is refused. Stripe's own default. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * Verifies with the stripe library's own `webhooks.constructEvent` (HMAC-SHA256 over
 * `timestamp.body`, timestamp within the tolerance of `nowMs`, our clock).
 */
export function verifyStripeSignature(webhooks: Stripe["webhooks"], rawBody: string, headers: Headers, secret: string, nowMs: number): Stripe.Event {
  const signature = headers.get(SIGNATURE_HEADER);
  if (!signature) throw new AppError("unauthorized", `The callback has no ${SIGNATURE_HEADER} header.`);
  try {
    return webhooks.constructEvent(rawBody, signature, secret, SIGNATURE_TOLERANCE_SECONDS, undefined, nowMs);
  } catch (err) {
    // The signature is checked before the body is parsed: only a correctly signed body can fail as JSON.
    if ((err as { type?: string }).type !== "StripeSignatureVerificationError") {
      throw new AppError("validation_error", "The callback body is not a JSON event.", { issues: [{ path: "body", message: "not JSON" }] });
    }
    const message = (err as Error).message ?? "";
    if (/timestamp outside the tolerance/i.test(message)) throw new AppError("forbidden", "The callback's signature is stale (older than 5 minutes).");
    if (/Unable to extract timestamp and signatures/i.test(message)) throw new AppError("unauthorized", `The callback's ${SIGNATURE_HEADER} header is not a signature.`);
    throw new AppError("forbidden", "The callback's signature does not match its body.");
  }
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === "string" && v ? v : v && typeof v === "object" && typeof (v as Obj).id === "string" ? (v as Obj).id as string : null);

/** Stripe's event types we act on, as domain events (the fee is filled in by the provider). */
export function translateStripeEvent(event: Stripe.Event): PaymentEvent {
  const o = (event.data?.object ?? {}) as unknown as Obj;
  const metadata = (o.metadata ?? {}) as Record<string, string>;
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      // Completed with a delayed method (bank debit) is not paid yet; its async_payment_succeeded follows.
      if (event.type === "checkout.session.completed" && o.payment_status === "unpaid") return { type: "ignored", eventId: event.id, providerType: `${event.type} (unpaid)` };
      const reference = metadata.order_id ?? str(o.client_reference_id);
      if (!reference) return { type: "ignored", eventId: event.id, providerType: `${event.type} (no order id)` };
      const details = (o.customer_details ?? {}) as Obj;
      return {
        type: "checkout.completed", eventId: event.id, reference, sessionId: String(o.id), mode: o.mode === "subscription" ? "subscription" : "payment",
        amountCents: Number(o.amount_total ?? 0), feeCents: null, paymentId: str(o.payment_intent), subscriptionId: str(o.subscription),
        customerEmail: str(details.email) ?? str(o.customer_email),
      };
    }
    case "checkout.session.expired": {
      const reference = metadata.order_id ?? str(o.client_reference_id);
      if (!reference) return { type: "ignored", eventId: event.id, providerType: event.type };
      return { type: "checkout.expired", eventId: event.id, reference, sessionId: String(o.id) };
    }
    case "account.updated": {
      // Connect: the operator finished (or Stripe paused) their payout account's onboarding.
      const accountId = str(o.id);
      if (!accountId) return { type: "ignored", eventId: event.id, providerType: `${event.type} (no account id)` };
      return { type: "account.updated", eventId: event.id, accountId, payoutsEnabled: o.payouts_enabled === true && o.details_submitted === true };
    }
    case "customer.subscription.deleted":
      return { type: "subscription.ended", eventId: event.id, subscriptionId: String(o.id) };
    case "charge.refunded": {
      const paymentId = str(o.payment_intent);
      if (!paymentId) return { type: "ignored", eventId: event.id, providerType: `${event.type} (no payment intent)` };
      // A partial refund leaves the listing paid and published; staff decide what else it means.
      if (o.refunded === false) return { type: "ignored", eventId: event.id, providerType: `${event.type} (partial)` };
      return { type: "refunded", eventId: event.id, paymentId, amountRefundedCents: Number(o.amount_refunded ?? 0) };
    }
    default:
      return { type: "ignored", eventId: event.id, providerType: event.type };
  }
}
