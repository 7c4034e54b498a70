import type { HostedSession } from "../integrations/payments/types.ts";
import { cachedStatement as stmt, type DB } from "./db.ts";

// The local provider's hosted checkout sessions (table local_checkout_sessions).

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

export function findLocalSession(db: DB, id: string): HostedSession | undefined {
  const r = stmt(db, "SELECT * FROM local_checkout_sessions WHERE id = ?").get(id) as Row | undefined;
  return r && toSession(r);
}

/** Open -> complete, once; false when it was not open (paid already, expired). */
export function completeLocalSession(db: DB, id: string): boolean {
  return stmt(db, "UPDATE local_checkout_sessions SET status = 'complete' WHERE id = ? AND status = 'open'").run(id).changes === 1;
}

export function expireLocalSession(db: DB, id: string): void {
  stmt(db, "UPDATE local_checkout_sessions SET status = 'expired' WHERE id = ? AND status = 'open'").run(id);
}
