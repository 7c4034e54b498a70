import { cachedStatement as stmt, type DB } from "../db.ts";

// The operator desk's sign-in: one-time link tokens and sessions (tables operator_login_tokens and
// operator_sessions). Callers pass hashes only; the raw tokens never reach the database.

export function insertLoginToken(db: DB, t: { hash: string; email: string; expiresAt: string }, nowIso: string): void {
  stmt(db, "INSERT INTO operator_login_tokens (token_hash, email, expires_at, created_at) VALUES (?, ?, ?, ?)").run(t.hash, t.email, t.expiresAt, nowIso);
}

/** The email of an unused, unexpired token, marked used in the same statement: exactly one caller wins. */
export function consumeLoginToken(db: DB, hash: string, nowIso: string): string | undefined {
  return stmt(db, `UPDATE operator_login_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING email`)
    .pluck().get(nowIso, hash, nowIso) as string | undefined;
}

/** True when the token exists and is still usable (the confirmation page, before the button is pressed). */
export function loginTokenUsable(db: DB, hash: string, nowIso: string): boolean {
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM operator_login_tokens WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?)").pluck().get(hash, nowIso) === 1;
}

export function insertSession(db: DB, s: { hash: string; email: string; expiresAt: string }, nowIso: string): void {
  stmt(db, "INSERT INTO operator_sessions (id_hash, email, expires_at, created_at) VALUES (?, ?, ?, ?)").run(s.hash, s.email, s.expiresAt, nowIso);
}

export function sessionEmail(db: DB, hash: string, nowIso: string): string | undefined {
  return stmt(db, "SELECT email FROM operator_sessions WHERE id_hash = ? AND expires_at > ?").pluck().get(hash, nowIso) as string | undefined;
}

export function deleteSession(db: DB, hash: string): void {
  stmt(db, "DELETE FROM operator_sessions WHERE id_hash = ?").run(hash);
}

/**
 * Forgets what can no longer be used: expired tokens and sessions, and the payload (which holds the
 * raw link) of sign-in emails that are finished or whose link has expired anyway.
 */
export function pruneSignIn(db: DB, nowIso: string, linkCutoffIso: string): void {
  stmt(db, "DELETE FROM operator_login_tokens WHERE expires_at <= ?").run(nowIso);
  stmt(db, "DELETE FROM operator_sessions WHERE expires_at <= ?").run(nowIso);
  // A link that could not be delivered within its 15 minutes is useless: it is not sent late.
  stmt(db, `UPDATE outbox SET status = 'cancelled', last_error = 'sign-in link expired before delivery'
    WHERE kind = 'transactional' AND template = 'operator_sign_in' AND status = 'pending' AND created_at <= ?`).run(linkCutoffIso);
  stmt(db, `UPDATE outbox SET payload = '{}' WHERE kind = 'transactional' AND template = 'operator_sign_in' AND payload <> '{}'
    AND status IN ('sent', 'failed', 'cancelled')`).run();
}

/** True when this address runs or ran a town (a lease was paid with it). */
export function isOperator(db: DB, email: string): boolean {
  return stmt(db, "SELECT EXISTS (SELECT 1 FROM leases WHERE operator_email = ? AND status IN ('active', 'ended'))").pluck().get(email) === 1;
}
