import Stripe from "stripe";
import { AppError } from "../../core/errors.ts";
import { stripeClient } from "./stripe.ts";

/**
 * Operators' payouts through Stripe Connect (Stripe mode only): an Express account per operator,
 * an account link to onboard it, a transfer of the operator's share of each paid listing (the
 * listing's charge as `source_transaction`, so the money moves once the charge's funds are
 * available), and its reversal after a refund. Every write carries an idempotency key per operator
 * or per order, so a retried call never makes a second account, transfer or reversal. The customer
 * portal session (cancelling a lease) is here too: the desk's other Stripe call.
 */
export interface StripeConnect {
  createAccount(email: string): Promise<string>;
  /** The onboarding link for an account (single-use, short-lived, as Stripe makes it). */
  accountLink(account: string, refreshUrl: string, returnUrl: string): Promise<string>;
  /** Whether the account can receive payouts yet (onboarding finished). */
  payoutsEnabled(account: string): Promise<boolean>;
  transfer(t: { orderId: string; account: string; amountCents: number; chargeId: string | null }): Promise<string>;
  reverse(r: { orderId: string; transferId: string; amountCents: number }): Promise<string>;
  /** A customer portal session for the subscription's customer, where the lease is cancelled. */
  portal(subscriptionId: string, returnUrl: string): Promise<string>;
}

const upstream = (what: string, err: unknown) => new AppError("upstream_error", `The payment provider did not ${what}: ${(err as Error).message}`);

export function createStripeConnect(opts: { secretKey: string; apiUrl?: string }): StripeConnect {
  const stripe: Stripe = stripeClient(opts.secretKey, opts.apiUrl);
  return {
    async createAccount(email) {
      try {
        const a = await stripe.accounts.create({
          type: "express", email, country: "US", capabilities: { transfers: { requested: true } },
          business_profile: { product_description: "Operates a town's citydaily newsletter" },
        }, { idempotencyKey: `connect-account-${email.toLowerCase()}` });
        return a.id;
      } catch (err) {
        throw upstream("create the payout account", err);
      }
    },
    async accountLink(account, refreshUrl, returnUrl) {
      try {
        const link = await stripe.accountLinks.create({ account, refresh_url: refreshUrl, return_url: returnUrl, type: "account_onboarding" });
        return link.url;
      } catch (err) {
        throw upstream("open the payout account's onboarding", err);
      }
    },
    async payoutsEnabled(account) {
      try {
        const a = await stripe.accounts.retrieve(account);
        return a.payouts_enabled === true && a.details_submitted === true;
      } catch (err) {
        throw upstream("read the payout account", err);
      }
    },
    async transfer(t) {
      const t2 = await stripe.transfers.create({
        amount: t.amountCents, currency: "usd", destination: t.account, transfer_group: t.orderId,
        ...(t.chargeId ? { source_transaction: t.chargeId } : {}), metadata: { order_id: t.orderId },
      }, { idempotencyKey: `transfer-${t.orderId}` });
      return t2.id;
    },
    async reverse(r) {
      const rev = await stripe.transfers.createReversal(r.transferId, { amount: r.amountCents, metadata: { order_id: r.orderId } }, { idempotencyKey: `transfer-reversal-${r.orderId}` });
      return rev.id;
    },
    async portal(subscriptionId, returnUrl) {
      try {
        const sub = await stripe.subscriptions.retrieve(subscriptionId);
        const customer = typeof sub.customer === "string" ? sub.customer : sub.customer.id;
        const session = await stripe.billingPortal.sessions.create({ customer, return_url: returnUrl });
        return session.url;
      } catch (err) {
        throw upstream("open the billing portal", err);
      }
    },
  };
}
