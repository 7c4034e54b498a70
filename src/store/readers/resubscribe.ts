import { cachedStatement as stmt, type DB } from "../db.ts";
import { recordMailEvent } from "./subscribers.ts";

// Confirmation links of suppressed addresses asked to subscribe again (table resubscribe_requests,
// migration 031). Callers pass token hashes only; the raw token is only in the email.

export interface ResubscribeRequest {
  email: string;
  place_geoid: string;
  expires_at: string;
}

/** Whether a confirmation link was sent to this address since `sinceIso` (at most one a day). */
export function confirmationSentSince(db: DB, email: string, sinceIso: string): boolean {
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM resubscribe_requests WHERE email = ? AND created_at > ?)").pluck().get(email, sinceIso) === 1;
}

export function insertResubscribeRequest(db: DB, r: { hash: string; email: string; placeGeoid: string; expiresAt: string }, nowIso: string): void {
  stmt(db, "INSERT INTO resubscribe_requests (token_hash, email, place_geoid, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(r.hash, r.email, r.placeGeoid, nowIso, r.expiresAt);
}

/** The request of an unused, unexpired link (the confirmation page, before its button is pressed). */
export function usableResubscribeRequest(db: DB, hash: string, nowIso: string): ResubscribeRequest | undefined {
  return stmt(db, "SELECT email, place_geoid, expires_at FROM resubscribe_requests WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?")
    .get(hash, nowIso) as ResubscribeRequest | undefined;
}

/** Marks the link used in the same statement that reads it: exactly one press wins. */
export function consumeResubscribeRequest(db: DB, hash: string, nowIso: string): ResubscribeRequest | undefined {
  return stmt(db, "UPDATE resubscribe_requests SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING email, place_geoid, expires_at")
    .get(nowIso, hash, nowIso) as ResubscribeRequest | undefined;
}

/**
 * The owner confirmed: the address's suppression is lifted whatever its reader-side reason (its own
 * "unsubscribe from every city", a bounce, a complaint), never staff's (`manual`). The history keeps
 * a line. False when a staff suppression stays.
 */
export function liftSuppressionConfirmed(db: DB, email: string, source: string, nowIso: string): boolean {
  const row = stmt(db, "DELETE FROM suppressions WHERE email = ? AND reason IN ('unsubscribed', 'bounced', 'complained') RETURNING reason").get(email) as { reason: string } | undefined;
  if (row) recordMailEvent(db, { email, kind: "suppression_lifted", source, detail: `${row.reason}; confirmed by the address`, now: nowIso });
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM suppressions WHERE email = ?)").pluck().get(email) === 0;
}

/** The link's email no longer needs its link once used: the outbox keeps the message, not the token. */
export function forgetConfirmationLink(db: DB, dedupeKey: string): void {
  stmt(db, "UPDATE outbox SET payload = '{}' WHERE kind = 'transactional' AND dedupe_key = ? AND status IN ('sent', 'failed', 'cancelled')").run(dedupeKey);
}
