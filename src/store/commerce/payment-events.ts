import { cachedStatement as stmt, type DB } from "../db.ts";

/** Records a callback's event id; false when it was seen before (the caller then changes nothing). Call inside the effect's transaction. */
export function recordPaymentEvent(db: DB, e: { eventId: string; provider: string; type: string; reference: string | null }, nowIso: string): boolean {
  return stmt(db, "INSERT INTO payment_events (event_id, provider, type, reference, received_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
    .run(e.eventId, e.provider, e.type, e.reference, nowIso).changes === 1;
}
