import { cachedStatement as stmt, type DB } from "../db.ts";

// A town's readers as its operator sees them (the desk's Audience section): counts only, no addresses.
// (Subscribers now: activeSubscriberCount in cities.ts.)

/** Instants (ISO) of subscriptions started, and of unsubscriptions, since `sinceIso`; the caller buckets them by local day. */
export function audienceChanges(db: DB, placeGeoid: string, sinceIso: string): { joined: string[]; left: string[] } {
  const joined = stmt(db, "SELECT created_at FROM subscribers WHERE place_geoid = ? AND created_at >= ?").pluck().all(placeGeoid, sinceIso) as string[];
  // An unsubscribed row's updated_at is when it left (nothing else updates an unsubscribed row).
  const left = stmt(db, "SELECT updated_at FROM subscribers WHERE place_geoid = ? AND status = 'unsubscribed' AND updated_at >= ?").pluck().all(placeGeoid, sinceIso) as string[];
  return { joined, left };
}

/** Emails sent per edition, newest edition first. */
export function sentPerEdition(db: DB, placeGeoid: string, limit: number): Array<{ date: string; sent: number; queued: number }> {
  // The newest editions first, then their digests through outbox_edition (migration 013).
  return stmt(db, `WITH e AS (SELECT id, date FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT ?)
    SELECT e.date, COUNT(o.id) FILTER (WHERE o.status = 'sent') AS sent, COUNT(o.id) AS queued
    FROM e LEFT JOIN outbox o ON o.edition_id = e.id AND o.kind = 'digest'
    GROUP BY e.id ORDER BY e.date DESC`).all(placeGeoid, limit) as Array<{ date: string; sent: number; queued: number }>;
}

