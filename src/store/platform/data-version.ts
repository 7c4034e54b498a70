import { cachedStatement, connectionCache, type DB } from "../db.ts";

/**
 * A value that changes whenever the database may have changed: `total_changes()` counts this
 * connection's writes, `data_version` moves when another connection (the morning run, the admin
 * CLI, the sender in another process) commits. One cheap step; caches of reads key on it.
 */
export function dataVersion(db: DB): string {
  return `${localChanges(db)}.${foreignCommits(db)}`;
}

/** This connection's writes so far (`total_changes()`): exact and cheap (0.2 µs). */
export function localChanges(db: DB): number {
  return (cachedStatement(db, "SELECT total_changes()").pluck().get() as number);
}

/** Moves when another connection commits (`data_version`): a pragma, ten times the cost (2.4 µs). */
export function foreignCommits(db: DB): number {
  return (cachedStatement(db, "SELECT data_version FROM pragma_data_version").pluck().get() as number);
}

/**
 * `dataVersion` for hot reads (cache hits): this connection's writes exactly, other connections'
 * commits as read once per turn of the event loop (kept on the connection). A commit elsewhere shows
 * from the next turn, before any later request is read.
 */
export function dataVersionOfTurn(db: DB): string {
  const turn = connectionCache(db, "foreign-commits-of-turn", () => ({ value: undefined as number | undefined }));
  if (turn.value === undefined) {
    turn.value = foreignCommits(db);
    setImmediate(() => (turn.value = undefined));
  }
  return `${localChanges(db)}.${turn.value}`;
}

/** `compute()` once per data version of this connection, for reads that many requests repeat. */
export function perDataVersion<T>(cache: Map<string, { version: string; value: T }>, db: DB, key: string, compute: () => T): T {
  const version = dataVersion(db);
  const hit = cache.get(key);
  if (hit && hit.version === version) return hit.value;
  const value = compute();
  // Computing may itself write (never here: callers read), so the version is the one before.
  cache.set(key, { version, value });
  return value;
}
