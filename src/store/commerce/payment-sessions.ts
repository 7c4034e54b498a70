import { cachedStatement as stmt, type DB } from "../db.ts";

// The local provider's hosted checkout sessions (table local_checkout_sessions).

/** A checkout session of the local payment provider, as its hosted page shows it. */
export interface HostedSession {
  id: string;
  reference: string;
  mode: "payment" | "subscription";
  description: string;
  amountCents: number;
  currency: string;
  email: string;
  successUrl: string;
  cancelUrl: string;
  status: "open" | "complete" | "expired";
  expiresAt: string;
}

interface Row {
  id: string; reference: string; mode: "payment" | "subscription"; description: string; amount_cents: number; currency: string;
  email: string; success_url: string; cancel_url: string; status: HostedSession["status"]; expires_at: string;
}

const toSession = (r: Row): HostedSession => ({
  id: r.id, reference: r.reference, mode: r.mode, description: r.description, amountCents: r.amount_cents, currency: r.currency,
  email: r.email, successUrl: r.success_url, cancelUrl: r.cancel_url, status: r.status, expiresAt: r.expires_at,
});

/** Inserts the session, or returns the open one this reference already has (a retried request makes no second link). */
export function insertLocalSession(db: DB, s: Omit<HostedSession, "status">, nowIso: string): HostedSession {
  return db.transaction(() => {
    const existing = stmt(db, "SELECT * FROM local_checkout_sessions WHERE reference = ? AND mode = ?").get(s.reference, s.mode) as Row | undefined;
    if (existing) return toSession(existing);
    stmt(db, `INSERT INTO local_checkout_sessions (id, reference, mode, description, amount_cents, currency, email, success_url, cancel_url, status, expires_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?)`).run(s.id, s.reference, s.mode, s.description, s.amountCents, s.currency, s.email, s.successUrl, s.cancelUrl, s.expiresAt, nowIso);
    return { ...s, status: "open" as const };
  }).immediate();
}

/**
 * The one event id a session's Pay emits (evt_ + the session id): the payment callback records it
 * in the same transaction as the payment's effect (services/commerce/payments.ts).
 */
export const localEventId = (sessionId: string) => `evt_${sessionId}`;

/**
 * A session is paid when its payment event is recorded, not by a flag of its own: there is no
 * moment (a crash) when the page says "paid" and the order is not. Rows marked 'complete' by
 * earlier versions with no payment recorded for their order or lease (the crash this prevents) read
 * as open, so Pay delivers the payment.
 */
export function findLocalSession(db: DB, id: string): HostedSession | undefined {
  const r = stmt(db, `SELECT s.*, CASE WHEN EXISTS (SELECT 1 FROM payment_events e WHERE e.event_id = 'evt_' || s.id) THEN 'complete'
      WHEN s.status = 'complete' AND EXISTS (SELECT 1 FROM payment_events e WHERE e.reference = s.reference AND e.type = 'checkout.completed') THEN 'complete'
      WHEN s.status = 'complete' THEN 'open' ELSE s.status END AS status
    FROM local_checkout_sessions s WHERE s.id = ?`).get(id) as Row | undefined;
  return r && toSession(r);
}
