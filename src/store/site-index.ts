import { cachedStatement, type DB } from "./db.ts";
import type { PlaceRow } from "./places.ts";

// Queries behind the text outputs (markdown twins, feeds, sitemaps, llms files). Each one is keyed
// (by id, by city, by publication day, or a LIMIT along an index) so that a morning's publish reads
// what that morning changed, not the archive. Columns come from the front of the editions row
// (before markdown/html) unless the body is wanted, so SQLite never walks overflow pages for nothing.

/** One edition with the place it belongs to; `markdown`/`html` only where the query asks for them. */
export interface EditionItem {
  id: number;
  date: string;
  subject: string;
  published_at: string;
  slug: string;
  name: string;
  state_name: string;
}

export interface EditionBodyItem extends EditionItem {
  markdown: string;
  html: string;
}

/** A city with an edition, the place row and its latest edition (the text outputs' unit). */
export interface PublishedCity extends PlaceRow {
  latest_date: string;
  latest_subject: string;
  latest_published_at: string;
}

// Statements are prepared once per connection: the sender and the publisher run them thousands of times.
const stmt = cachedStatement;

const ITEM = "e.id, e.date, e.subject, e.published_at, p.slug, p.name, p.state_name";
const BODY = `${ITEM}, e.markdown, e.html`;
const FROM = "FROM editions e JOIN places p ON p.geoid = e.place_geoid";

export function editionBodiesByIds(db: DB, ids: readonly number[]): EditionBodyItem[] {
  if (ids.length === 0) return [];
  return stmt(db, `SELECT ${BODY} ${FROM} WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.id`)
    .all(JSON.stringify(ids)) as EditionBodyItem[];
}

/** Editions with bodies in id order after `afterId` (keyset pages for the full rebuild). */
export function editionBodiesAfter(db: DB, afterId: number, limit: number): EditionBodyItem[] {
  return stmt(db, `SELECT ${BODY} ${FROM} WHERE e.id > ? ORDER BY e.id LIMIT ?`).all(afterId, limit) as EditionBodyItem[];
}

/** The most recently published editions across all cities (walks the published_at index). */
export function recentEditions(db: DB, limit: number): EditionItem[] {
  return stmt(db, `SELECT ${ITEM} ${FROM} ORDER BY e.published_at DESC LIMIT ?`).all(limit) as EditionItem[];
}

export function recentEditionBodies(db: DB, limit: number): EditionBodyItem[] {
  return stmt(db, `SELECT ${BODY} ${FROM} ORDER BY e.published_at DESC LIMIT ?`).all(limit) as EditionBodyItem[];
}

/** A city's newest editions with bodies, newest first (its feed). */
export function cityEditionBodies(db: DB, geoid: string, limit: number): EditionBodyItem[] {
  return stmt(db, `SELECT ${BODY} ${FROM} WHERE e.place_geoid = ? ORDER BY e.date DESC LIMIT ?`).all(geoid, limit) as EditionBodyItem[];
}

/** A city's archive index, newest first, at most `limit` entries. */
export function cityArchive(db: DB, geoid: string, limit: number): Array<{ date: string; subject: string }> {
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT ?").all(geoid, limit) as Array<{ date: string; subject: string }>;
}

export function cityLatestMarkdown(db: DB, geoid: string): string | undefined {
  return stmt(db, "SELECT markdown FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT 1").pluck().get(geoid) as string | undefined;
}

/**
 * Every city with at least one edition, by state then name, with its latest edition. Owners are
 * found by hopping along the (place_geoid, date) index: one probe per city, not a scan of the archive.
 */
export function publishedCities(db: DB): PublishedCity[] {
  return stmt(db, `
    WITH RECURSIVE owners(geoid) AS (
      SELECT (SELECT MIN(place_geoid) FROM editions)
      UNION ALL
      SELECT (SELECT MIN(place_geoid) FROM editions WHERE place_geoid > owners.geoid) FROM owners WHERE owners.geoid IS NOT NULL
    )
    SELECT p.*, l.date AS latest_date, l.subject AS latest_subject, l.published_at AS latest_published_at
    FROM owners o
    JOIN places p ON p.geoid = o.geoid
    JOIN editions l ON l.id = (SELECT id FROM editions WHERE place_geoid = o.geoid ORDER BY date DESC LIMIT 1)
    ORDER BY p.state_name, p.name, p.slug`).all() as PublishedCity[];
}

/** Publication days (UTC, the first 10 characters of `published_at`) with their edition count and last instant. */
export interface PublicationDay {
  day: string;
  editions: number;
  last_published_at: string;
}

/**
 * Every publication day. Days are found by hopping along the published_at index (one probe per day,
 * like the city owners above); each day's count and last instant read only that day's index range.
 */
export function publicationDays(db: DB): PublicationDay[] {
  // '~' sorts after every character of an ISO instant: [day, day || '~') is the whole day.
  return stmt(db, `
    WITH RECURSIVE days(day) AS (
      SELECT substr((SELECT MIN(published_at) FROM editions), 1, 10)
      UNION ALL
      SELECT substr((SELECT MIN(published_at) FROM editions WHERE published_at >= days.day || '~'), 1, 10) FROM days WHERE days.day IS NOT NULL
    )
    SELECT day,
      (SELECT COUNT(*) FROM editions WHERE published_at >= day AND published_at < day || '~') AS editions,
      (SELECT MAX(published_at) FROM editions WHERE published_at >= day AND published_at < day || '~') AS last_published_at
    FROM days WHERE day IS NOT NULL`).all() as PublicationDay[];
}

/** The editions published on one UTC day, in publication order: a sitemap child's URLs. */
export function editionsPublishedOn(db: DB, day: string): Array<{ slug: string; date: string; published_at: string }> {
  return stmt(db, `
    SELECT p.slug, e.date, e.published_at ${FROM}
    WHERE e.published_at >= @day AND e.published_at < @day || '~'
    ORDER BY e.published_at, e.id`).all({ day }) as Array<{ slug: string; date: string; published_at: string }>;
}

