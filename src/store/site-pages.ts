import { cachedStatement, type DB } from "./db.ts";
import type { PlaceRow } from "./places.ts";

// Queries behind the HTML site. Every one is keyed so that its cost follows what is rendered
// (one city, one edition, the cities with editions), never the size of the archive.

export interface EditionKey {
  id: number;
  slug: string;
  date: string;
  place_geoid: string;
  state_name: string;
}

export interface SiteEditionRow {
  id: number;
  date: string;
  subject: string;
  html: string;
  markdown: string;
  weather_json: string | null;
  published_at: string;
}

export interface CityWithEditions {
  geoid: string;
  slug: string;
  name: string;
  state_name: string;
  population: number | null;
  latitude: number;
  longitude: number;
  latest_date: string;
  latest_subject: string;
}

export interface StateTotals {
  state_name: string;
  population: number;
  housing_units: number;
  land_area_sq_mi: number;
  places: number;
  // Population-weighted averages of the places' ACS figures (null when no place has the figure yet).
  median_income: number | null;
  median_home_value: number | null;
  median_rent: number | null;
  median_age: number | null;
  college_degree_percent: number | null;
  avg_commute_minutes: number | null;
  work_from_home_percent: number | null;
}

// Statements are prepared once per connection: a full rebuild runs these hundreds of thousands of times.
const stmt = cachedStatement;

const KEY_SELECT = `SELECT e.id, p.slug, e.date, e.place_geoid, p.state_name FROM editions e JOIN places p ON p.geoid = e.place_geoid`;

export function editionKeysByIds(db: DB, ids: readonly number[]): EditionKey[] {
  if (ids.length === 0) return [];
  // json_each keeps this one statement whatever the number of ids.
  return db.prepare(`${KEY_SELECT} WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.id`).all(JSON.stringify(ids)) as EditionKey[];
}

export function placeBySlug(db: DB, slug: string): PlaceRow | undefined {
  return stmt(db, "SELECT * FROM places WHERE slug = ?").get(slug) as PlaceRow | undefined;
}

/** The newest `limit` entries of a city's archive (read from the covering index of migration 005). */
export function archiveIndex(db: DB, geoid: string, limit: number): Array<{ date: string; subject: string }> {
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT ?").all(geoid, limit) as Array<{ date: string; subject: string }>;
}

export function editionCountOf(db: DB, geoid: string): number {
  return stmt(db, "SELECT COUNT(*) FROM editions WHERE place_geoid = ?").pluck().get(geoid) as number;
}

/** The next `limit` edition keys after `afterId`, in id order: the full rebuild reads the archive in pages. */
export function editionKeysAfter(db: DB, afterId: number, limit: number): EditionKey[] {
  return stmt(db, `${KEY_SELECT} WHERE e.id > ? ORDER BY e.id LIMIT ?`).all(afterId, limit) as EditionKey[];
}

export function siteEdition(db: DB, geoid: string, date: string): SiteEditionRow | undefined {
  return stmt(db, "SELECT id, date, subject, html, markdown, weather_json, published_at FROM editions WHERE place_geoid = ? AND date = ?")
    .get(geoid, date) as SiteEditionRow | undefined;
}

export function latestSiteEdition(db: DB, geoid: string): SiteEditionRow | undefined {
  return stmt(db, "SELECT id, date, subject, html, markdown, weather_json, published_at FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT 1")
    .get(geoid) as SiteEditionRow | undefined;
}

export function previousEditionDate(db: DB, geoid: string, date: string): { date: string; subject: string } | undefined {
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = ? AND date < ? ORDER BY date DESC LIMIT 1")
    .get(geoid, date) as { date: string; subject: string } | undefined;
}

/**
 * Cities with at least one edition and their latest one. Distinct owners are found by hopping along
 * the (place_geoid, date) index, so this costs one probe per city rather than a scan of the archive.
 */
export function citiesWithEditions(db: DB, stateName?: string): CityWithEditions[] {
  return db.prepare(`
    WITH RECURSIVE owners(geoid) AS (
      SELECT (SELECT MIN(place_geoid) FROM editions)
      UNION ALL
      SELECT (SELECT MIN(place_geoid) FROM editions WHERE place_geoid > owners.geoid) FROM owners WHERE owners.geoid IS NOT NULL
    )
    SELECT p.geoid, p.slug, p.name, p.state_name, p.population, p.latitude, p.longitude,
      l.date AS latest_date, l.subject AS latest_subject
    FROM owners o
    JOIN places p ON p.geoid = o.geoid
    JOIN editions l ON l.id = (SELECT id FROM editions WHERE place_geoid = o.geoid ORDER BY date DESC LIMIT 1)
    WHERE (@state IS NULL OR p.state_name = @state)
    ORDER BY p.state_name, p.name, p.slug`).all({ state: stateName ?? null }) as CityWithEditions[];
}

/** Every half-degree cell that holds a U.S. place: drawn faintly, they give the map its shape. */
export function placeGrid(db: DB): Array<{ lat: number; lon: number }> {
  return db.prepare("SELECT DISTINCT round(latitude * 2) / 2 AS lat, round(longitude * 2) / 2 AS lon FROM places").all() as Array<{ lat: number; lon: number }>;
}

/** Totals of every state and of the nation (state_name "United States"), from the places table. */
export function placeTotals(db: DB): StateTotals[] {
  const weighted = (col: string) => `SUM(CASE WHEN ${col} IS NOT NULL THEN ${col} * population END) / NULLIF(SUM(CASE WHEN ${col} IS NOT NULL THEN population END), 0) AS ${col}`;
  const cols = `SUM(population) AS population, SUM(housing_units) AS housing_units, SUM(land_area_sq_mi) AS land_area_sq_mi, COUNT(*) AS places,
    ${["median_income", "median_home_value", "median_rent", "median_age", "college_degree_percent", "avg_commute_minutes", "work_from_home_percent"].map(weighted).join(",\n    ")}`;
  return db.prepare(`
    SELECT state_name, ${cols} FROM places WHERE population > 0 GROUP BY state_name
    UNION ALL
    SELECT 'United States', ${cols} FROM places WHERE population > 0`).all() as StateTotals[];
}

export type { PlaceRow };
