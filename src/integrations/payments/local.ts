import crypto from "node:crypto";
import Stripe from "stripe";
import { standardCardFeeCents } from "../../core/commerce/pricing.ts";
import type { DB } from "../../store/db.ts";
import { findLocalSession, insertLocalSession, localEventId } from "../../store/commerce/payment-sessions.ts";
import { SIGNATURE_HEADER, translateStripeEvent, verifyStripeSignature } from "./stripe-events.ts";
import type { CheckoutRequest, HostedCheckout, PaymentProvider } from "./types.ts";

export interface LocalOptions {
  db: DB;
  /** Public origin of our pages (read per call: tests learn the port after start). */
  baseUrl: () => string;
  /** The callback signing key, kept in the database (`local_payments_webhook_secret`). */
  secret: () => string;
  now: () => Date;
}

/**
 * The embedded default: a hosted checkout page of ours (api/routes/commerce/checkout-pages.ts) showing what is
 * bought and its price with Pay and Cancel. Pay emits the same kind of callback Stripe sends (a
 * Stripe-shaped event, signed with the stripe library's own helper), which goes through the same
 * verification as any callback. The fee is Stripe's published standard U.S. card fee.
 */
/** The session's UUID without dashes: one payment id (and event id) per session, however often Pay is pressed. */
const sessionKey = (sessionId: string) => sessionId.replace(/^cs_local_/, "").replaceAll("-", "");

export function createLocalProvider(opts: LocalOptions): PaymentProvider {
  // Only its `webhooks` helpers are used: no request ever leaves the process.
  const signer = Stripe.webhooks;
  const hosted: HostedCheckout = {
    session(id) {
      const s = findLocalSession(opts.db, id);
      // Past its time a session reads as expired; nothing is written on a read.
      if (s && s.status === "open" && s.expiresAt <= opts.now().toISOString()) return { ...s, status: "expired" };
      return s;
    },
    pay(id, email) {
      // Open, or already paid: a repeated Pay (the first answer was lost, or the server died before
      // the callback was applied) re-delivers the same event, which the callback applies once.
      const s = hosted.session(id);
      if (!s || s.status === "expired") return undefined;
      const created = Math.floor(opts.now().getTime() / 1000);
      const event = {
        id: localEventId(s.id),
        object: "event",
        type: "checkout.session.completed",
        created,
        livemode: false,
        data: {
          object: {
            id: s.id, object: "checkout.session", mode: s.mode, status: "complete", payment_status: "paid",
            amount_total: s.amountCents, currency: s.currency, client_reference_id: s.reference, metadata: { order_id: s.reference },
            customer_details: { email }, customer_email: s.email,
            payment_intent: s.mode === "payment" ? `pi_local_${sessionKey(s.id)}` : null,
            subscription: s.mode === "subscription" ? `sub_local_${sessionKey(s.id)}` : null,
          },
        },
      };
      const rawBody = JSON.stringify(event);
      const header = signer.generateTestHeaderString({ payload: rawBody, secret: opts.secret(), timestamp: created });
      return { rawBody, headers: new Headers({ [SIGNATURE_HEADER]: header, "content-type": "application/json" }) };
    },
  };
  return {
    name: "local",
    checkoutOrigins: [],
    hosted,
    async createCheckout(req: CheckoutRequest) {
      const s = insertLocalSession(opts.db, {
        id: `cs_local_${crypto.randomUUID()}`, reference: req.reference, mode: req.mode, description: `${req.productName}: ${req.description}`,
        amountCents: req.amountCents, currency: req.currency, email: req.customerEmail ?? "", successUrl: req.successUrl, cancelUrl: req.cancelUrl,
        expiresAt: req.expiresAt.toISOString(),
      }, opts.now().toISOString());
      return { url: `${opts.baseUrl()}/checkout/${s.id}`, sessionId: s.id, expiresAt: new Date(s.expiresAt) };
    },
    async verifyCallback(rawBody, headers) {
      const event = verifyStripeSignature(signer, rawBody, headers, opts.secret(), opts.now().getTime());
      const translated = translateStripeEvent(event);
      if (translated.type === "checkout.completed" && translated.mode === "payment") translated.feeCents = standardCardFeeCents(translated.amountCents);
      return translated;
    },
  };
}
