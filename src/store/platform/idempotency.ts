import { cachedStatement as stmt, type DB } from "../db.ts";

// Idempotency keys (table idempotency_keys, migration 022): claimed before an operation runs,
// finished with its answer, released when it fails.

export interface IdempotencyRow {
  scope: string;
  idem_key: string;
  request_hash: string;
  state: "in_progress" | "done";
  status: number | null;
  response_json: string | null;
  created_at: string;
}

export type Claim = { claimed: true } | { claimed: false; row: IdempotencyRow };

/**
 * Claims `key` in `scope` for a request, in one transaction: rows older than `expiredBefore` are
 * dropped first, and so is this key's claim if it is still in progress from before `staleBefore`
 * (its request died). One of two requests racing for a key claims it; the other gets the row.
 */
export function claimIdempotencyKey(db: DB, c: { scope: string; key: string; hash: string; now: string; expiredBefore: string; staleBefore: string }): Claim {
  return db.transaction((): Claim => {
    stmt(db, "DELETE FROM idempotency_keys WHERE created_at < ?").run(c.expiredBefore);
    stmt(db, "DELETE FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND state = 'in_progress' AND created_at < ?").run(c.scope, c.key, c.staleBefore);
    const inserted = stmt(db, "INSERT INTO idempotency_keys (scope, idem_key, request_hash, state, created_at) VALUES (?, ?, ?, 'in_progress', ?) ON CONFLICT DO NOTHING")
      .run(c.scope, c.key, c.hash, c.now);
    if (inserted.changes === 1) return { claimed: true };
    return { claimed: false, row: stmt(db, "SELECT * FROM idempotency_keys WHERE scope = ? AND idem_key = ?").get(c.scope, c.key) as IdempotencyRow };
  }).immediate();
}

/** Stores the answer of a claimed key's request: later requests with the key replay it. */
export function finishIdempotencyKey(db: DB, scope: string, key: string, status: number, responseJson: string): void {
  stmt(db, "UPDATE idempotency_keys SET state = 'done', status = ?, response_json = ? WHERE scope = ? AND idem_key = ?").run(status, responseJson, scope, key);
}

/** Frees a claimed key whose request failed: nothing was answered, so a retry runs again. */
export function releaseIdempotencyKey(db: DB, scope: string, key: string): void {
  stmt(db, "DELETE FROM idempotency_keys WHERE scope = ? AND idem_key = ? AND state = 'in_progress'").run(scope, key);
}
