import { operationsById } from "../../contract/operations/index.ts";
import { AppError } from "../../core/errors.ts";
import type { LeasePageView, LeaseProblem } from "../../site/pages/commerce.ts";
import { findPlaceBySlug, type PlaceRow } from "../../store/places/places.ts";
import type { AppContext } from "../platform/context.ts";
import { subscribe } from "../readers/subscribe.ts";
import { admit } from "./buyer-pages.ts";
import { getTerritories, operatorAction } from "./territories.ts";

// The lease checkout for people (api/routes/commerce/lease.ts): the page shows the town's monthly
// price (the territories quote); its post runs the same services and limits as POST
// /api/operator-actions (guest-checkout) and, when the box is ticked, POST /api/subscribe.

const leaseOp = operationsById.operatorAction;
const subscribeOp = operationsById.subscribe;

type Typed = LeasePageView["typed"];

function view(ctx: AppContext, place: PlaceRow, typed: Typed, problem?: LeaseProblem): LeasePageView {
  const q = getTerritories(ctx, { city: place.name, state: place.state_name }).quote!;
  return {
    slug: place.slug, town: place.name, state: place.state_name, available: q.available, priceCents: q.priceCents,
    subscribers: q.subscribers, tier: q.tier, reservationMinutes: ctx.config.reservationMinutes, typed, problem,
  };
}

/** The lease page of a town; undefined for a slug that is no place. */
export function leasePage(ctx: AppContext, slug: string): LeasePageView | undefined {
  const place = findPlaceBySlug(ctx.db, slug);
  return place && view(ctx, place, { email: "", subscribe: false });
}

export type LeaseAnswer = { to: string } | { status: number; view: LeasePageView };

/**
 * The lease form posted: reserves the town and answers the payment page's address, subscribing the
 * person only when asked; or the form again with what went wrong. Undefined for no such town.
 */
export async function leaseCheckout(ctx: AppContext, slug: string, typed: Typed, clientAddress: string): Promise<LeaseAnswer | undefined> {
  const place = findPlaceBySlug(ctx.db, slug);
  if (!place) return undefined;
  const again = (status: number, problem?: LeaseProblem): LeaseAnswer => ({ status, view: view(ctx, place, typed, problem) });
  try {
    admit(ctx, leaseOp.rateLimit, clientAddress);
    const input = leaseOp.body.safeParse({ action: "guest-checkout", city: place.name, state: place.state_name, email: typed.email });
    if (!input.success) return again(400, { kind: "email" });
    const lease = await operatorAction(ctx, input.data, clientAddress);
    // Only when asked: the operator's own subscription, through the same service and limit as the API's.
    if (typed.subscribe) {
      admit(ctx, subscribeOp.rateLimit, clientAddress);
      const sub = subscribeOp.body.safeParse({ email: typed.email, city: place.name, state: place.state_name, slug: place.slug, landing_path: `/lease/${place.slug}` });
      if (sub.success) await subscribe(ctx, sub.data);
    }
    return { to: lease.checkoutUrl };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (err.code === "conflict") return again(409);
    if (err.code === "rate_limited") return again(429, { kind: "busy", retryAfter: err.headers?.["Retry-After"] ?? "60" });
    if (err.code === "upstream_error") return again(502, { kind: "upstream" });
    if (err.code === "service_misconfigured") return again(503, { kind: "off" });
    throw err;
  }
}
