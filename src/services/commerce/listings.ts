import type { ListingMailData, TransactionalTemplate } from "../../core/commerce/emails.ts";
import { addDays } from "../../lib/time.ts";
import { BUSINESS_RUN_DAYS } from "../../core/commerce/pricing.ts";
import { shareEntry } from "../../core/commerce/revenue-share.ts";
import { localDate } from "../../lib/time.ts";
import { currentGeneration, siteDirs } from "../../publish/site-dir.ts";
import { latestEditionId } from "../../store/morning/editions.ts";
import { perDataVersion } from "../../store/platform/data-version.ts";
import { connectionCache } from "../../store/db.ts";
import { activeLeaseOf, endCancelledLeases, expireStaleReservations } from "../../store/commerce/leases.ts";
import { insertLedgerEntry } from "../../store/commerce/ledger.ts";
import { nextCommerceDue, ordersDueToEnd, ordersDueToExpire, transitionOrder, type OrderRow, type OrderView } from "../../store/commerce/orders.ts";
import { enqueueTransactional } from "../../store/mail/outbox.ts";
import type { AppContext } from "../platform/context.ts";
import { publishEditions } from "../site/publish.ts";

/**
 * Published listings: the read model readers see (the town's calendar and directory in
 * /api/city/{slug}, the daily email) and the steps that put listings up and take them down.
 */

/** The moment an event leaves the calendar: 12:00 UTC the day after its last day (past midnight in every U.S. timezone). */
export function eventRunEnd(startsAt: string, endsAt: string | null | undefined): string {
  return `${addDays((endsAt ?? startsAt).slice(0, 10), 1)}T12:00:00.000Z`;
}

export function businessRunEnd(from: Date): string {
  return new Date(from.getTime() + BUSINESS_RUN_DAYS * 86_400_000).toISOString();
}

export function statusUrl(ctx: AppContext, orderId: string): string {
  return `${ctx.config.baseUrl}/api/listing-order?id=${orderId}`;
}

/** The order's page for people (api/routes/commerce/order-page.ts). */
export function orderPageUrl(ctx: AppContext, orderId: string): string {
  return `${ctx.config.baseUrl}/orders/${orderId}`;
}

/** Queues a buyer email for an order event, exactly once per (order, event). Call inside the transition's transaction. */
export function queueOrderMail(ctx: AppContext, o: OrderView, template: TransactionalTemplate, extra: Partial<ListingMailData> = {}, now = ctx.config.now()): void {
  const data: ListingMailData = {
    orderId: o.id, product: o.product, title: o.title, town: `${o.town_name}, ${o.state_name}`, statusUrl: statusUrl(ctx, o.id),
    ...(o.product === "event" && o.starts_at ? { startsOn: o.starts_at.slice(0, 10) } : {}),
    tier: o.tier, priceCents: o.price_cents,
    townUrl: `${ctx.config.baseUrl}/${o.slug}`, ...extra,
  };
  enqueueTransactional(ctx.db, { to: o.buyer_email, template, payload: data, dedupeKey: `${o.id}:${template}` }, now.getTime(), now.toISOString());
}

/**
 * Publishes an order (inside the caller's transaction): the run starts now (businesses: 30 days;
 * events: until the day after they end) and the buyer is emailed once.
 */
export function publishOrder(ctx: AppContext, o: OrderView, from: OrderRow["status"][]): boolean {
  const now = ctx.config.now();
  const runEnds = o.product === "business" ? businessRunEnd(now) : eventRunEnd(o.starts_at ?? now.toISOString(), o.ends_at);
  if (!transitionOrder(ctx.db, o.id, from, "published", { published_at: now.toISOString(), run_ends_at: runEnds }, now.toISOString())) return false;
  queueOrderMail(ctx, o, "listing_published", o.product === "business" ? { endsOn: runEnds.slice(0, 10) } : {});
  return true;
}

/**
 * Records a listing's payment and publishes it, in one transaction with the callback's event id:
 * pending_payment -> paid -> published, plus the operator's share when the town is leased.
 */
export function markPaidAndPublish(ctx: AppContext, o: OrderView, p: { feeCents: number; paymentId: string | null; chargeId?: string | null }): boolean {
  const nowIso = ctx.config.now().toISOString();
  if (!transitionOrder(ctx.db, o.id, ["pending_payment", "expired"], "paid", { paid_at: nowIso, fee_cents: p.feeCents, provider_payment_id: p.paymentId, provider_charge_id: p.chargeId ?? null }, nowIso)) return false;
  const lease = activeLeaseOf(ctx.db, o.place_geoid, nowIso);
  if (lease && o.price_cents > 0) insertLedgerEntry(ctx.db, { leaseId: lease.id, orderId: o.id, ...shareEntry(o.price_cents, p.feeCents) }, nowIso);
  return publishOrder(ctx, o, ["paid"]);
}

/** The next instant a sweep has work (ISO), read once per data version of the connection. */
export function nextCommerceDueCached(ctx: AppContext): string | undefined {
  const due = connectionCache(ctx.db, "commerceDue", () => new Map<string, { version: string; value: string | undefined }>());
  return perDataVersion(due, ctx.db, "next", () => nextCommerceDue(ctx.db));
}

/**
 * Stores what time changed by `now`: lapsed reservations free their towns, cancelled leases past
 * their paid period end, payment links past their time expire (buyer emailed), listings past their
 * run end (buyer emailed, once each). Reads never call this: they compare with now themselves (the
 * store's `...AsOf` reads, src/site/city-listings.ts), so they never take the write lock. Two callers:
 * the server's minute sweep (sweep-schedule.ts), which then re-renders the returned towns, and the
 * start of each morning, which adds them to its own publish. Publishes nothing itself.
 * Returns the towns (geoids) whose listings changed.
 */
export function sweepCommerce(ctx: AppContext, now: Date): Set<string> {
  const nowIso = now.toISOString();
  const changed = new Set<string>();
  // Nothing due (one indexed read per data version): the write lock is not taken.
  const next = nextCommerceDueCached(ctx);
  if (next === undefined || next > nowIso) return changed;
  let mailed = false;
  ctx.db.transaction(() => {
    expireStaleReservations(ctx.db, nowIso);
    for (const l of endCancelledLeases(ctx.db, nowIso)) ctx.log.info({ leaseId: l.id, town: l.slug }, "cancelled lease reached the end of its paid period; the town is free");
    for (const o of ordersDueToExpire(ctx.db, nowIso)) {
      if (!transitionOrder(ctx.db, o.id, ["pending_payment"], "expired", {}, nowIso)) continue;
      queueOrderMail(ctx, o, "listing_expired", {}, now);
      mailed = true;
    }
    for (const o of ordersDueToEnd(ctx.db, nowIso)) {
      if (!transitionOrder(ctx.db, o.id, ["published"], "ended", { ended_at: nowIso }, nowIso)) continue;
      queueOrderMail(ctx, o, "listing_ended", {}, now);
      mailed = true;
      changed.add(o.place_geoid);
    }
  }).immediate();
  if (mailed) ctx.mail.kick();
  return changed;
}

/** Today in the town's timezone. */
export function townToday(ctx: AppContext, timezone: string): string {
  return localDate(ctx.config.now(), timezone);
}

/**
 * After listings of towns were published or ended: wake the mail sender and re-render those towns'
 * static pages. src/services/site/publish.ts re-renders a city only through `publishEditions` (its
 * latest edition's page, the city page, its state, home and /cities), so that is what is called, for
 * towns with an edition and a built site; in the background, since a render takes seconds.
 */
export function afterListingsChanged(ctx: AppContext, geoids: Iterable<string>): void {
  ctx.mail.kick();
  if (!currentGeneration(siteDirs(ctx.config.dataDir))) return;
  const ids: number[] = [];
  for (const g of geoids) {
    const id = latestEditionId(ctx.db, g);
    if (id !== undefined) ids.push(id);
  }
  if (ids.length === 0) return;
  publishEditions(ctx, ids).catch((err) => ctx.log.error({ err, editions: ids }, "re-rendering city pages after a listing change failed"));
}
