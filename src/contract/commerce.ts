import { z } from "zod";
import { Slug } from "./common.ts";

// Request and response shapes of the buying flow (spec sections 2-4). Money is integer cents (USD).

const Cents = z.int().min(0).meta({ description: "Amount in U.S. cents (integer)" });
export const ListingTierId = z.enum(["free", "standard", "featured"]).meta({
  id: "ListingTierId",
  description: "`free` (a person approves it before it is published), `standard` (10 dollars, one-off), `featured` (25 dollars, one-off)",
});

export const ListingTier = z.object({
  id: ListingTierId,
  name: z.string(),
  priceCents: Cents,
  currency: z.literal("usd"),
  payment: z.enum(["none", "one-off"]).meta({ description: "Listings are never subscriptions" }),
  reviewedByPerson: z.boolean().meta({ description: "True for the free tier: it is published only after a person approves it" }),
  includes: z.array(z.string()).meta({ description: "What the tier includes, in plain words" }),
  runDays: z.int().optional().meta({ description: "Businesses: how many days the listing runs from payment" }),
}).meta({ id: "ListingTier" });

export const LeasePricing = z.object({
  interval: z.literal("month"),
  currency: z.literal("usd"),
  baseCents: Cents.meta({ description: "Monthly price covering the first 1,000 subscribers" }),
  stepCents: Cents.meta({ description: "Added for each further started 1,000 subscribers" }),
  stepSubscribers: z.int(),
  formula: z.string(),
  boundaryRule: z.string(),
  operatorShare: z.string(),
  reservationMinutes: z.int().meta({ description: "How long a guest checkout holds the town" }),
}).meta({ id: "LeasePricing" });

export const PricingResponse = z.object({
  currency: z.literal("usd"),
  event: z.array(ListingTier).meta({ description: "Event listing tiers (their `id` is the `tier` of an event listing)" }),
  business: z.array(ListingTier).meta({ description: "Business directory tiers (their `id` is the `tier` of a business listing)" }),
  lease: LeasePricing,
  policy: z.url().meta({ description: "The listing policy every listing is screened against" }),
}).meta({ id: "PricingResponse" });

export const ListingQuoteQuery = z.object({
  slug: z.string().meta({ description: "City slug, e.g. `st-louis-missouri`" }),
});

export const ListingQuoteResponse = z.object({
  slug: Slug,
  city: z.string(),
  state: z.string(),
  selling: z.boolean().meta({ description: "Whether the town sells listings now: it has a newsletter (a subscriber or an edition) or an operator (an active lease). The listing checkouts follow the same rule (`409 conflict` otherwise)" }),
  reason: z.string().optional().meta({ description: "Why the town does not sell listings, when `selling` is false" }),
  event: z.array(ListingTier),
  business: z.array(ListingTier),
}).meta({ id: "ListingQuoteResponse" });

export const TerritoriesQuery = z.object({
  city: z.string().max(120).optional().meta({ description: "Place name; needs `state`" }),
  state: z.string().max(60).optional().meta({ description: "Full state name; needs `city`" }),
  slugs: z.string().max(4000).optional().meta({ description: "Comma-separated slugs, at most 30" }),
});

const QuoteFields = {
  slug: Slug,
  available: z.boolean().meta({ description: "False while the town is leased or reserved by a checkout in progress" }),
  subscribers: z.int(),
  tier: z.int().meta({ description: "Tier n covers up to n x 1,000 subscribers inclusive (1,000 is tier 1, 1,001 tier 2)" }),
  priceCents: Cents.meta({ description: "Monthly price in cents" }),
  subscribersToNextTier: z.int(),
  nextTierPriceCents: Cents,
};
export const Quote = z.object({ ...QuoteFields, city: z.string(), state: z.string() }).meta({ id: "Quote" });
export const BatchQuote = z.object(QuoteFields).meta({ id: "BatchQuote" });

export const TerritoriesResponse = z.object({
  quote: Quote.optional().meta({ description: "`city` + `state` mode" }),
  quotes: z.array(BatchQuote).optional().meta({ description: "`slugs` mode: one per slug, in order" }),
  claimedCount: z.int(),
  claimed: z.array(z.object({ slug: Slug, city: z.string(), state: z.string() })).meta({ description: "Leased towns (never who holds them)" }),
}).meta({ id: "TerritoriesResponse" });

const DATE_OR_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$/;
const DateOrDateTime = z.string().max(40).refine(
  (s) => DATE_OR_DATE_TIME.test(s) && !Number.isNaN(Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s)) && new Date(`${s.slice(0, 10)}T00:00:00Z`).toISOString().startsWith(s.slice(0, 10)),
  "must be a real date, YYYY-MM-DD or an ISO date-time",
);

const common = {
  slug: z.string().max(130).meta({ description: "The town, e.g. `st-louis-missouri`" }),
  tier: ListingTierId,
  description: z.string().trim().min(1).max(1000),
  url: z.string().trim().min(1).max(2000).meta({ description: "The listing's web page: a full http(s) address (not a shortened link)" }),
  buyerEmail: z.email().max(254).meta({ description: "Where the receipt and status emails go; prefilled on the payment page" }),
};

export const EventCheckoutRequest = z.object({
  ...common,
  title: z.string().trim().min(1).max(120).meta({ description: "The event's name" }),
  startsAt: DateOrDateTime.meta({ description: "Start: YYYY-MM-DD or an ISO date-time (local to the town when no offset is given)" }),
  endsAt: DateOrDateTime.optional().meta({ description: "End, same format; defaults to the start day" }),
  venue: z.string().trim().max(200).optional().meta({ description: "Where in town it happens" }),
}).meta({ id: "EventCheckoutRequest" });

export const BusinessCheckoutRequest = z.object({
  ...common,
  title: z.string().trim().min(1).max(120).meta({ description: "The business's name" }),
  address: z.string().trim().min(1).max(200).meta({ description: "Street address or area of town" }),
  category: z.string().trim().min(1).max(60).meta({ description: "What kind of business, e.g. `Bakery`" }),
}).meta({ id: "BusinessCheckoutRequest" });

export const Rejection = z.object({
  rule: z.string().meta({ description: "Id of the policy rule (see `policy` in the price list)" }),
  reason: z.string().meta({ description: "Human reason" }),
  field: z.string().optional().meta({ description: "The field the rule matched" }),
}).meta({ id: "Rejection" });

export const CheckoutResponse = z.object({
  orderId: z.string().meta({ description: "`lo_` followed by a UUID" }),
  status: z.string().meta({ description: "The order's status (the statuses of a listing order)" }),
  statusUrl: z.url().meta({ description: "Where the order's status is read until `published` is true (the listing-order operation; over MCP, get_listing_order with `orderId`)" }),
  orderPageUrl: z.url().meta({ description: "The order's page for people (`/orders/{id}`): its status in words, updating by itself; give this to the buyer" }),
  checkoutUrl: z.url().optional().meta({ description: "Present when a paid tier passed the screen: the hosted payment page a person opens" }),
  checkoutExpiresAt: z.iso.datetime({ offset: true }).optional(),
  rejected: Rejection.optional().meta({ description: "Present when the screen refused it: no payment link, nothing charged" }),
  held: z.object({ rule: z.string(), reason: z.string(), message: z.string() }).optional()
    .meta({ description: "Present when a person must look first; a payment link follows if they release it (follow the order)" }),
  queued: z.object({ message: z.string() }).optional()
    .meta({ description: "Present for the free tier: waiting for a person's approval" }),
}).meta({ id: "CheckoutResponse", description: "A success with exactly one of `checkoutUrl`, `rejected`, `held`, `queued`" });

export const OperatorActionRequest = z.object({
  action: z.literal("guest-checkout"),
  city: z.string().trim().min(1).max(120),
  state: z.string().trim().min(1).max(60).meta({ description: "Full state name" }),
  // Optional, as the interface spec documents the body (action, city, state): the payment page asks for it.
  email: z.email().max(254).optional().meta({ description: "Optional: who the hold is for; prefills the payment page. The email entered on the payment page becomes the operator account" }),
}).meta({ id: "OperatorActionRequest" });

export const OperatorActionResponse = z.object({
  leaseId: z.string().meta({ description: "`tl_` followed by a UUID" }),
  checkoutUrl: z.url().meta({ description: "Payment link for the monthly lease" }),
  reservedUntil: z.iso.datetime({ offset: true }).meta({ description: "The town is held for this buyer until then; unpaid, it is free again" }),
  slug: Slug,
  city: z.string(),
  state: z.string(),
  priceCents: Cents.meta({ description: "Monthly price" }),
  currency: z.literal("usd"),
  interval: z.literal("month"),
}).meta({ id: "OperatorActionResponse" });

export const OrderId = z.string().regex(/^lo_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "must be lo_ followed by a lowercase UUID")
  .meta({ description: "Order id: `lo_` followed by a UUID", examples: ["lo_2f1c6b1e-8f0a-4c49-9d1e-3b8f6f0d2a11"] });

export const ListingOrderQuery = z.object({ id: OrderId });

export const ListingOrder = z.object({
  id: z.string(),
  status: z.enum(["awaiting_review", "held", "pending_payment", "paid", "published", "rejected", "expired", "ended", "refunded"]),
  published: z.boolean().meta({ description: "True while the listing is live" }),
  product: z.enum(["event", "business"]),
  tier: ListingTierId,
  priceCents: Cents,
  currency: z.literal("usd"),
  town: z.object({ slug: Slug, city: z.string(), state: z.string() }),
  title: z.string(),
  description: z.string(),
  url: z.string(),
  startsAt: z.string().optional(),
  endsAt: z.string().optional(),
  venue: z.string().optional(),
  address: z.string().optional(),
  category: z.string().optional(),
  checkoutUrl: z.url().optional().meta({ description: "While the order is payable (`pending_payment`)" }),
  checkoutExpiresAt: z.iso.datetime({ offset: true }).optional(),
  rejected: Rejection.optional().meta({ description: "When `rejected`" }),
  held: z.object({ rule: z.string(), reason: z.string() }).optional().meta({ description: "When `held`" }),
  paidAt: z.iso.datetime({ offset: true }).optional(),
  publishedAt: z.iso.datetime({ offset: true }).optional(),
  runEndsAt: z.iso.datetime({ offset: true }).optional().meta({ description: "Businesses: when the 30-day run ends" }),
  createdAt: z.iso.datetime({ offset: true }),
  statusUrl: z.url(),
  orderPageUrl: z.url().meta({ description: "The order's page for people (`/orders/{id}`)" }),
}).meta({ id: "ListingOrder" });

export const AdminOrder = ListingOrder.extend({
  buyerEmail: z.string(),
  rule: z.string().nullable(),
  reason: z.string().nullable(),
  feeCents: z.int().nullable(),
  provider: z.string().nullable(),
  decisions: z.array(z.object({
    decision: z.enum(["approved", "released", "rejected"]),
    reason: z.string().nullable(),
    byRole: z.enum(["staff", "operator"]),
    byWho: z.string().meta({ description: "The operator's email, or the staff channel (`cli`, `http`)" }),
    createdAt: z.string(),
  })).meta({ description: "Every person's decision on the listing, oldest first: staff (admin CLI and endpoints) or the town's operator (the desk)" }),
}).meta({ id: "AdminOrder" });

export const AdminOrderListQuery = z.object({
  status: z.enum(["awaiting_review", "held", "pending_payment", "paid", "published", "rejected", "expired", "ended", "refunded"]).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});
export const AdminOrderList = z.object({ orders: z.array(AdminOrder) });
export const AdminOrderParams = z.object({ id: OrderId });
export const AdminRejectBody = z.object({ reason: z.string().trim().min(1).max(500) });

/** A town lease as staff see it (`/admin/leases`): who runs the town, since when, until when. */
export const AdminLease = z.object({
  id: z.string().meta({ description: "`tl_` followed by a UUID" }),
  town: z.object({ slug: Slug, city: z.string(), state: z.string() }),
  status: z.enum(["reserved", "active", "expired", "ended"]),
  operatorEmail: z.string().nullable(),
  priceCents: Cents,
  provider: z.string().nullable().meta({ description: "`stripe` or `local`; a Stripe lease ends when its subscription does" }),
  activatedAt: z.string().nullable(),
  cancelAt: z.string().nullable().meta({ description: "Cancelled by its operator: it ends then" }),
  endedAt: z.string().nullable(),
}).meta({ id: "AdminLease" });
export const AdminLeaseListQuery = z.object({ status: z.enum(["reserved", "active", "expired", "ended"]).optional() });
export const AdminLeaseList = z.object({ leases: z.array(AdminLease) });
export const AdminLeaseParams = z.object({ id: z.string().regex(/^tl_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "must be tl_ followed by a lowercase UUID") });

export type PricingResponse = z.infer<typeof PricingResponse>;
export type ListingTier = z.infer<typeof ListingTier>;
export type TerritoriesResponse = z.infer<typeof TerritoriesResponse>;
export type Quote = z.infer<typeof Quote>;
export type EventCheckoutRequest = z.infer<typeof EventCheckoutRequest>;
export type BusinessCheckoutRequest = z.infer<typeof BusinessCheckoutRequest>;
export type CheckoutResponse = z.infer<typeof CheckoutResponse>;
export type OperatorActionRequest = z.infer<typeof OperatorActionRequest>;
export type OperatorActionResponse = z.infer<typeof OperatorActionResponse>;
export type ListingOrder = z.infer<typeof ListingOrder>;
export type AdminOrder = z.infer<typeof AdminOrder>;
export type AdminLease = z.infer<typeof AdminLease>;
