import type { DB } from "./db.ts";
import type { PlaceRow } from "./places.ts";

/**
 * A place is a city once it has an active subscriber or a published edition. Edition owners are
 * found by hopping from one distinct place_geoid to the next along the (place_geoid, date) index,
 * so the cost follows the number of cities, not the size of the archive.
 */
const TRACKED_GEOIDS = `
  WITH RECURSIVE edition_places(geoid) AS (
    SELECT (SELECT MIN(place_geoid) FROM editions)
    UNION ALL
    SELECT (SELECT MIN(place_geoid) FROM editions WHERE place_geoid > edition_places.geoid)
    FROM edition_places WHERE edition_places.geoid IS NOT NULL
  )
  SELECT geoid FROM edition_places WHERE geoid IS NOT NULL
  UNION
  SELECT DISTINCT place_geoid FROM subscribers WHERE status = 'active'`;

export interface CityRow {
  slug: string;
  name: string;
  state_name: string;
}

export function listTrackedCities(db: DB): CityRow[] {
  return db.prepare(`
    SELECT p.slug, p.name, p.state_name FROM places p
    WHERE p.geoid IN (${TRACKED_GEOIDS})
    ORDER BY p.state_name, p.name, p.slug`).all() as CityRow[];
}

export function isTrackedCity(db: DB, geoid: string): boolean {
  return db.prepare(`
    SELECT EXISTS (SELECT 1 FROM subscribers WHERE place_geoid = @g AND status = 'active')
        OR EXISTS (SELECT 1 FROM editions WHERE place_geoid = @g)`).pluck().get({ g: geoid }) === 1;
}

export function activeSubscriberCount(db: DB, geoid: string): number {
  return db.prepare("SELECT COUNT(*) FROM subscribers WHERE place_geoid = ? AND status = 'active'").pluck().get(geoid) as number;
}

export type { PlaceRow };
