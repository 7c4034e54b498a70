import type { StoredPreferences } from "../../core/readers/preferences.ts";
import { cachedStatement, type DB } from "../db.ts";

// A reader's choices for one town, on their subscription (src/store/migrations/034-reader-preferences.sql).

export interface PendingDigest {
  id: number;
  /** The edition's date, in the town's time zone. */
  date: string;
}

/**
 * Stores the choices and, in the same transaction, brings unsent daily digests in line with them: a
 * reader who switched to once a week gets no daily digest still waiting (cancelled, kept as such);
 * a new delivery time moves those waiting to `retimed` (epoch ms per row, from the caller, who knows
 * the town's clock). Returns how many waiting digests were cancelled.
 */
export function savePreferences(db: DB, subscriberId: number, p: StoredPreferences, now: string, retimed: ReadonlyArray<{ id: number; at: number }>): number {
  return db.transaction(() => {
    cachedStatement(db, `UPDATE subscribers SET frequency = @frequency, weekly_day = @weekly_day, delivery_minute = @delivery_minute,
      hidden_sections = @hidden_sections, updated_at = @now WHERE id = @id`).run({ ...p, now, id: subscriberId });
    if (p.frequency === "weekly") {
      return cachedStatement(db, "UPDATE outbox SET status = 'cancelled', last_error = 'switched to weekly' WHERE kind = 'digest' AND subscriber_id = ? AND status = 'pending'")
        .run(subscriberId).changes;
    }
    for (const r of retimed) cachedStatement(db, "UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND status = 'pending' AND attempts = 0").run(r.at, r.id);
    return 0;
  }).immediate();
}

/** This subscription's daily digests queued and not yet tried (a retry keeps its own backoff). */
export function pendingDigests(db: DB, subscriberId: number): PendingDigest[] {
  return cachedStatement(db, `SELECT o.id, e.date FROM outbox o JOIN editions e ON e.id = o.edition_id
    WHERE o.kind = 'digest' AND o.subscriber_id = ? AND o.status = 'pending' AND o.attempts = 0`).all(subscriberId) as PendingDigest[];
}

/** The IANA time zone of a place (its readers' delivery times are in it). */
export function townTimezone(db: DB, placeGeoid: string): string | undefined {
  return cachedStatement(db, "SELECT timezone FROM places WHERE geoid = ?").pluck().get(placeGeoid) as string | undefined;
}
