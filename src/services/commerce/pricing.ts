import type { ListingTier, PricingResponse } from "../../contract/commerce.ts";
import { BUSINESS_RUN_DAYS, LEASE_BASE_CENTS, LEASE_STEP_CENTS, LEASE_STEP_SUBSCRIBERS, LISTING_TIERS, type ListingProduct } from "../../core/commerce/pricing.ts";
import { AppError } from "../../core/errors.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { HOW_SELLING_STARTS, problemPlace, requireTown, sellsListings } from "../places/cities.ts";
import type { AppContext } from "../platform/context.ts";

const INCLUDES: Record<ListingProduct, Record<string, string[]>> = {
  event: {
    free: ["On the town's public calendar (its web page, and the data apps and assistants read)", "Published after a person approves it"],
    standard: ["On the town's public calendar (its web page, and the data apps and assistants read)", "Published within seconds of payment"],
    featured: ["On the town's public calendar, marked featured and listed first on its day", "Appears in the town's daily email in the week before it", "Published within seconds of payment"],
  },
  business: {
    free: [`In the town's directory for ${BUSINESS_RUN_DAYS} days from approval`, "Published after a person approves it"],
    standard: [`In the town's directory for ${BUSINESS_RUN_DAYS} days from payment`],
    featured: [`In the town's directory for ${BUSINESS_RUN_DAYS} days from payment, listed first`, "A mention in the town's daily email once a week"],
  },
};

export function listingTiers(product: ListingProduct): ListingTier[] {
  return LISTING_TIERS.map((t) => ({
    id: t.id, name: t.name, priceCents: t.priceCents, currency: "usd" as const, payment: t.priceCents === 0 ? "none" as const : "one-off" as const,
    reviewedByPerson: t.reviewed, includes: INCLUDES[product][t.id], ...(product === "business" ? { runDays: BUSINESS_RUN_DAYS } : {}),
  }));
}

export function getPricing(ctx: AppContext): PricingResponse {
  return {
    currency: "usd",
    event: listingTiers("event"),
    business: listingTiers("business"),
    lease: {
      interval: "month", currency: "usd", baseCents: LEASE_BASE_CENTS, stepCents: LEASE_STEP_CENTS, stepSubscribers: LEASE_STEP_SUBSCRIBERS,
      formula: "monthly price = 1000 + 500 x (tier - 1) cents, tier = max(1, ceil(subscribers / 1000)): 10 dollars for the first 1,000 subscribers plus 5 dollars for each further started 1,000",
      boundaryRule: "tier n covers up to n x 1,000 subscribers inclusive: 1,000 subscribers is tier 1 (10 dollars), 1,001 is tier 2 (15 dollars)",
      operatorShare: "The operator receives half the net of every listing sold in their town: (price - payment fee) / 2, rounded down to the cent; reversed if the listing is refunded. The fee is the one Stripe reports (standard U.S. card fee, 2.9% + 30 cents, in local mode).",
      reservationMinutes: ctx.config.reservationMinutes,
    },
    policy: `${ctx.config.baseUrl}/listing-policy`,
  };
}

function notSellingReason(place: PlaceRow): string {
  return `${place.name}, ${place.state_name} has no newsletter yet: it takes listings once it has its first subscriber or an operator leases it.`;
}

/**
 * The town of a listing checkout: an unknown slug is `city_not_found`; a real place that does not take
 * listings yet is `409 conflict` (the request is well-formed; the town's state refuses it until then).
 */
export function requireSellingTown(ctx: AppContext, slug: string): PlaceRow {
  const place = requireTown(ctx, slug);
  if (!sellsListings(ctx, place)) {
    throw new AppError("conflict", `${notSellingReason(place)} Subscribing to it (POST /api/subscribe) starts its newsletter; leasing it (POST /api/operator-actions) gives it an operator.`, {
      extra: { reason: "not_selling", place: problemPlace(ctx, place), howToStart: HOW_SELLING_STARTS },
      mcpDetail: `${place.name}, ${place.state_name} does not sell listings yet: a town takes listings once it has a newsletter (its first subscriber) or an operator (a lease). subscribe_city with slug "${place.slug}" starts its newsletter, but only for the address of a reader who asked to subscribe themselves (never the buyer's unless they ask, never an invented one); start_town_checkout leases the town. Until then no listing can be bought there.`,
    });
  }
  return place;
}

export function getListingQuote(ctx: AppContext, slug: string) {
  const place = requireTown(ctx, slug);
  const selling = sellsListings(ctx, place);
  return {
    slug: place.slug, city: place.name, state: place.state_name, selling,
    ...(selling ? {} : { reason: notSellingReason(place) }),
    event: listingTiers("event"),
    business: listingTiers("business"),
  };
}
