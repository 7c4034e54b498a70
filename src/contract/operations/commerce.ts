import {
  BusinessCheckoutRequest, CheckoutResponse, EventCheckoutRequest, ListingOrder, ListingOrderQuery, ListingQuoteQuery,
  ListingQuoteResponse, OperatorActionRequest, OperatorActionResponse, PricingResponse, TerritoriesQuery, TerritoriesResponse,
} from "../commerce.ts";
import { CACHE, IDEMPOTENCY_HTTP, READ_ONLY, type Operation } from "../operation.ts";
import { statusDocumentation } from "../order-status.ts";

// Writes create an order and a payment link at the payment provider: not read-only, not
// destructive, not idempotent (each call is a new order), open world (the provider).
const PURCHASE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;

const CHECKOUT_ANSWER = [
  "HTTP 200 with exactly one of: `checkoutUrl` (a paid tier that passed the screen: a person opens it and pays), `rejected` (`{rule, reason, field}`: the screen refused it, no payment link, nothing charged), `held` (a person looks before a payment link is issued), `queued` (free tier, waiting for a person's approval). A rejection is a successful request: branch on which field is present. Every answer carries `orderId` and `statusUrl`; poll `GET /api/listing-order?id=` until `published` is true (a paid order is published within seconds of the payment callback).",
  "",
  "The compliance screen runs inside the request against the listing policy (`policy` in /api/pricing): adult content, weapons, drugs, gambling, scams, hate, political ads, events outside the U.S. or in the past, non-http(s) or shortened URLs and disposable buyer emails are rejected; health claims, text in capitals and links to domains seen in rejected orders are held for a person.",
  "",
  "Which towns take listings: one that has a newsletter (a subscriber or an edition) or an operator (an active lease), as `selling` in /api/listing-quote says; a leased town's listings run from its first edition. Unknown slug: `404 city_not_found` (`reason: unknown_place`); a real town that takes none yet: `409 conflict` with `reason: not_selling` and the town in `place` (subscribing to it starts its newsletter; leasing it gives it an operator).",
  "",
  "Rate limit: shared with the other purchase endpoints, a burst of 10 per client address then one a minute (`429 rate_limited` with `Retry-After`). No key or account: the buyer identifies themselves on the payment page.",
  "",
  IDEMPOTENCY_HTTP,
].join("\n");

export const commerceOperations = {
  getPricing: {
    operationId: "getPricing", method: "GET", path: "/api/pricing", tags: ["Listings"],
    summary: "The whole price list: listing tiers and the town lease formula",
    description: "Event and business tiers (`free` reviewed by a person, `standard` 10 dollars, `featured` 25 dollars; one-off payments) with their `id` (the `tier` the checkout endpoints take), price in cents and what they include; the monthly town lease formula (10 dollars for the first 1,000 subscribers plus 5 dollars for each further started 1,000) and the operator's share (half the net of each listing sold in the town).",
    response: PricingResponse,
    errors: [],
    cache: CACHE.cities,
    mcp: {
      tool: "get_listing_prices", title: "Listing and lease prices", annotations: READ_ONLY,
      description: "The price list, the same for every town: the listing tiers (each `id` is a `tier` the listing tools take), the monthly lease formula and the listing `policy` every listing is screened against.",
    },
  },
  getListingQuote: {
    operationId: "getListingQuote", method: "GET", path: "/api/listing-quote", tags: ["Listings"],
    summary: "A town's listing prices and whether it sells listings now",
    description: "A town sells listings once it has a newsletter (an active subscriber or a published edition) or an operator (an active lease); a leased town's listings run from its first edition. Any U.S. place can be quoted. Unknown slug: `404 city_not_found`; malformed: `400 invalid_slug`. Not an MCP tool (get_listing_prices covers the prices).",
    query: ListingQuoteQuery,
    response: ListingQuoteResponse,
    errors: ["invalid_slug", "city_not_found", "validation_error"],
    cache: CACHE.live,
  },
  getTerritories: {
    operationId: "getTerritories", method: "GET", path: "/api/territories", tags: ["Town leases"],
    summary: "Town lease quotes and the towns already leased",
    description: [
      "No parameters: `claimed` and `claimedCount` (never who holds a town). `city` + `state`: `quote` for that place (any U.S. place of the dataset). `slugs` (comma-separated, at most 30 entries and 4,000 characters): `quotes`, one per slug, in order. `claimed`/`claimedCount` are in every answer.",
      "",
      "Pricing: monthly price = 10 dollars + 5 dollars x (tier - 1), where tier = max(1, ceil(subscribers / 1000)): 0-1,000 subscribers is tier 1, 1,001-2,000 tier 2. `subscribersToNextTier` is how many more subscribers raise the price. `available` is false while the town is leased or reserved by a checkout in progress.",
      "",
      "Errors: only one of `city`/`state`, more than 30 slugs, too-long values, a malformed slug or an unknown state: `400 validation_error` with `issues[]` naming the field. A `city`+`state` or slug that names no U.S. place: `404 city_not_found`.",
    ].join("\n"),
    query: TerritoriesQuery,
    response: TerritoriesResponse,
    errors: ["validation_error", "city_not_found"],
    cache: CACHE.live,
    mcp: {
      tool: "get_town_quote", title: "Town lease quote", annotations: READ_ONLY,
      description: "What leasing a town costs a month: the `quote` for `city` and `state`, `quotes` for up to 30 comma-separated `slugs`, or with no arguments the towns already taken (`claimed`).",
    },
  },
  createListingCheckout: {
    operationId: "createListingCheckout", method: "POST", idempotent: true, path: "/api/listing-checkout", tags: ["Listings"],
    summary: "Screen an event listing and get its payment link",
    description: `Events on the town's public calendar; \`featured\` events also appear in the daily email.\n\n${CHECKOUT_ANSWER}`,
    body: EventCheckoutRequest,
    response: CheckoutResponse,
    errors: ["validation_error", "invalid_json", "payload_too_large", "invalid_slug", "city_not_found", "conflict", "rate_limited", "upstream_error"],
    cache: CACHE.none,
    rateLimit: "checkout",
    mcp: {
      tool: "create_event_listing", title: "Create an event listing (returns a payment link)", annotations: PURCHASE,
      description: "Writes: screens an event for a town's public calendar (precondition: the town must sell listings, find_place's `sellsListings`, else the tool error `conflict` with `reason: not_selling`) and answers one of `checkoutUrl` for the buyer to pay, `rejected`, `held` or `queued`, with the `orderId` for get_listing_order; ask the buyer for every field and pass an `idempotencyKey` to retry safely.",
    },
  },
  createBusinessCheckout: {
    operationId: "createBusinessCheckout", method: "POST", idempotent: true, path: "/api/business-checkout", tags: ["Listings"],
    summary: "Screen a business directory listing and get its payment link",
    description: `Businesses in the town's directory for 30 days from payment (from approval for the free tier); \`featured\` ones get a weekly mention in the daily email.\n\n${CHECKOUT_ANSWER}`,
    body: BusinessCheckoutRequest,
    response: CheckoutResponse,
    errors: ["validation_error", "invalid_json", "payload_too_large", "invalid_slug", "city_not_found", "conflict", "rate_limited", "upstream_error"],
    cache: CACHE.none,
    rateLimit: "checkout",
    mcp: {
      tool: "create_business_listing", title: "Create a business listing (returns a payment link)", annotations: PURCHASE,
      description: "Writes: screens a business for a town's directory for 30 days (precondition: the town must sell listings, find_place's `sellsListings`, else the tool error `conflict` with `reason: not_selling`) and answers one of `checkoutUrl` for the buyer to pay, `rejected`, `held` or `queued`, with the `orderId` for get_listing_order; ask the buyer for every field and pass an `idempotencyKey` to retry safely.",
    },
  },
  operatorAction: {
    operationId: "operatorAction", method: "POST", idempotent: true, path: "/api/operator-actions", tags: ["Town leases"],
    summary: "Reserve a town and get the payment link for its monthly lease",
    description: "`action: guest-checkout` with `city` and `state` (and, optionally, `email`: who the hold is for, prefilled on the payment page): reserves the town for the reservation window (30 minutes by default, `RESERVATION_MINUTES`) and returns the payment link of the monthly lease. The email entered on the payment page becomes the operator account; the lease activates on the payment callback. A town already leased, or reserved by another checkout that has not expired: `409 conflict`. An expired reservation frees the town. Of buyers racing for one town exactly one gets a link. One client (its address) holds at most 3 unpaid reservations at once: the next is `429 rate_limited` with `Retry-After`, the seconds until its earliest reservation lapses. Unknown place: `404 city_not_found`; unknown state: `400 validation_error`.\n\n" + IDEMPOTENCY_HTTP,
    body: OperatorActionRequest,
    response: OperatorActionResponse,
    errors: ["validation_error", "invalid_json", "payload_too_large", "city_not_found", "conflict", "rate_limited", "upstream_error"],
    cache: CACHE.none,
    rateLimit: "checkout",
    mcp: {
      tool: "start_town_checkout", title: "Reserve a town and get its lease payment link", annotations: PURCHASE,
      description: "Writes: reserves a town (`action: \"guest-checkout\"`, `city`, `state`; an optional `email` prefills the payment page, where the email the buyer enters becomes the operator account) for a short window and answers the payment link of its monthly lease (get_town_quote gives the price first; pass an `idempotencyKey` to retry safely).",
    },
  },
  getListingOrder: {
    operationId: "getListingOrder", method: "GET", path: "/api/listing-order", tags: ["Listings"],
    summary: "A listing order's status",
    description: `\`status\`, \`published\` and what a buyer needs: product, tier, town, title, dates, the payment link while payable, the reason when rejected. Malformed id: \`400 validation_error\`; unknown: \`404 not_found\`.\n\n${statusDocumentation()}`,
    query: ListingOrderQuery,
    response: ListingOrder,
    errors: ["validation_error", "not_found"],
    cache: CACHE.none,
    mcp: {
      tool: "get_listing_order", title: "Listing order status", annotations: READ_ONLY, ui: "ui://citydaily/listing-order.html",
      description: "A listing order by `id` (the `orderId` a listing tool answered): its `status`, whether it is `published`, its payment link while payable and the reason when rejected.",
    },
  },
} satisfies Record<string, Operation>;
