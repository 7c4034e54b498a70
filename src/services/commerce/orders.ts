import type { AdminOrder, ListingOrder } from "../../contract/commerce.ts";
import { AppError } from "../../core/errors.ts";
import type { OrderStatus } from "../../contract/order-status.ts";
import { decisionsOf, recordDecision, type Decider } from "../../store/commerce/listing-decisions.ts";
import { listOrders, orderAsOf, transitionOrder, type OrderView } from "../../store/commerce/orders.ts";
import { issuePaymentLink } from "./checkout.ts";
import type { AppContext } from "../platform/context.ts";
import { afterListingsChanged, orderPageUrl, publishOrder, queueOrderMail, statusUrl } from "./listings.ts";

const opt = <K extends string, V>(key: K, v: V | null | undefined) => (v === null || v === undefined ? {} : { [key]: v } as Record<K, V>);

export function toListingOrder(ctx: AppContext, o: OrderView): ListingOrder {
  return {
    id: o.id, status: o.status, published: o.status === "published", product: o.product, tier: o.tier, priceCents: o.price_cents, currency: "usd",
    town: { slug: o.slug, city: o.town_name, state: o.state_name },
    title: o.title, description: o.description, url: o.url,
    ...opt("startsAt", o.starts_at), ...opt("endsAt", o.ends_at), ...opt("venue", o.venue), ...opt("address", o.address), ...opt("category", o.category),
    ...(o.status === "pending_payment" && o.checkout_url ? { checkoutUrl: o.checkout_url, ...opt("checkoutExpiresAt", o.checkout_expires_at) } : {}),
    ...(o.status === "rejected" && o.rule ? { rejected: { rule: o.rule, reason: o.reason ?? "" } } : {}),
    ...(o.status === "held" && o.rule ? { held: { rule: o.rule, reason: o.reason ?? "" } } : {}),
    ...opt("paidAt", o.paid_at), ...opt("publishedAt", o.published_at), ...(o.product === "business" ? opt("runEndsAt", o.run_ends_at) : {}),
    createdAt: o.created_at, statusUrl: statusUrl(ctx, o.id), orderPageUrl: orderPageUrl(ctx, o.id),
  };
}

function toAdminOrder(ctx: AppContext, o: OrderView): AdminOrder {
  return { ...toListingOrder(ctx, o), buyerEmail: o.buyer_email, rule: o.rule, reason: o.reason, feeCents: o.fee_cents, provider: o.provider, decisions: decisionsOf(ctx.db, o.id) };
}

/**
 * The order as of now: a listing whose run is over reads as ended, a payment link past its time as
 * expired, before the sweep (listings.ts) stores either. Reads never write.
 */
const orderNow = (ctx: AppContext, id: string) => orderAsOf(ctx.db, id, ctx.config.now().toISOString());

function requireOrder(ctx: AppContext, id: string): OrderView {
  const o = orderNow(ctx, id);
  if (!o) throw new AppError("not_found", `No listing order ${id}.`);
  return o;
}

export function getListingOrder(ctx: AppContext, id: string): ListingOrder {
  return toListingOrder(ctx, requireOrder(ctx, id));
}

// ---------- review: staff (admin endpoints and `npm run admin -- orders ...`) and town operators (the desk) ----------
// Staff may decide on any listing; the desk (src/services/commerce/operator-desk.ts) checks that the listing
// is in one of the operator's towns and then calls these same functions, so both publish and reject
// alike. Every decision is recorded with who made it (table listing_decisions).

const STAFF: Decider = { role: "staff", who: "staff" };

export function adminListOrders(ctx: AppContext, q: { status?: OrderStatus; limit: number }) {
  return { orders: listOrders(ctx.db, q.status, q.limit, ctx.config.now().toISOString()).map((o) => toAdminOrder(ctx, o)) };
}

export function adminShowOrder(ctx: AppContext, id: string): AdminOrder {
  return toAdminOrder(ctx, requireOrder(ctx, id));
}

function notNow(o: OrderView, what: string): never {
  throw new AppError("conflict", `Order ${o.id} is ${o.status}; only ${what} orders can be changed this way.`);
}

/** Approves a free listing awaiting review: published now (businesses start their 30 days). */
export function adminApproveOrder(ctx: AppContext, id: string, by: Decider = STAFF): AdminOrder {
  const o = requireOrder(ctx, id);
  if (o.status !== "awaiting_review") notNow(o, "awaiting_review");
  const done = ctx.db.transaction(() => {
    if (!publishOrder(ctx, o, ["awaiting_review"])) return false;
    recordDecision(ctx.db, o.id, "approved", null, by, ctx.config.now().toISOString());
    return true;
  }).immediate();
  if (!done) notNow(orderNow(ctx, id)!, "awaiting_review");
  afterListingsChanged(ctx, [o.place_geoid]);
  return toAdminOrder(ctx, orderNow(ctx, id)!);
}

/** Rejects a listing awaiting review or held; the buyer is emailed once that it was rejected, and reads the reason on the order page. */
export function adminRejectOrder(ctx: AppContext, id: string, reason: string, by: Decider = STAFF): AdminOrder {
  const o = requireOrder(ctx, id);
  if (o.status !== "awaiting_review" && o.status !== "held") notNow(o, "awaiting_review or held");
  const nowIso = ctx.config.now().toISOString();
  const done = ctx.db.transaction(() => {
    // One rule id for a person's rejection, whoever the person was (the decision row says who).
    const rule = "staff-review";
    if (!transitionOrder(ctx.db, o.id, ["awaiting_review", "held"], "rejected", { rule, reason }, nowIso)) return false;
    recordDecision(ctx.db, o.id, "rejected", reason, by, nowIso);
    // The reason is shown on the order page, not mailed: nobody confirmed the buyer's address.
    queueOrderMail(ctx, o, "listing_rejected", { rule });
    return true;
  }).immediate();
  if (!done) notNow(orderNow(ctx, id)!, "awaiting_review or held");
  ctx.mail.kick();
  return toAdminOrder(ctx, orderNow(ctx, id)!);
}

/** Releases a held listing: a paid tier gets its payment link (pending_payment), a free one is published. */
export async function adminReleaseOrder(ctx: AppContext, id: string, by: Decider = STAFF): Promise<AdminOrder> {
  const o = requireOrder(ctx, id);
  if (o.status !== "held") notNow(o, "held");
  const nowIso = ctx.config.now().toISOString();
  if (o.price_cents === 0) {
    const done = ctx.db.transaction(() => {
      if (!publishOrder(ctx, o, ["held"])) return false;
      recordDecision(ctx.db, o.id, "released", null, by, nowIso);
      return true;
    }).immediate();
    if (!done) notNow(orderNow(ctx, id)!, "held");
    afterListingsChanged(ctx, [o.place_geoid]);
  } else {
    const done = ctx.db.transaction(() => {
      if (!transitionOrder(ctx.db, o.id, ["held"], "pending_payment", {}, nowIso)) return false;
      recordDecision(ctx.db, o.id, "released", null, by, nowIso);
      return true;
    }).immediate();
    if (!done) notNow(orderNow(ctx, id)!, "held");
    const link = await issuePaymentLink(ctx, orderNow(ctx, id)!);
    // The buyer was told a person would look: the link goes to them, not only to whoever polls the order.
    queueOrderMail(ctx, o, "listing_released", { checkoutUrl: link.url, checkoutExpiresAt: link.expiresAt, timeZone: o.timezone });
    ctx.mail.kick();
  }
  return toAdminOrder(ctx, orderNow(ctx, id)!);
}
