import type { OrderStatus } from "../../contract/order-status.ts";
import { cachedStatement as stmt, type DB } from "../db.ts";

// Listing orders (table listing_orders). Status changes are conditional UPDATEs on the expected
// current status, so two callers (a callback and a sweep, two staff) can never both apply one.

export interface OrderRow {
  id: string;
  product: "event" | "business";
  tier: "free" | "standard" | "featured";
  price_cents: number;
  currency: "usd";
  place_geoid: string;
  buyer_email: string;
  title: string;
  description: string;
  url: string;
  url_host: string | null;
  starts_at: string | null;
  ends_at: string | null;
  venue: string | null;
  address: string | null;
  category: string | null;
  status: OrderStatus;
  rule: string | null;
  reason: string | null;
  provider: string | null;
  provider_session_id: string | null;
  provider_payment_id: string | null;
  checkout_url: string | null;
  checkout_expires_at: string | null;
  fee_cents: number | null;
  paid_at: string | null;
  published_at: string | null;
  run_ends_at: string | null;
  ended_at: string | null;
  created_at: string;
  updated_at: string;
  /** Stripe mode: the charge of the payment (the source_transaction of the operator's transfer). */
  provider_charge_id?: string | null;
}

/** An order with its town, as every reader of orders needs it. */
export interface OrderView extends OrderRow {
  slug: string;
  town_name: string;
  state_name: string;
  timezone: string;
}

const COLUMNS = ["id", "product", "tier", "price_cents", "currency", "place_geoid", "buyer_email", "title", "description", "url", "url_host",
  "starts_at", "ends_at", "venue", "address", "category", "status", "rule", "reason", "run_ends_at", "created_at", "updated_at"] as const;
export type NewOrder = Pick<OrderRow, (typeof COLUMNS)[number]>;

export function insertOrder(db: DB, o: NewOrder): void {
  stmt(db, `INSERT INTO listing_orders (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})`).run(o);
}

const VIEW = `SELECT o.*, p.slug, p.name AS town_name, p.state_name, p.timezone FROM listing_orders o JOIN places p ON p.geoid = o.place_geoid`;

/**
 * An order's status as of `@now`: what time changes reads as changed before the sweep
 * (src/services/commerce/listings.ts) stores it: a published listing whose run is over is ended, an
 * unpaid payment link past its time is expired. Reads never write; the one sweep stores this each minute.
 */
const STATUS_AS_OF = `CASE WHEN o.status = 'published' AND o.run_ends_at <= @now THEN 'ended'
  WHEN o.status = 'pending_payment' AND o.checkout_expires_at <= @now THEN 'expired' ELSE o.status END`;

/** VIEW as of `@now` (the later `status` column replaces the stored one in the row better-sqlite3 builds). */
const VIEW_AS_OF = `SELECT o.*, ${STATUS_AS_OF} AS status, p.slug, p.name AS town_name, p.state_name, p.timezone
  FROM listing_orders o JOIN places p ON p.geoid = o.place_geoid`;

/** The order as stored: what a write's conditional transition starts from. */
export function findOrder(db: DB, id: string): OrderView | undefined {
  return stmt(db, `${VIEW} WHERE o.id = ?`).get(id) as OrderView | undefined;
}

/** The order as a reader sees it at `nowIso` (STATUS_AS_OF). */
export function orderAsOf(db: DB, id: string, nowIso: string): OrderView | undefined {
  return stmt(db, `${VIEW_AS_OF} WHERE o.id = @id`).get({ id, now: nowIso }) as OrderView | undefined;
}

export function findOrderByPayment(db: DB, paymentId: string): OrderView | undefined {
  return stmt(db, `${VIEW} WHERE o.provider_payment_id = ?`).get(paymentId) as OrderView | undefined;
}

/** Orders newest first (optionally those with one status), as of `nowIso`. */
export function listOrders(db: DB, status: OrderStatus | undefined, limit: number, nowIso: string): OrderView[] {
  return (status
    ? stmt(db, `${VIEW_AS_OF} WHERE ${STATUS_AS_OF} = @status ORDER BY o.created_at DESC, o.id LIMIT @limit`).all({ status, limit, now: nowIso })
    : stmt(db, `${VIEW_AS_OF} ORDER BY o.created_at DESC, o.id LIMIT @limit`).all({ limit, now: nowIso })) as OrderView[];
}

type Patch = Partial<Omit<OrderRow, "id" | "status" | "created_at">>;

/** Moves the order from one of `from` to `to` with the patch; false when it was not in `from`. */
export function transitionOrder(db: DB, id: string, from: ReadonlyArray<OrderStatus>, to: OrderStatus, patch: Patch, nowIso: string): boolean {
  const keys = Object.keys(patch) as Array<keyof Patch>;
  const sets = ["status = @to", "updated_at = @now", ...keys.map((k) => `${k} = @${k}`)].join(", ");
  const sql = `UPDATE listing_orders SET ${sets} WHERE id = @id AND status IN (SELECT value FROM json_each(@from))`;
  return db.prepare(sql).run({ ...patch, id, to, now: nowIso, from: JSON.stringify(from) }).changes === 1;
}

export function setOrderCheckout(db: DB, id: string, c: { provider: string; sessionId: string; url: string; expiresAt: string }, nowIso: string): void {
  stmt(db, `UPDATE listing_orders SET provider = ?, provider_session_id = ?, checkout_url = ?, checkout_expires_at = ?, updated_at = ? WHERE id = ?`)
    .run(c.provider, c.sessionId, c.url, c.expiresAt, nowIso, id);
}

/**
 * Whether a person (staff or the town's operator: rule `staff-review`) rejected, in this town since
 * `sinceIso`, a listing that linked into `domain` (a registrable domain or a site's own host: the
 * stored host is the domain itself or one of its subdomains). The automatic screen's rejections say
 * nothing about the domain's owner (anyone can name any address), nor do other towns' decisions.
 * A rejection is final, so the order's `updated_at` is when it was rejected.
 */
export function domainRejectedInTown(db: DB, domain: string, placeGeoid: string, sinceIso: string): boolean {
  return stmt(db, `SELECT EXISTS (SELECT 1 FROM listing_orders WHERE place_geoid = @place AND status = 'rejected' AND rule = 'staff-review'
    AND updated_at > @since AND (url_host = @domain OR substr(url_host, -length(@domain) - 1) = '.' || @domain))`).pluck().get({ domain, place: placeGeoid, since: sinceIso }) === 1;
}

/** Published listings of a town (the calendar and directory read model: src/site/city-listings.ts leaves out those whose run is over). */
export function publishedOrdersOf(db: DB, placeGeoid: string): OrderRow[] {
  return stmt(db, "SELECT * FROM listing_orders WHERE place_geoid = +? AND status = 'published' ORDER BY published_at, id").all(placeGeoid) as OrderRow[];
}

/** Published listings whose run is over, and payment links that ran out unpaid. */
export function ordersDueToEnd(db: DB, nowIso: string): OrderView[] {
  return stmt(db, `${VIEW} WHERE o.status = 'published' AND o.run_ends_at IS NOT NULL AND o.run_ends_at <= ?`).all(nowIso) as OrderView[];
}

export function ordersDueToExpire(db: DB, nowIso: string): OrderView[] {
  return stmt(db, `${VIEW} WHERE o.status = 'pending_payment' AND o.checkout_expires_at IS NOT NULL AND o.checkout_expires_at <= ?`).all(nowIso) as OrderView[];
}

/**
 * The earliest instant (ISO) at which a sweep has something to do: a checkout expires, a listing's
 * run ends, a lease reservation lapses or a cancelled lease reaches its end; undefined when nothing is pending.
 */
export function nextCommerceDue(db: DB): string | undefined {
  return (stmt(db, `SELECT MIN(t) FROM (
      SELECT MIN(checkout_expires_at) AS t FROM listing_orders WHERE status = 'pending_payment' AND checkout_expires_at IS NOT NULL
      UNION ALL SELECT MIN(run_ends_at) FROM listing_orders WHERE status = 'published' AND run_ends_at IS NOT NULL
      UNION ALL SELECT MIN(reserved_until) FROM leases WHERE status = 'reserved'
      UNION ALL SELECT MIN(cancel_at) FROM leases WHERE status = 'active' AND cancel_at IS NOT NULL)`).pluck().get() as string | null) ?? undefined;
}

/** Listings of a town waiting for a person (free ones awaiting review, held ones), oldest first. */
export function ordersToReview(db: DB, placeGeoid: string): OrderView[] {
  return stmt(db, `${VIEW} WHERE o.place_geoid = ? AND o.status IN ('awaiting_review', 'held') ORDER BY o.created_at, o.id`).all(placeGeoid) as OrderView[];
}
