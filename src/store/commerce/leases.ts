import { cachedStatement as stmt, type DB } from "../db.ts";

// Town leases (table leases). The partial unique index allows one reserved-or-active lease per town.

export interface LeaseRow {
  id: string;
  place_geoid: string;
  status: "reserved" | "active" | "expired" | "ended";
  price_cents: number;
  currency: "usd";
  operator_email: string | null;
  reserved_until: string;
  provider: string | null;
  provider_session_id: string | null;
  provider_subscription_id: string | null;
  checkout_url: string | null;
  activated_at: string | null;
  ended_at: string | null;
  created_at: string;
  /** Cancelled by its operator: it stays active until then (the end of the paid period). */
  cancel_at: string | null;
  /** Who held the reservation: a keyed hash of the client's address. */
  reserved_by: string | null;
}

export interface LeaseView extends LeaseRow {
  slug: string;
  town_name: string;
  state_name: string;
  timezone: string;
}

const VIEW = "SELECT l.*, p.slug, p.name AS town_name, p.state_name, p.timezone FROM leases l JOIN places p ON p.geoid = l.place_geoid";

/**
 * A lease as of `@now`: what time changes reads as changed before the sweep
 * (src/services/commerce/listings.ts) stores it: a reservation past its window has expired (its town
 * is free), a cancelled lease past its paid period has ended (on `cancel_at`, as the sweep records it).
 */
const STATUS_AS_OF = `CASE WHEN l.status = 'reserved' AND l.reserved_until <= @now THEN 'expired'
  WHEN l.status = 'active' AND l.cancel_at <= @now THEN 'ended' ELSE l.status END`;
/** Holds its town at `@now`: active and not past a cancellation. */
const ACTIVE_AS_OF = "(l.status = 'active' AND (l.cancel_at IS NULL OR l.cancel_at > @now))";

/** VIEW as of `@now` (the later `status` and `ended_at` columns replace the stored ones in the row better-sqlite3 builds). */
const VIEW_AS_OF = `SELECT l.*, ${STATUS_AS_OF} AS status,
  CASE WHEN l.status = 'active' AND l.cancel_at <= @now THEN l.cancel_at ELSE l.ended_at END AS ended_at,
  p.slug, p.name AS town_name, p.state_name, p.timezone FROM leases l JOIN places p ON p.geoid = l.place_geoid`;

/** Reservations past their window free their town. */
export function expireStaleReservations(db: DB, nowIso: string): number {
  return stmt(db, "UPDATE leases SET status = 'expired', updated_at = @now WHERE status = 'reserved' AND reserved_until <= @now").run({ now: nowIso }).changes;
}

/** What a reservation attempt gave: the lease, the town taken by someone else, or the client's holds full (until the earliest lapses). */
export type Reservation = { lease: LeaseView } | { taken: true } | { holdsFull: { count: number; nextLapse: string } };

/**
 * Reserves a town in one write transaction: expired reservations are cleared first; a town leased
 * or reserved by someone else is taken; a client (`heldBy`, a keyed hash of its address) that already
 * holds `maxHolds` unpaid reservations gets none; then the insert takes the town (the unique index
 * still guards it). Counting and inserting in one transaction: racing requests of one client cannot
 * pass the limit together.
 */
export function reserveTown(db: DB, l: { id: string; placeGeoid: string; priceCents: number; reservedUntil: string; heldBy: string; maxHolds: number }, nowIso: string): Reservation {
  return db.transaction((): Reservation => {
    // A write that needs the current state settles what it touches: lapsed reservations, and this
    // town's cancelled lease past its paid period (both still hold the unique index until stored).
    expireStaleReservations(db, nowIso);
    stmt(db, "UPDATE leases SET status = 'ended', ended_at = cancel_at, updated_at = @now WHERE place_geoid = @place AND status = 'active' AND cancel_at <= @now")
      .run({ place: l.placeGeoid, now: nowIso });
    if (stmt(db, "SELECT EXISTS (SELECT 1 FROM leases WHERE place_geoid = ? AND status IN ('reserved', 'active'))").pluck().get(l.placeGeoid) === 1) return { taken: true };
    const held = stmt(db, "SELECT COUNT(*) AS count, MIN(reserved_until) AS nextLapse FROM leases WHERE reserved_by = ? AND status = 'reserved' AND reserved_until > ?")
      .get(l.heldBy, nowIso) as { count: number; nextLapse: string | null };
    if (held.count >= l.maxHolds) return { holdsFull: { count: held.count, nextLapse: held.nextLapse! } };
    const r = stmt(db, `INSERT INTO leases (id, place_geoid, status, price_cents, reserved_until, reserved_by, created_at, updated_at)
      VALUES (?, ?, 'reserved', ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(l.id, l.placeGeoid, l.priceCents, l.reservedUntil, l.heldBy, nowIso, nowIso);
    return r.changes === 1 ? { lease: findLease(db, l.id)! } : { taken: true };
  }).immediate();
}

/** The lease as stored: what a write's conditional update starts from. */
export function findLease(db: DB, id: string): LeaseView | undefined {
  return stmt(db, `${VIEW} WHERE l.id = ?`).get(id) as LeaseView | undefined;
}

/** The lease as a reader sees it at `nowIso` (STATUS_AS_OF). */
export function leaseAsOf(db: DB, id: string, nowIso: string): LeaseView | undefined {
  return stmt(db, `${VIEW_AS_OF} WHERE l.id = @id`).get({ id, now: nowIso }) as LeaseView | undefined;
}

export function setLeaseCheckout(db: DB, id: string, c: { provider: string; sessionId: string; url: string }, nowIso: string): void {
  stmt(db, "UPDATE leases SET provider = ?, provider_session_id = ?, checkout_url = ?, updated_at = ? WHERE id = ?").run(c.provider, c.sessionId, c.url, nowIso, id);
}

export function releaseReservation(db: DB, id: string, nowIso: string): boolean {
  return stmt(db, "UPDATE leases SET status = 'expired', updated_at = ? WHERE id = ? AND status = 'reserved'").run(nowIso, id).changes === 1;
}

/**
 * Activates a paid lease: reserved (or a reservation that lapsed while the buyer paid, if nobody took
 * the town meanwhile) -> active. False when it cannot (already active, ended, or the town is taken).
 */
export function activateLease(db: DB, id: string, a: { email: string; subscriptionId: string | null }, nowIso: string): boolean {
  try {
    return stmt(db, `UPDATE leases SET status = 'active', operator_email = ?, provider_subscription_id = ?, activated_at = ?, updated_at = ?
      WHERE id = ? AND status IN ('reserved', 'expired')`).run(a.email, a.subscriptionId, nowIso, nowIso, id).changes === 1;
  } catch (err) {
    if ((err as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") return false;
    throw err;
  }
}

export function endLeaseBySubscription(db: DB, subscriptionId: string, nowIso: string): LeaseView | undefined {
  const lease = stmt(db, `${VIEW} WHERE l.provider_subscription_id = ? AND l.status = 'active'`).get(subscriptionId) as LeaseView | undefined;
  if (!lease) return undefined;
  stmt(db, "UPDATE leases SET status = 'ended', ended_at = ?, updated_at = ? WHERE id = ?").run(nowIso, nowIso, lease.id);
  return lease;
}

/** The town's lease active at `nowIso`. */
export function activeLeaseOf(db: DB, placeGeoid: string, nowIso: string): LeaseRow | undefined {
  return stmt(db, `SELECT * FROM leases l WHERE l.place_geoid = @place AND ${ACTIVE_AS_OF}`).get({ place: placeGeoid, now: nowIso }) as LeaseRow | undefined;
}

/** Which of these slugs name a town with a lease active at `nowIso` (it sells listings, newsletter or not). */
export function leasedSlugs(db: DB, slugs: readonly string[], nowIso: string): Set<string> {
  if (slugs.length === 0) return new Set();
  const rows = stmt(db, `SELECT p.slug FROM places p JOIN leases l ON l.place_geoid = p.geoid
    WHERE p.slug IN (SELECT value FROM json_each(@slugs)) AND ${ACTIVE_AS_OF}`).pluck().all({ slugs: JSON.stringify(slugs), now: nowIso }) as string[];
  return new Set(rows);
}

/** Towns not available at `nowIso`: leased, or reserved and not lapsed. */
export function unavailableGeoids(db: DB, geoids: string[], nowIso: string): Set<string> {
  const rows = stmt(db, `SELECT l.place_geoid FROM leases l WHERE l.place_geoid IN (SELECT value FROM json_each(@geoids))
    AND (${ACTIVE_AS_OF} OR (l.status = 'reserved' AND l.reserved_until > @now))`).pluck().all({ geoids: JSON.stringify(geoids), now: nowIso }) as string[];
  return new Set(rows);
}

/** Towns with a lease active at `nowIso`. */
export function claimedTowns(db: DB, nowIso: string): Array<{ slug: string; city: string; state: string }> {
  return stmt(db, `SELECT p.slug, p.name AS city, p.state_name AS state FROM leases l JOIN places p ON p.geoid = l.place_geoid
    WHERE ${ACTIVE_AS_OF} ORDER BY p.state_name, p.name, p.slug`).all({ now: nowIso }) as Array<{ slug: string; city: string; state: string }>;
}

/** The operator's leases as stored. */
export function leasesOfOperator(db: DB, email: string): LeaseView[] {
  return stmt(db, `${VIEW} WHERE l.operator_email = ? ORDER BY l.activated_at, l.id`).all(email) as LeaseView[];
}

/** The operator's leases as of `nowIso` (what the desk shows). */
export function operatorLeasesAsOf(db: DB, email: string, nowIso: string): LeaseView[] {
  return stmt(db, `${VIEW_AS_OF} WHERE l.operator_email = @email ORDER BY l.activated_at, l.id`).all({ email, now: nowIso }) as LeaseView[];
}

/** The operator's lease of a town active at `nowIso` (the desk acts only on these). */
export function operatorLeaseOfTown(db: DB, email: string, slug: string, nowIso: string): LeaseView | undefined {
  return stmt(db, `${VIEW_AS_OF} WHERE l.operator_email = @email AND p.slug = @slug AND ${ACTIVE_AS_OF}`).get({ email, slug, now: nowIso }) as LeaseView | undefined;
}

/** Marks an active lease to end at `cancelAt`; false when it is not active or already cancelled. */
export function scheduleLeaseCancel(db: DB, id: string, cancelAt: string, nowIso: string): boolean {
  return stmt(db, "UPDATE leases SET cancel_at = ?, updated_at = ? WHERE id = ? AND status = 'active' AND cancel_at IS NULL").run(cancelAt, nowIso, id).changes === 1;
}

/** Ends cancelled leases whose paid period is over; their towns are free again. */
export function endCancelledLeases(db: DB, nowIso: string): LeaseView[] {
  const due = stmt(db, `${VIEW} WHERE l.status = 'active' AND l.cancel_at IS NOT NULL AND l.cancel_at <= ?`).all(nowIso) as LeaseView[];
  for (const l of due) stmt(db, "UPDATE leases SET status = 'ended', ended_at = ?, updated_at = ? WHERE id = ? AND status = 'active'").run(l.cancel_at, nowIso, l.id);
  return due;
}

/** Leases, newest first (optionally those with one status), as of `nowIso`, for staff. */
export function listLeases(db: DB, status: LeaseRow["status"] | undefined, limit: number, nowIso: string): LeaseView[] {
  return (status
    ? stmt(db, `${VIEW_AS_OF} WHERE ${STATUS_AS_OF} = @status ORDER BY l.created_at DESC, l.id LIMIT @limit`).all({ status, limit, now: nowIso })
    : stmt(db, `${VIEW_AS_OF} ORDER BY l.created_at DESC, l.id LIMIT @limit`).all({ limit, now: nowIso })) as LeaseView[];
}

/** Ends an active lease now (staff); false when it was not active. */
export function endLease(db: DB, id: string, nowIso: string): boolean {
  return stmt(db, "UPDATE leases SET status = 'ended', ended_at = ?, updated_at = ? WHERE id = ? AND status = 'active'").run(nowIso, nowIso, id).changes === 1;
}
