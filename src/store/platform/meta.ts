import { cachedStatement, type DB } from "../db.ts";

// The `meta` key/value table: small settings and markers kept with the data (secrets generated on
// first use, the places dataset's hash, the morning lease, search watermarks).

export function getMeta(db: DB, key: string): string | undefined {
  return cachedStatement(db, "SELECT value FROM meta WHERE key = ?").pluck().get(key) as string | undefined;
}

export function setMeta(db: DB, key: string, value: string): void {
  cachedStatement(db, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(key, value);
}

export function deleteMeta(db: DB, key: string): void {
  cachedStatement(db, "DELETE FROM meta WHERE key = ?").run(key);
}

/** The stored value of `key`, storing `value` first if there is none (the first writer wins across processes). */
export function getOrInsertMeta(db: DB, key: string, value: string): string {
  cachedStatement(db, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING").run(key, value);
  return getMeta(db, key)!;
}
