import { cachedStatement, type DB } from "../db.ts";

// The run snapshot's rows (migration 017): outside sources' answers per grain, and towns' NWS zones.

export interface SourceAnswerRow {
  key: string;
  fetched_at: string;
  body: string;
  etag: string | null;
  last_modified: string | null;
}

/** Stored answers of `source` for these keys fetched at or after `since` (ISO): one read for all of them. */
export function sourceAnswers(db: DB, source: string, keys: string[], since: string): Map<string, SourceAnswerRow> {
  if (keys.length === 0) return new Map();
  const rows = cachedStatement(db, `SELECT a.key, a.fetched_at, a.body, a.etag, a.last_modified FROM json_each(?) j CROSS JOIN source_answers a
    ON a.source = ? AND a.key = j.value WHERE a.fetched_at >= ?`).all(JSON.stringify(keys), source, since) as SourceAnswerRow[];
  return new Map(rows.map((r) => [r.key, r]));
}

export function sourceAnswer(db: DB, source: string, key: string): SourceAnswerRow | undefined {
  return cachedStatement(db, "SELECT key, fetched_at, body, etag, last_modified FROM source_answers WHERE source = ? AND key = ?").get(source, key) as SourceAnswerRow | undefined;
}

/** Stores (or replaces) answers of `source`: one statement for all of them. */
export function saveSourceAnswers(db: DB, source: string, rows: Array<{ key: string; body: string; etag?: string | null; lastModified?: string | null }>, fetchedAt: string): void {
  if (rows.length === 0) return;
  cachedStatement(db, `INSERT INTO source_answers (source, key, fetched_at, body, etag, last_modified)
    SELECT ?, json_extract(value, '$[0]'), ?, json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(?) WHERE true
    ON CONFLICT (source, key) DO UPDATE SET fetched_at = excluded.fetched_at, body = excluded.body, etag = excluded.etag, last_modified = excluded.last_modified`)
    .run(source, fetchedAt, JSON.stringify(rows.map((r) => [r.key, r.body, r.etag ?? null, r.lastModified ?? null])));
}

/** Marks an answer as still current (a 304): its `fetched_at` moves on. */
export function touchSourceAnswer(db: DB, source: string, key: string, fetchedAt: string): void {
  cachedStatement(db, "UPDATE source_answers SET fetched_at = ? WHERE source = ? AND key = ?").run(fetchedAt, source, key);
}

export interface PlaceZonesRow {
  place_geoid: string;
  forecast_zone: string | null;
  fire_zone: string | null;
  county_zone: string | null;
}

/** Every stored town's zones (a few MB at most for every U.S. place): read once per run. */
export function allPlaceZones(db: DB): Map<string, PlaceZonesRow> {
  const rows = cachedStatement(db, "SELECT place_geoid, forecast_zone, fire_zone, county_zone FROM place_zones").all() as PlaceZonesRow[];
  return new Map(rows.map((r) => [r.place_geoid, r]));
}

export function savePlaceZones(db: DB, row: PlaceZonesRow, at: string): void {
  cachedStatement(db, `INSERT INTO place_zones (place_geoid, forecast_zone, fire_zone, county_zone, looked_up_at) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (place_geoid) DO UPDATE SET forecast_zone = excluded.forecast_zone, fire_zone = excluded.fire_zone, county_zone = excluded.county_zone, looked_up_at = excluded.looked_up_at`)
    .run(row.place_geoid, row.forecast_zone, row.fire_zone, row.county_zone, at);
}

/** Subscribed towns whose zones were never looked up, most subscribers first. */
export function subscribedPlacesWithoutZones(db: DB, limit: number): Array<{ geoid: string; slug: string; latitude: number; longitude: number }> {
  return cachedStatement(db, `
    SELECT p.geoid, p.slug, p.latitude, p.longitude FROM places p
    JOIN (SELECT place_geoid, COUNT(*) AS n FROM subscribers WHERE status = 'active' GROUP BY place_geoid) s ON s.place_geoid = p.geoid
    WHERE NOT EXISTS (SELECT 1 FROM place_zones z WHERE z.place_geoid = p.geoid)
    ORDER BY s.n DESC, p.geoid LIMIT ?`).all(limit) as Array<{ geoid: string; slug: string; latitude: number; longitude: number }>;
}
