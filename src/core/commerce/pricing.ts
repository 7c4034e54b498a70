/**
 * Prices, in integer cents (never floats), and the rules derived from them: the listing tiers, the
 * town lease formula, the payment fee assumed in local mode and the operator's share.
 */

export const CURRENCY = "usd";

export type ListingTier = "free" | "standard" | "featured";
export type ListingProduct = "event" | "business";

export const LISTING_TIERS: ReadonlyArray<{ id: ListingTier; priceCents: number; name: string; reviewed: boolean }> = [
  { id: "free", priceCents: 0, name: "Free", reviewed: true },
  { id: "standard", priceCents: 1000, name: "Standard", reviewed: false },
  { id: "featured", priceCents: 2500, name: "Featured", reviewed: false },
];

export function listingPriceCents(tier: ListingTier): number {
  return LISTING_TIERS.find((t) => t.id === tier)!.priceCents;
}

/** A business listing runs this many days from the moment its payment clears (or its approval, when free). */
export const BUSINESS_RUN_DAYS = 30;

/** Lease formula: 10 dollars a month covers the first 1,000 subscribers; each further started 1,000 adds 5 dollars. */
export const LEASE_BASE_CENTS = 1000;
export const LEASE_STEP_CENTS = 500;
export const LEASE_STEP_SUBSCRIBERS = 1000;

export interface LeaseQuote {
  tier: number;
  priceCents: number;
  /** How many more subscribers move the town into the next tier. */
  subscribersToNextTier: number;
  nextTierPriceCents: number;
}

/**
 * The monthly lease price of a town from its active subscriber count. Boundary rule: tier n covers
 * up to n x 1,000 subscribers inclusive, so 0-1,000 subscribers is tier 1 (10 dollars), 1,001-2,000
 * tier 2 (15 dollars), 2,001-3,000 tier 3 (20 dollars). At exactly 1,000 the town is still tier 1 and
 * one more subscriber moves it up (`subscribersToNextTier` = 1).
 */
export function leaseQuote(subscribers: number): LeaseQuote {
  if (!Number.isInteger(subscribers) || subscribers < 0) throw new RangeError(`subscriber count must be a non-negative integer, got ${subscribers}`);
  const tier = Math.max(1, Math.ceil(subscribers / LEASE_STEP_SUBSCRIBERS));
  const priceCents = LEASE_BASE_CENTS + (tier - 1) * LEASE_STEP_CENTS;
  return {
    tier,
    priceCents,
    subscribersToNextTier: tier * LEASE_STEP_SUBSCRIBERS + 1 - subscribers,
    nextTierPriceCents: priceCents + LEASE_STEP_CENTS,
  };
}

/**
 * Stripe's published standard fee for U.S. cards (2.9% + 30 cents), used as the payment fee in local
 * mode (Stripe mode uses the fee Stripe reports). Rounded half up to the cent, in integers.
 */
export function standardCardFeeCents(amountCents: number): number {
  if (amountCents <= 0) return 0;
  return Math.floor((amountCents * 29 + 500) / 1000) + 30;
}

/**
 * The operator's share of a listing sold in their town: half the net (price minus the payment fee),
 * rounded down to the cent (the odd cent stays with citydaily). Never negative.
 */
export function operatorShareCents(grossCents: number, feeCents: number): number {
  return Math.max(0, Math.floor((grossCents - feeCents) / 2));
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
