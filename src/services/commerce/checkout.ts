import crypto from "node:crypto";
import type { BusinessCheckoutRequest, CheckoutResponse, EventCheckoutRequest } from "../../contract/commerce.ts";
import { reputationDomain, screenListing, urlHost, type ScreenInput } from "../../core/mail/compliance.ts";
import { isDisposableEmail } from "../../core/mail/disposable-email.ts";
import { AppError } from "../../core/errors.ts";
import { listingPriceCents, type ListingProduct } from "../../core/commerce/pricing.ts";
import { findOrder, domainRejectedInTown, insertOrder, setOrderCheckout, transitionOrder, type NewOrder, type OrderView } from "../../store/commerce/orders.ts";
import type { AppContext } from "../platform/context.ts";
import { orderPageUrl, statusUrl, townToday } from "./listings.ts";
import { requireSellingTown } from "./pricing.ts";

/** How long a person's rejection of a listing holds the next listing linking to the same domain in that town. */
export const REJECTED_DOMAIN_DAYS = 90;

/**
 * The listing checkouts: screen inside the request, store the order, and answer with exactly one of
 * `checkoutUrl` (paid tier, passed), `rejected`, `held`, `queued` (free tier). The API charges nobody:
 * a person pays on the hosted page.
 */
export async function createListingCheckout(ctx: AppContext, input: EventCheckoutRequest): Promise<CheckoutResponse> {
  return createCheckout(ctx, "event", input, { starts_at: input.startsAt, ends_at: input.endsAt ?? null, venue: input.venue || null, address: null, category: null });
}

export async function createBusinessCheckout(ctx: AppContext, input: BusinessCheckoutRequest): Promise<CheckoutResponse> {
  return createCheckout(ctx, "business", input, { starts_at: null, ends_at: null, venue: null, address: input.address, category: input.category });
}

type Common = { slug: string; tier: NewOrder["tier"]; title: string; description: string; url: string; buyerEmail: string };

async function createCheckout(ctx: AppContext, product: ListingProduct, input: Common, specific: Pick<NewOrder, "starts_at" | "ends_at" | "venue" | "address" | "category">): Promise<CheckoutResponse> {
  const place = requireSellingTown(ctx, input.slug);
  const now = ctx.config.now();
  const nowIso = now.toISOString();
  const host = urlHost(input.url) ?? null;
  const domain = reputationDomain(input.url);
  const screenInput: ScreenInput = {
    product, title: input.title, description: input.description, url: input.url, buyerEmail: input.buyerEmail,
    startsAt: specific.starts_at ?? undefined, endsAt: specific.ends_at ?? undefined,
    place: (specific.venue ?? specific.address) ?? undefined, category: specific.category ?? undefined,
  };
  const verdict = screenListing(screenInput, {
    today: townToday(ctx, place.timezone),
    disposableEmail: isDisposableEmail(input.buyerEmail),
    rejectedDomains: new Set(domain && domainRejectedInTown(ctx.db, domain, place.geoid, new Date(now.getTime() - REJECTED_DOMAIN_DAYS * 86_400_000).toISOString()) ? [domain] : []),
  });
  const priceCents = listingPriceCents(input.tier);
  const status = verdict.action === "reject" ? "rejected" : verdict.action === "hold" ? "held" : priceCents === 0 ? "awaiting_review" : "pending_payment";
  const id = `lo_${crypto.randomUUID()}`;
  insertOrder(ctx.db, {
    id, product, tier: input.tier, price_cents: priceCents, currency: "usd", place_geoid: place.geoid, buyer_email: input.buyerEmail,
    title: input.title, description: input.description, url: input.url, url_host: host, ...specific, status,
    rule: verdict.action === "pass" ? null : verdict.rule, reason: verdict.action === "pass" ? null : verdict.reason,
    run_ends_at: null, created_at: nowIso, updated_at: nowIso,
  });
  ctx.log.info({ orderId: id, product, tier: input.tier, status, rule: verdict.action === "pass" ? undefined : verdict.rule }, "listing order created");
  const base = { orderId: id, status, statusUrl: statusUrl(ctx, id), orderPageUrl: orderPageUrl(ctx, id) };
  if (verdict.action === "reject") return { ...base, rejected: { rule: verdict.rule, reason: verdict.reason, field: verdict.field } };
  if (verdict.action === "hold") {
    return { ...base, held: { rule: verdict.rule, reason: verdict.reason, message: "A person will look at this listing before a payment link is issued; follow the order at statusUrl." } };
  }
  if (status === "awaiting_review") return { ...base, queued: { message: "Free listings are published after a person approves them; follow the order at statusUrl." } };
  const link = await issuePaymentLink(ctx, findOrder(ctx.db, id)!);
  return { ...base, checkoutUrl: link.url, checkoutExpiresAt: link.expiresAt };
}

/**
 * Creates the provider's checkout for a payable order and stores the link. If the provider fails,
 * the order expires (no link will ever be issued for it) and the caller gets 502 `upstream_error`.
 */
export async function issuePaymentLink(ctx: AppContext, o: OrderView): Promise<{ url: string; expiresAt: string }> {
  const now = ctx.config.now();
  const what = o.product === "event" ? "Event listing" : "Business listing";
  try {
    const session = await ctx.payments.createCheckout({
      mode: "payment", reference: o.id, productName: `${what} (${o.tier}) in ${o.town_name}, ${o.state_name}`, description: o.title,
      amountCents: o.price_cents, currency: "usd", customerEmail: o.buyer_email,
      successUrl: orderPageUrl(ctx, o.id), cancelUrl: `${orderPageUrl(ctx, o.id)}?checkout=cancelled`,
      expiresAt: new Date(now.getTime() + ctx.config.listingCheckoutHours * 3600_000),
    });
    const expiresAt = session.expiresAt.toISOString();
    setOrderCheckout(ctx.db, o.id, { provider: ctx.payments.name, sessionId: session.sessionId, url: session.url, expiresAt }, now.toISOString());
    return { url: session.url, expiresAt };
  } catch (err) {
    transitionOrder(ctx.db, o.id, ["pending_payment"], "expired", { reason: "the payment provider could not create a checkout" }, now.toISOString());
    if (err instanceof AppError) throw err;
    throw new AppError("upstream_error", `The payment provider did not create the checkout: ${(err as Error).message}`);
  }
}
