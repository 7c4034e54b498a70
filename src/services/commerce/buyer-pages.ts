import fs from "node:fs";
import path from "node:path";
import { Marked } from "marked";
import { PROJECT_ROOT } from "../../config/paths.ts";
import type { ListingOrder } from "../../contract/commerce.ts";
import type { LimiterName } from "../../contract/operation.ts";
import { AppError } from "../../core/errors.ts";
import type { CheckoutPageView, ListingPolicyView, OrderPageView, PurchasePageView } from "../../site/pages/commerce.ts";
import { findLease, leaseAsOf } from "../../store/commerce/leases.ts";
import { findOrder } from "../../store/commerce/orders.ts";
import type { AppContext } from "../platform/context.ts";
import { takeToken } from "../platform/limits.ts";
import { listingNumbers, listingNumbersCsv } from "../readers/clicks.ts";
import { getListingOrder } from "./orders.ts";
import { handlePaymentCallback } from "./payments.ts";

// What the buyer's pages show (api/routes/commerce/: order-page.ts, checkout-pages.ts): one function
// per page or post, each answering the page's view (src/site/pages/commerce.ts) or where to go.

export const ORDER_ID = /^lo_[0-9a-f-]{36}$/;
export const LEASE_ID = /^tl_[0-9a-f-]{36}$/;
export const SESSION_ID = /^cs_local_[0-9a-f-]{36}$/;

/** An operation's rate limit, taken as the API takes it (src/services/operations/bindings.ts `admit`). */
export function admit(ctx: AppContext, limit: LimiterName | undefined, clientAddress: string): void {
  if (limit) takeToken(ctx.limits, limit, clientAddress);
}

/** Seconds between reloads while the status may change by itself (a payment lands in seconds; a person's look takes longer). */
const REFRESH: Partial<Record<ListingOrder["status"], number>> = { pending_payment: 30, paid: 5, held: 60, awaiting_review: 60 };

/** The order page's view, or undefined for an order nobody has. */
export function orderPage(ctx: AppContext, id: string, asked: { cancelled: boolean; updating: boolean }): OrderPageView | undefined {
  let order: ListingOrder;
  try {
    order = getListingOrder(ctx, id);
  } catch (err) {
    if (err instanceof AppError && err.code === "not_found") return undefined;
    throw err;
  }
  // The link's deadline on the town's clock (the contract's order has no zone: the stored order's place has).
  const timezone = order.status === "pending_payment" && order.checkoutExpiresAt ? findOrder(ctx.db, order.id)?.timezone : undefined;
  const numbers = order.status === "published" || order.status === "ended" ? listingNumbers(ctx, order.id) : undefined;
  return { order, timezone, checkoutHours: ctx.config.listingCheckoutHours, ...asked, refreshSeconds: REFRESH[order.status], numbers };
}

/** A published listing's numbers as CSV; undefined before it has any. */
export function orderNumbersCsv(ctx: AppContext, id: string): string | undefined {
  const n = listingNumbers(ctx, id);
  return n && listingNumbersCsv(n);
}

/** The listing policy for people: content/listing-policy.md without its title (the page has it). */
export function listingPolicy(): ListingPolicyView {
  const markdown = fs.readFileSync(path.join(PROJECT_ROOT, "content/listing-policy.md"), "utf8").replace(/^# .*\n/, "");
  return { html: new Marked().parse(markdown, { async: false }) };
}

/** The zone of the town a checkout is for, by its reference: a town lease or a listing order. */
function zoneOf(ctx: AppContext, reference: string): string | undefined {
  if (LEASE_ID.test(reference)) return findLease(ctx.db, reference)?.timezone;
  if (ORDER_ID.test(reference)) return findOrder(ctx.db, reference)?.timezone;
  return undefined;
}

const sessionOf = (ctx: AppContext, id: string) => (SESSION_ID.test(id) ? ctx.payments.hosted?.session(id) : undefined);

/** The local provider's hosted checkout page; undefined for a link that is not one. */
export function hostedCheckout(ctx: AppContext, id: string): CheckoutPageView | undefined {
  const s = sessionOf(ctx, id);
  if (!s) return undefined;
  if (s.status === "complete") return { state: "complete", description: s.description, successUrl: s.successUrl };
  if (s.status !== "open") return { state: "expired", description: s.description };
  return {
    state: "open", id: s.id, description: s.description, amountCents: s.amountCents, subscription: s.mode === "subscription",
    email: s.email, expiresAt: s.expiresAt, timezone: zoneOf(ctx, s.reference),
  };
}

/**
 * Pay pressed on the hosted checkout: emits the signed callback (verified like Stripe's) and applies
 * it; answers where to go next (the success page, or the checkout again when it cannot be paid).
 */
export async function payHostedCheckout(ctx: AppContext, id: string, email: string | null): Promise<{ to: string } | { view: CheckoutPageView } | undefined> {
  const h = ctx.payments.hosted;
  const s = sessionOf(ctx, id);
  if (!h || !s) return undefined;
  const address = (email ?? s.email).trim().slice(0, 254);
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(address)) return { view: { state: "bad-email", id: s.id } };
  const callback = h.pay(id, address);
  if (!callback) return { to: `/checkout/${s.id}` };
  await handlePaymentCallback(ctx, callback.rawBody, callback.headers);
  return { to: s.successUrl };
}

/** Cancel pressed on the hosted checkout: the cancel page (the link stays open until it expires). */
export function cancelHostedCheckout(ctx: AppContext, id: string): string | undefined {
  return sessionOf(ctx, id)?.cancelUrl;
}

/**
 * A checkout's success or cancel page: a listing order's leads to the order's own page (links issued
 * before it existed too), a lease's is its page here; undefined for neither.
 */
export function purchaseResult(ctx: AppContext, ref: { order: string; lease: string }, paid: boolean): { to: string } | { view: PurchasePageView } | undefined {
  if (ORDER_ID.test(ref.order)) return { to: `/orders/${ref.order}${paid ? "" : "?checkout=cancelled"}` };
  // As of now (a lapsed reservation reads expired before the sweep stores it): reads never write.
  const l = LEASE_ID.test(ref.lease) ? leaseAsOf(ctx.db, ref.lease, ctx.config.now().toISOString()) : undefined;
  if (!l) return undefined;
  return { view: { paid, town: l.town_name, state: l.state_name, status: l.status, reservedUntil: l.reserved_until, timezone: l.timezone } };
}
