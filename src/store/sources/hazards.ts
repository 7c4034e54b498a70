import { cachedStatement as stmt, type DB } from "../db.ts";

// The hazard providers' state between runs and what each town was told (migration 018).

export interface HazardSourceRow {
  provider: string;
  etag: string | null;
  last_modified: string | null;
  items_json: string | null;
  fetched_at: string | null;
  consecutive_failures: number;
  last_error: string | null;
  open_until: string | null;
}

export function hazardSource(db: DB, provider: string): HazardSourceRow | undefined {
  return stmt(db, "SELECT * FROM hazard_sources WHERE provider = ?").get(provider) as HazardSourceRow | undefined;
}

/** A good answer: its items and validators kept, the breaker closed. */
export function recordHazardOk(db: DB, provider: string, at: string, answer: { itemsJson: string; etag: string | null; lastModified: string | null }): void {
  stmt(db, `INSERT INTO hazard_sources (provider, etag, last_modified, items_json, fetched_at, consecutive_failures, last_error, open_until)
    VALUES (?, ?, ?, ?, ?, 0, NULL, NULL)
    ON CONFLICT (provider) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, items_json = excluded.items_json,
      fetched_at = excluded.fetched_at, consecutive_failures = 0, last_error = NULL, open_until = NULL`)
    .run(provider, answer.etag, answer.lastModified, answer.itemsJson, at);
}

/** A 304: the kept items are current as of `at`. */
export function recordHazardNotModified(db: DB, provider: string, at: string): void {
  stmt(db, "UPDATE hazard_sources SET fetched_at = ?, consecutive_failures = 0, last_error = NULL, open_until = NULL WHERE provider = ?").run(at, provider);
}

/** A failure: counted, and the breaker opened until `openUntil` (null: not yet). Returns the failures in a row. */
export function recordHazardFailure(db: DB, provider: string, reason: string, openUntil: string | null): number {
  const row = stmt(db, `INSERT INTO hazard_sources (provider, consecutive_failures, last_error, open_until) VALUES (?, 1, ?, ?)
    ON CONFLICT (provider) DO UPDATE SET consecutive_failures = consecutive_failures + 1, last_error = excluded.last_error, open_until = excluded.open_until
    RETURNING consecutive_failures`).get(provider, reason, openUntil) as { consecutive_failures: number };
  return row.consecutive_failures;
}


