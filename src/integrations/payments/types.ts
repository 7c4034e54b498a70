import type { HostedSession } from "../../store/commerce/payment-sessions.ts";

/**
 * The payment provider seam: Stripe when STRIPE_SECRET_KEY is set, otherwise the local provider (a
 * hosted checkout page of ours). Each provider creates checkouts and verifies and translates its own
 * callbacks into one domain `PaymentEvent`, as listmonk does for bounce providers.
 */

export interface CheckoutRequest {
  /** `payment`: one-off (listings); `subscription`: monthly (town leases). */
  mode: "payment" | "subscription";
  /** Our order or lease id (`lo_...`, `tl_...`), carried in the provider's metadata. */
  reference: string;
  productName: string;
  description: string;
  amountCents: number;
  currency: "usd";
  /** Prefills the payment page. */
  customerEmail?: string;
  successUrl: string;
  cancelUrl: string;
  /** The link stops working then (a lease's reservation; a listing's payment window). */
  expiresAt: Date;
}

export interface CheckoutSession {
  url: string;
  sessionId: string;
  expiresAt: Date;
}

export type PaymentEvent =
  | {
    type: "checkout.completed"; eventId: string; reference: string; sessionId: string; mode: "payment" | "subscription";
    amountCents: number; feeCents: number | null; paymentId: string | null; subscriptionId: string | null; customerEmail: string | null;
    /** Stripe mode: the payment's charge (the source_transaction of the operator's payout transfer). */
    chargeId?: string | null;
  }
  | { type: "checkout.expired"; eventId: string; reference: string; sessionId: string }
  | { type: "subscription.ended"; eventId: string; subscriptionId: string }
  | { type: "refunded"; eventId: string; paymentId: string; amountRefundedCents: number }
  /** A connected (payout) account changed: whether it can receive transfers and payouts now. */
  | { type: "account.updated"; eventId: string; accountId: string; payoutsEnabled: boolean }
  /** A verified event we do not act on (recorded, answered 200). */
  | { type: "ignored"; eventId: string; providerType: string };

/** A hosted checkout page served by us (the local provider); Stripe hosts its own. */
export interface HostedCheckout {
  session(id: string): HostedSession | undefined;
  /**
   * The person pressed Pay: marks the session complete and returns the signed callback it emits (the
   * same shape and signature scheme as Stripe's), for the callback endpoint's own verification.
   */
  pay(id: string, email: string): { rawBody: string; headers: Headers } | undefined;
}

export interface PaymentProvider {
  readonly name: "stripe" | "local" | "off";
  /**
   * Origins of the provider's hosted payment pages. A page whose form answers with a redirect there
   * (the buying and lease pages) names them in its CSP `form-action`, which browsers also apply to
   * the redirect. Empty for the local provider (its page is on this site).
   */
  readonly checkoutOrigins: readonly string[];
  readonly hosted?: HostedCheckout;
  createCheckout(req: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Verifies a callback's signature over its raw body and translates it. Throws AppError:
   * `unauthorized` without a signature, `forbidden` for a wrong or stale one, `validation_error` for
   * a body that is not an event.
   */
  verifyCallback(rawBody: string, headers: Headers): Promise<PaymentEvent>;
  /**
   * Stripe mode: the events the provider recorded since `since` (its `created`), oldest first,
   * translated as their callbacks are: what a restored database may have missed. The local
   * provider has none (its callbacks come from its own page, in the same database).
   */
  eventsSince?(since: Date): Promise<PaymentEvent[]>;
}
