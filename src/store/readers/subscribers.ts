import { cachedStatement, type DB } from "../db.ts";

export type SubscriberStatus = "active" | "unsubscribed" | "bounced" | "complained";
export type SuppressionReason = "unsubscribed" | "bounced" | "complained" | "manual";

export interface NewSubscriber {
  email: string;
  placeGeoid: string;
  referrer?: string | null;
  utmSource?: string | null;
  utmMedium?: string | null;
  utmCampaign?: string | null;
  landingPath?: string | null;
  /** The subscription whose share link brought this one. */
  referredBy?: number | null;
  firstDigestPending: boolean;
  now: string;
}

export interface SubscriptionRow {
  id: number;
  email: string;
  place_geoid: string;
  status: SubscriberStatus;
  first_digest_pending: 0 | 1;
  slug: string;
  name: string;
  state_name: string;
  timezone: string;
  /** The reader's choices for this town (src/store/migrations/034-reader-preferences.sql). */
  frequency: "daily" | "weekly";
  weekly_day: number;
  delivery_minute: number;
  hidden_sections: string;
}

/** Inserts the subscription unless this address already has one for the place. Returns the new id, or undefined. */
export function insertSubscriber(db: DB, s: NewSubscriber): number | undefined {
  const row = cachedStatement(db, `
    INSERT INTO subscribers (email, place_geoid, status, referrer, utm_source, utm_medium, utm_campaign, landing_path,
                             referred_by, first_digest_pending, created_at, updated_at)
    VALUES (@email, @placeGeoid, 'active', @referrer, @utmSource, @utmMedium, @utmCampaign, @landingPath, @referredBy, @pending, @now, @now)
    ON CONFLICT (email, place_geoid) DO NOTHING
    RETURNING id`).get({
    referrer: null, utmSource: null, utmMedium: null, utmCampaign: null, landingPath: null, referredBy: null,
    ...s,
    pending: s.firstDigestPending ? 1 : 0,
  }) as { id: number } | undefined;
  return row?.id;
}

/** A subscription made active again, with how often its reader chose to get it (kept while it was ended). */
export interface Reactivated {
  id: number;
  frequency: "daily" | "weekly";
}

/**
 * A subscription the reader had left (`unsubscribed`) or that a bounce ended (`bounced`) is active
 * again; complained ones stay as they are unless `byOwner`: the address's owner confirmed, so one
 * ended for any of those reasons is active again. Returns its id and frequency when it changed.
 */
export function reactivateSubscriber(db: DB, s: { email: string; placeGeoid: string; firstDigestPending: boolean; now: string }, byOwner = false): Reactivated | undefined {
  const ended = byOwner ? "'unsubscribed', 'bounced', 'complained'" : "'unsubscribed', 'bounced'";
  return cachedStatement(db, `UPDATE subscribers SET status = 'active', first_digest_pending = @pending, updated_at = @now
    WHERE email = @email AND place_geoid = @placeGeoid AND status IN (${ended}) RETURNING id, frequency`)
    .get({ email: s.email, placeGeoid: s.placeGeoid, pending: s.firstDigestPending ? 1 : 0, now: s.now }) as Reactivated | undefined;
}

const SUBSCRIPTION_COLUMNS = `s.id, s.email, s.place_geoid, s.status, s.first_digest_pending, p.slug, p.name, p.state_name, p.timezone,
  s.frequency, s.weekly_day, s.delivery_minute, s.hidden_sections`;

export function findSubscription(db: DB, id: number): SubscriptionRow | undefined {
  return cachedStatement(db, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscribers s JOIN places p ON p.geoid = s.place_geoid WHERE s.id = ?`).get(id) as SubscriptionRow | undefined;
}

/** Every city this address follows or followed, by state and name. */
export function subscriptionsOf(db: DB, email: string): SubscriptionRow[] {
  return cachedStatement(db, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscribers s JOIN places p ON p.geoid = s.place_geoid
    WHERE s.email = ? ORDER BY p.state_name, p.name`).all(email) as SubscriptionRow[];
}

export function findSuppression(db: DB, email: string): { reason: SuppressionReason; source: string; created_at: string } | undefined {
  return cachedStatement(db, "SELECT reason, source, created_at FROM suppressions WHERE email = ?").get(email) as ReturnType<typeof findSuppression>;
}

export function recordMailEvent(db: DB, e: { email: string; subscriberId?: number | null; kind: string; source: string; detail?: string | null; now: string }): void {
  cachedStatement(db, `INSERT INTO mail_events (email, subscriber_id, kind, source, detail, created_at)
    VALUES (@email, @subscriberId, @kind, @source, @detail, @now)`).run({ subscriberId: null, detail: null, ...e });
}

export interface MailEventRow { created_at: string; kind: string; source: string; detail: string | null }

/** An address's history (subscribed, unsubscribed, bounces, complaints), oldest first. */
export function mailEventsOf(db: DB, email: string): MailEventRow[] {
  return cachedStatement(db, "SELECT created_at, kind, source, detail FROM mail_events WHERE email = ? ORDER BY id").all(email) as MailEventRow[];
}

/**
 * Mail not yet sent to these subscriptions is dropped (kept as `cancelled`, not deleted). Rows a
 * sender holds right now are left to it: it re-checks the subscription before sending.
 */
function cancelUnsent(db: DB, where: string, arg: unknown): number {
  return cachedStatement(db, `UPDATE outbox SET status = 'cancelled'
    WHERE status = 'pending' AND subscriber_id IN (SELECT id FROM subscribers WHERE ${where})`).run(arg).changes;
}

/** One city: the subscription stops, its unsent mail is cancelled, the history keeps a line. */
export function unsubscribeOne(db: DB, id: number, source: string, now: string): boolean {
  return db.transaction(() => {
    const row = cachedStatement(db, "UPDATE subscribers SET status = 'unsubscribed', first_digest_pending = 0, updated_at = ? WHERE id = ? AND status = 'active' RETURNING email")
      .get(now, id) as { email: string } | undefined;
    if (!row) return false;
    cancelUnsent(db, "id = ?", id);
    recordMailEvent(db, { email: row.email, subscriberId: id, kind: "unsubscribed", source, now });
    return true;
  }).immediate();
}

const STATUS_FOR: Record<SuppressionReason, SubscriberStatus> = {
  unsubscribed: "unsubscribed", manual: "unsubscribed", bounced: "bounced", complained: "complained",
};

/**
 * The address gets no more mail at all: it joins the suppression list (the first reason is kept;
 * later ones are added to the history), every active subscription takes the matching status, and
 * unsent mail is cancelled. Returns false when it was already suppressed.
 */
export function suppressAddress(db: DB, email: string, reason: SuppressionReason, source: string, detail: string | null, now: string): boolean {
  return db.transaction(() => {
    const added = cachedStatement(db, `INSERT INTO suppressions (email, reason, source, detail, created_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (email) DO NOTHING`).run(email, reason, source, detail, now).changes === 1;
    const status = STATUS_FOR[reason];
    // Bounces and complaints also relabel subscriptions someone had already left: it is the address that failed.
    const from = reason === "bounced" || reason === "complained" ? "('active', 'unsubscribed')" : "('active')";
    cachedStatement(db, `UPDATE subscribers SET status = ?, first_digest_pending = 0, updated_at = ? WHERE email = ? AND status IN ${from}`).run(status, now, email);
    cancelUnsent(db, "email = ?", email);
    recordMailEvent(db, { email, kind: reason === "manual" ? "suppressed" : reason === "unsubscribed" ? "unsubscribed_all" : reason, source, detail, now });
    return added;
  }).immediate();
}

/** The subscription a referral code belongs to, if any. */
export function subscriberByReferralCode(db: DB, code: string): number | undefined {
  return cachedStatement(db, "SELECT id FROM subscribers WHERE referral_code = ?").pluck().get(code.toLowerCase()) as number | undefined;
}

export interface ReferralCount {
  subscriberId: number;
  email: string;
  /** Subscriptions made through this reader's share link. */
  referred: number;
  /** Of those, still active. */
  active: number;
}

/** Readers of a town who brought others through their share link, most first (for the operator desk). */
export function referralCounts(db: DB, placeGeoid: string): ReferralCount[] {
  return cachedStatement(db, `SELECT r.id AS subscriberId, r.email, COUNT(*) AS referred, SUM(s.status = 'active') AS active
    FROM subscribers s JOIN subscribers r ON r.id = s.referred_by
    WHERE r.place_geoid = ? GROUP BY r.id ORDER BY referred DESC, r.id`).all(placeGeoid) as ReferralCount[];
}
