import crypto from "node:crypto";
import type { OperatorActionRequest, OperatorActionResponse, Quote, TerritoriesResponse } from "../../contract/commerce.ts";
import { AppError, type FieldIssue } from "../../core/errors.ts";
import { leaseQuote } from "../../core/commerce/pricing.ts";
import { isWellFormedSlug } from "../../contract/slug.ts";
import { canonicalStateName } from "../../contract/states.ts";
import { activeSubscriberCount } from "../../store/places/cities.ts";
import { claimedTowns, releaseReservation, reserveTown, setLeaseCheckout, unavailableGeoids } from "../../store/commerce/leases.ts";
import { findPlaceByName, findPlaceBySlug, type PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";

export const MAX_SLUGS = 30;

function invalid(issues: FieldIssue[]): never {
  throw new AppError("validation_error", `Request validation failed: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, { issues });
}

/** `city` + `state` -> the place (the most populous of that name in the state), or a problem naming the field. */
export function placeOf(ctx: AppContext, city: string, state: string): PlaceRow {
  const stateName = canonicalStateName(state.trim());
  if (!stateName) invalid([{ path: "state", message: "must be a full U.S. state name such as \"New York\" (or District of Columbia, Puerto Rico)" }]);
  const place = findPlaceByName(ctx.db, city, stateName);
  if (!place) throw new AppError("city_not_found", `No U.S. place named "${city.slice(0, 120)}" in ${stateName}.`, { extra: { reason: "unknown_place" } });
  return place;
}

function quoteOf(ctx: AppContext, place: PlaceRow, unavailable: Set<string>) {
  const subscribers = activeSubscriberCount(ctx.db, place.geoid);
  return { slug: place.slug, available: !unavailable.has(place.geoid), subscribers, ...leaseQuote(subscribers) };
}

export function getTerritories(ctx: AppContext, q: { city?: string; state?: string; slugs?: string }): TerritoriesResponse {
  const issues: FieldIssue[] = [];
  if ((q.city === undefined) !== (q.state === undefined)) {
    issues.push(q.city === undefined ? { path: "city", message: "is required with state" } : { path: "state", message: "is required with city" });
  }
  let slugs: string[] | undefined;
  if (q.slugs !== undefined) {
    slugs = q.slugs.split(",").map((s) => s.trim()).filter(Boolean);
    if (slugs.length === 0) issues.push({ path: "slugs", message: "names no slug" });
    else if (slugs.length > MAX_SLUGS) issues.push({ path: "slugs", message: `has ${slugs.length} entries; at most ${MAX_SLUGS}` });
    else slugs.forEach((s, i) => { if (!isWellFormedSlug(s)) issues.push({ path: `slugs.${i}`, message: `"${s.slice(0, 130)}" is not a well-formed slug` }); });
  }
  if (issues.length) invalid(issues);
  // As of now: a lapsed reservation does not hold its town, nor a cancelled lease past its paid period.
  const nowIso = ctx.config.now().toISOString();
  const claimed = claimedTowns(ctx.db, nowIso);
  const out: TerritoriesResponse = { claimedCount: claimed.length, claimed };
  if (q.city !== undefined && q.state !== undefined) {
    const place = placeOf(ctx, q.city, q.state);
    const quote: Quote = { ...quoteOf(ctx, place, unavailableGeoids(ctx.db, [place.geoid], nowIso)), city: place.name, state: place.state_name };
    out.quote = quote;
  }
  if (slugs) {
    const places = slugs.map((s) => {
      const p = findPlaceBySlug(ctx.db, s);
      if (!p) throw new AppError("city_not_found", `No U.S. place has the slug "${s}".`, { extra: { reason: "unknown_place" } });
      return p;
    });
    const unavailable = unavailableGeoids(ctx.db, places.map((p) => p.geoid), nowIso);
    out.quotes = places.map((p) => quoteOf(ctx, p, unavailable));
  }
  return out;
}

/** Unpaid reservations one client may hold at once: enough for a buyer comparing towns, too few to squat on many. */
export const MAX_HOLDS_PER_CLIENT = 3;

/** The key a client's holds are counted under: a keyed hash of its address (the address itself is not stored). */
const holdKey = (ctx: AppContext, clientAddress: string) =>
  crypto.createHmac("sha256", ctx.secrets.stored("lease_hold_secret")).update(clientAddress).digest("base64url");

/**
 * `guest-checkout`: reserves the town (one write transaction; of racing buyers exactly one insert
 * succeeds, the rest get 409) and returns the monthly lease's payment link. The email is optional
 * (the spec's body is action, city and state; the payment page collects it and the callback makes it
 * the operator account); one client holds at most MAX_HOLDS_PER_CLIENT towns at once (429 until the
 * earliest lapses). If the provider fails the reservation is released at once.
 */
export async function operatorAction(ctx: AppContext, input: OperatorActionRequest, clientAddress: string): Promise<OperatorActionResponse> {
  const place = placeOf(ctx, input.city, input.state);
  const now = ctx.config.now();
  const reservedUntil = new Date(now.getTime() + ctx.config.reservationMinutes * 60_000);
  const quote = leaseQuote(activeSubscriberCount(ctx.db, place.geoid));
  const reserved = reserveTown(ctx.db, {
    id: `tl_${crypto.randomUUID()}`, placeGeoid: place.geoid, priceCents: quote.priceCents, reservedUntil: reservedUntil.toISOString(),
    heldBy: holdKey(ctx, clientAddress), maxHolds: MAX_HOLDS_PER_CLIENT,
  }, now.toISOString());
  if ("holdsFull" in reserved) {
    const retryAfter = Math.max(1, Math.ceil((Date.parse(reserved.holdsFull.nextLapse) - now.getTime()) / 1000));
    throw new AppError("rate_limited", `This client already holds ${reserved.holdsFull.count} towns in checkouts not yet paid (at most ${MAX_HOLDS_PER_CLIENT} at once); pay one, or retry in ${retryAfter} s when the first reservation lapses.`, {
      headers: { "Retry-After": String(retryAfter) },
    });
  }
  if ("taken" in reserved) {
    const taken = `${place.name}, ${place.state_name} is already leased or reserved by another checkout in progress`;
    throw new AppError("conflict", `${taken}; check GET /api/territories for when it is available.`, { mcpDetail: `${taken}; get_town_quote says when it is available.` });
  }
  const { lease } = reserved;
  const base = ctx.config.baseUrl;
  try {
    const session = await ctx.payments.createCheckout({
      mode: "subscription", reference: lease.id, productName: `Town lease: ${place.name}, ${place.state_name} daily`,
      description: `Exclusive commercial rights to the ${place.name}, ${place.state_name} newsletter, monthly`,
      amountCents: quote.priceCents, currency: "usd", customerEmail: input.email,
      successUrl: `${base}/purchase/done?lease=${lease.id}`, cancelUrl: `${base}/purchase/cancelled?lease=${lease.id}`, expiresAt: reservedUntil,
    });
    setLeaseCheckout(ctx.db, lease.id, { provider: ctx.payments.name, sessionId: session.sessionId, url: session.url }, now.toISOString());
    return {
      leaseId: lease.id, checkoutUrl: session.url, reservedUntil: reservedUntil.toISOString(), slug: place.slug, city: place.name, state: place.state_name,
      priceCents: quote.priceCents, currency: "usd", interval: "month",
    };
  } catch (err) {
    releaseReservation(ctx.db, lease.id, now.toISOString());
    if (err instanceof AppError) throw err;
    throw new AppError("upstream_error", `The payment provider did not create the checkout: ${(err as Error).message}`);
  }
}
