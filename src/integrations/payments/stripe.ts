import Stripe from "stripe";
import { AppError } from "../../core/errors.ts";
import { standardCardFeeCents } from "../../core/commerce/pricing.ts";
import type { CheckoutRequest, CheckoutSession, PaymentEvent, PaymentProvider } from "./types.ts";
import { translateStripeEvent, verifyStripeSignature } from "./stripe-events.ts";

export interface StripeOptions {
  secretKey: string;
  /** STRIPE_WEBHOOK_SECRET; without it callbacks answer 503 `service_misconfigured`. */
  webhookSecret?: string;
  /** STRIPE_CONNECT_WEBHOOK_SECRET: a Connect endpoint's secret (account.updated of operators' payout accounts), tried second. */
  connectWebhookSecret?: string;
  /** STRIPE_API_URL, e.g. `http://127.0.0.1:12111` for a local stand-in; default Stripe's own API. */
  apiUrl?: string;
  now: () => Date;
}

/** The SDK client, pointed at `apiUrl` with the SDK's own `host`, `port` and `protocol` options. */
export function stripeClient(secretKey: string, apiUrl?: string): Stripe {
  const options: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 1, timeout: 20_000, appInfo: { name: "citydaily" } };
  if (apiUrl) {
    const u = new URL(apiUrl);
    Object.assign(options, { host: u.hostname, port: u.port || (u.protocol === "https:" ? 443 : 80), protocol: u.protocol.replace(":", "") as "http" | "https" });
  }
  return new Stripe(secretKey, options);
}

// Stripe accepts a Checkout Session expiry between 30 minutes and 24 hours after creation.
const MIN_EXPIRY_MS = 31 * 60_000;
const MAX_EXPIRY_MS = 23.5 * 3600_000;

/**
 * Stripe Checkout: one session per order (mode `payment` for listings, `subscription` for leases),
 * buyer email prefilled, our success and cancel pages, the order id in metadata (on the session, its
 * payment intent or subscription too), an idempotency key per order so a retried request never makes
 * a second session. Callbacks are verified with `stripe.webhooks.constructEvent`; the fee of a paid
 * listing is the one Stripe reports on the charge's balance transaction.
 */
export function createStripeProvider(opts: StripeOptions): PaymentProvider {
  const stripe = stripeClient(opts.secretKey, opts.apiUrl);
  return {
    name: "stripe",
    checkoutOrigins: ["https://checkout.stripe.com"],
    async createCheckout(req: CheckoutRequest): Promise<CheckoutSession> {
      const now = Date.now();
      const expires = Math.min(Math.max(req.expiresAt.getTime(), now + MIN_EXPIRY_MS), now + MAX_EXPIRY_MS);
      const metadata = { order_id: req.reference };
      const priceData: Stripe.Checkout.SessionCreateParams.LineItem.PriceData = {
        currency: req.currency,
        unit_amount: req.amountCents,
        product_data: { name: req.productName, description: req.description.slice(0, 500) },
        ...(req.mode === "subscription" ? { recurring: { interval: "month" as const } } : {}),
      };
      try {
        const session = await stripe.checkout.sessions.create({
          mode: req.mode,
          line_items: [{ price_data: priceData, quantity: 1 }],
          customer_email: req.customerEmail,
          client_reference_id: req.reference,
          metadata,
          success_url: req.successUrl,
          cancel_url: req.cancelUrl,
          expires_at: Math.floor(expires / 1000),
          ...(req.mode === "payment" ? { payment_intent_data: { metadata } } : { subscription_data: { metadata } }),
        }, { idempotencyKey: `checkout-${req.reference}` });
        if (!session.url) throw new Error("Stripe returned a session without a url");
        return { url: session.url, sessionId: session.id, expiresAt: new Date(session.expires_at * 1000) };
      } catch (err) {
        throw new AppError("upstream_error", `The payment provider did not create the checkout: ${(err as Error).message}`);
      }
    },
    async verifyCallback(rawBody, headers) {
      if (!opts.webhookSecret) throw new AppError("service_misconfigured", "STRIPE_WEBHOOK_SECRET is not configured on this server.");
      let event: Stripe.Event;
      try {
        event = verifyStripeSignature(stripe.webhooks, rawBody, headers, opts.webhookSecret, opts.now().getTime());
      } catch (err) {
        // Stripe signs a Connect endpoint's events with that endpoint's own secret.
        if (!opts.connectWebhookSecret || (err as AppError).code !== "forbidden") throw err;
        event = verifyStripeSignature(stripe.webhooks, rawBody, headers, opts.connectWebhookSecret, opts.now().getTime());
      }
      return withCharge(stripe, translateStripeEvent(event));
    },
    async eventsSince(since) {
      // Stripe lists newest first; the SDK's iterator follows `has_more` page by page.
      const events: Stripe.Event[] = [];
      for await (const event of stripe.events.list({ created: { gte: Math.floor(since.getTime() / 1000) }, limit: 100 })) events.push(event);
      const translated: PaymentEvent[] = [];
      for (const event of events.reverse()) translated.push(await withCharge(stripe, translateStripeEvent(event)));
      return translated;
    },
  };
}

/** A paid listing's fee and charge, as Stripe reports them on the payment (what the ledger and payouts need). */
async function withCharge(stripe: Stripe, translated: PaymentEvent): Promise<PaymentEvent> {
  if (translated.type === "checkout.completed" && translated.mode === "payment" && translated.paymentId) {
    const charge = await reportedCharge(stripe, translated.paymentId);
    translated.feeCents = charge.fee ?? standardCardFeeCents(translated.amountCents);
    translated.chargeId = charge.id ?? null;
  }
  return translated;
}

/** A payment's charge and the fee Stripe reports on its balance transaction, as far as they are known yet. */
async function reportedCharge(stripe: Stripe, paymentIntentId: string): Promise<{ id?: string; fee?: number }> {
  try {
    const pi = await stripe.paymentIntents.retrieve(paymentIntentId, { expand: ["latest_charge.balance_transaction"] });
    const charge = pi.latest_charge;
    if (!charge) return {};
    if (typeof charge === "string") return { id: charge };
    const bt = charge.balance_transaction;
    return { id: charge.id, ...(bt && typeof bt === "object" ? { fee: bt.fee } : {}) };
  } catch (err) {
    // The payment is real even when the lookup fails: fall back to the standard fee rather than refuse the callback.
    return {};
  }
}
