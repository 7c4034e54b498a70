import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { cachedStatement as stmt, type DB } from "../db.ts";

/*
 * Fedify's key-value store (remote documents and keys it fetched, activity idempotence, the circuit
 * breaker's state) on this database: a key is its JSON array, a value its JSON. An entry past its
 * TTL reads as absent and is swept when written over or by `sweepExpiredKv`.
 */

const keyOf = (key: KvKey) => JSON.stringify(key);

/** Milliseconds of a Temporal duration (Fedify passes its polyfill's). */
const msOf = (d: { total(unit: "millisecond"): number }) => d.total("millisecond");

export class SqliteKvStore implements KvStore {
  readonly #db: DB;
  readonly #now: () => number;

  constructor(db: DB, now: () => number = Date.now) {
    this.#db = db;
    this.#now = now;
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const row = stmt(this.#db, "SELECT value, expires_at AS expiresAt FROM fediverse_kv WHERE key = ?").get(keyOf(key)) as { value: string; expiresAt: number | null } | undefined;
    if (!row || (row.expiresAt !== null && row.expiresAt <= this.#now())) return undefined;
    return JSON.parse(row.value) as T;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    const expiresAt = options?.ttl ? this.#now() + msOf(options.ttl) : null;
    stmt(this.#db, `INSERT INTO fediverse_kv (key, value, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`).run(keyOf(key), JSON.stringify(value ?? null), expiresAt);
  }

  async delete(key: KvKey): Promise<void> {
    stmt(this.#db, "DELETE FROM fediverse_kv WHERE key = ?").run(keyOf(key));
  }

  /** Compare-and-swap in one transaction: `expectedValue` undefined means "absent". */
  async cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    return this.#db.transaction(() => {
      const row = stmt(this.#db, "SELECT value, expires_at AS expiresAt FROM fediverse_kv WHERE key = ?").get(keyOf(key)) as { value: string; expiresAt: number | null } | undefined;
      const live = row && (row.expiresAt === null || row.expiresAt > this.#now()) ? row.value : undefined;
      if (live !== (expectedValue === undefined ? undefined : JSON.stringify(expectedValue))) return false;
      const expiresAt = options?.ttl ? this.#now() + msOf(options.ttl) : null;
      stmt(this.#db, `INSERT INTO fediverse_kv (key, value, expires_at) VALUES (?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`).run(keyOf(key), JSON.stringify(newValue ?? null), expiresAt);
      return true;
    }).immediate();
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    // A key's JSON starts with its prefix's JSON less the closing bracket, then a comma (or is the prefix itself).
    const open = prefix ? keyOf(prefix).slice(0, -1) : "[";
    const rows = stmt(this.#db, `SELECT key, value FROM fediverse_kv
      WHERE (key = ? OR (key >= ? AND key < ?)) AND (expires_at IS NULL OR expires_at > ?) ORDER BY key`)
      .all(prefix ? keyOf(prefix) : "", `${open},`, `${open}-`, this.#now()) as Array<{ key: string; value: string }>;
    for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) };
  }
}

/** Drops entries past their TTL (the worker calls it now and then). */
export function sweepExpiredKv(db: DB, nowMs: number): number {
  return stmt(db, "DELETE FROM fediverse_kv WHERE expires_at IS NOT NULL AND expires_at <= ?").run(nowMs).changes;
}
