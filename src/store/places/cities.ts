import { cachedStatement, type DB } from "../db.ts";
import type { PlaceRow } from "./places.ts";

/**
 * The places with at least one edition. Owners are found by hopping from one distinct place_geoid
 * to the next along the (place_geoid, date) index, so the cost follows the number of cities, not
 * the size of the archive. The one definition of "cities with editions".
 */
const EDITION_OWNERS = `
  WITH RECURSIVE edition_places(geoid) AS (
    SELECT (SELECT MIN(place_geoid) FROM editions)
    UNION ALL
    SELECT (SELECT MIN(place_geoid) FROM editions WHERE place_geoid > edition_places.geoid)
    FROM edition_places WHERE edition_places.geoid IS NOT NULL
  )`;

/** A place is a city once it has an active subscriber or a published edition. */
const NEWSLETTER_GEOIDS = `${EDITION_OWNERS}
  SELECT geoid FROM edition_places WHERE geoid IS NOT NULL
  UNION
  SELECT DISTINCT place_geoid FROM subscribers WHERE status = 'active'`;

/** A city with a published edition: its place row and its latest edition (the site's unit). */
export interface PublishedTown extends PlaceRow {
  latest_date: string;
  latest_subject: string;
  latest_published_at: string;
}

/** Every city with at least one edition, by state then name, with its latest edition. */
export function publishedTowns(db: DB): PublishedTown[] {
  return cachedStatement(db, `${EDITION_OWNERS}
    SELECT p.*, l.date AS latest_date, l.subject AS latest_subject, l.published_at AS latest_published_at
    FROM edition_places o
    JOIN places p ON p.geoid = o.geoid
    JOIN editions l ON l.id = (SELECT id FROM editions WHERE place_geoid = o.geoid ORDER BY date DESC LIMIT 1)
    ORDER BY p.state_name, p.name, p.slug`).all() as PublishedTown[];
}

export interface NewsletterTownRow {
  slug: string;
  name: string;
  state_name: string;
}

export function listNewsletterTowns(db: DB): NewsletterTownRow[] {
  return cachedStatement(db, `
    SELECT p.slug, p.name, p.state_name FROM places p
    WHERE p.geoid IN (${NEWSLETTER_GEOIDS})
    ORDER BY p.state_name, p.name, p.slug`).all() as NewsletterTownRow[];
}

/** Which of these slugs name a city (an active subscriber or a published edition). */
export function newsletterSlugs(db: DB, slugs: readonly string[]): Set<string> {
  if (slugs.length === 0) return new Set();
  const rows = cachedStatement(db, `
    SELECT p.slug FROM places p, json_each(@slugs) s
    WHERE p.slug = s.value
      AND (EXISTS (SELECT 1 FROM subscribers WHERE place_geoid = p.geoid AND status = 'active')
        OR EXISTS (SELECT 1 FROM editions WHERE place_geoid = p.geoid))`).pluck().all({ slugs: JSON.stringify(slugs) }) as string[];
  return new Set(rows);
}

export function townHasNewsletter(db: DB, geoid: string): boolean {
  return cachedStatement(db, `
    SELECT EXISTS (SELECT 1 FROM subscribers WHERE place_geoid = @g AND status = 'active')
        OR EXISTS (SELECT 1 FROM editions WHERE place_geoid = @g)`).pluck().get({ g: geoid }) === 1;
}

export function activeSubscriberCount(db: DB, geoid: string): number {
  return cachedStatement(db, "SELECT COUNT(*) FROM subscribers WHERE place_geoid = ? AND status = 'active'").pluck().get(geoid) as number;
}

export type { PlaceRow };
