import { cachedStatement as stmt, type DB } from "../db.ts";
import { indexEdition } from "../search/queries.ts";

/*
 * Editions: the write, and every read, each returning one of these projections:
 *   EditionRow    the stored row (the JSON API's edition, the weather snapshot)
 *   ArchiveEntry  date and subject (a city's archive index; read from the covering index of migration 005)
 *   EditionKey    where an edition shows on the site (its city, state and publication day): publish planning
 *   SiteEdition   an edition as the site shows it, with its body: one city's pages and feed, where the
 *                 caller has the place (no join: an edition page is rendered for every edition)
 *   PlacedEdition a SiteEdition with its city's slug and name: lists across cities (twins, global feeds)
 * Every list query is keyed (by id, by city, by publication day, or a LIMIT along an index) so that
 * its cost follows what is shown, not the size of the archive. Columns come from the front of the row
 * (before markdown/html) unless the body is wanted, so SQLite never walks overflow pages for nothing.
 * Statements are prepared once per connection: a full rebuild runs these hundreds of thousands of times.
 */

export interface EditionRow {
  id: number;
  place_geoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  weather_json: string | null;
  published_at: string;
}

export interface ArchiveEntry {
  date: string;
  subject: string;
}

export interface EditionKey {
  id: number;
  slug: string;
  date: string;
  state_name: string;
  published_at: string;
}

export interface SiteEdition {
  id: number;
  date: string;
  subject: string;
  published_at: string;
  markdown: string;
  html: string;
  weather_json: string | null;
}

export interface PlacedEdition extends SiteEdition, EditionKey {
  /** The city's name. */
  name: string;
  place_geoid: string;
}

export interface NewEdition {
  placeGeoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  weather?: unknown;
  publishedAt: string;
  /** The town fact the edition told (src/core/edition/did-you-know.ts), so it is not told again within 30 mornings. */
  factKey?: string | null;
}

const FROM = "FROM editions e JOIN places p ON p.geoid = e.place_geoid";
const KEY = `SELECT e.id, p.slug, e.date, p.state_name, e.published_at ${FROM}`;
const SITE = "SELECT id, date, subject, published_at, markdown, html, weather_json FROM editions e";
const PLACED = `SELECT e.id, e.place_geoid, p.slug, e.date, p.state_name, e.published_at, e.subject, p.name, e.markdown, e.html, e.weather_json ${FROM}`;

/**
 * Stores an edition unless one exists for that city and date (the UNIQUE key makes concurrent
 * composers harmless). Returns the stored row id, or undefined when it already existed.
 * Other modules hook here (e.g. the search index) by running in the same transaction.
 */
export function insertEdition(db: DB, e: NewEdition): number | undefined {
  // One transaction (a savepoint inside a caller's): the edition and its search row land together.
  return db.transaction(() => {
    const result = stmt(db, `
      INSERT INTO editions (place_geoid, date, subject, markdown, html, weather_json, published_at, fact_key)
      VALUES (@placeGeoid, @date, @subject, @markdown, @html, @weather, @publishedAt, @factKey)
      ON CONFLICT (place_geoid, date) DO NOTHING`).run({
      ...e,
      weather: e.weather === undefined ? null : JSON.stringify(e.weather),
      factKey: e.factKey ?? null,
    });
    if (result.changes !== 1) return undefined;
    const id = Number(result.lastInsertRowid);
    indexEdition(db, { id, placeGeoid: e.placeGeoid, subject: e.subject, markdown: e.markdown });
    return id;
  })();
}

export function findEdition(db: DB, placeGeoid: string, date: string): EditionRow | undefined {
  return stmt(db, "SELECT * FROM editions WHERE place_geoid = ? AND date = ?").get(placeGeoid, date) as EditionRow | undefined;
}

/** A city's archive index, newest first: the newest `limit` entries, or all of them. */
export function cityArchive(db: DB, placeGeoid: string, limit?: number): ArchiveEntry[] {
  // LIMIT -1 is no limit in SQLite: one statement for both uses.
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = +? ORDER BY date DESC LIMIT ?").all(placeGeoid, limit ?? -1) as ArchiveEntry[];
}

/** The archive entry just before `date` (an edition page links back to it, never forward). */
export function previousArchiveEntry(db: DB, placeGeoid: string, date: string): ArchiveEntry | undefined {
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = +? AND date < +? ORDER BY date DESC LIMIT 1").get(placeGeoid, date) as ArchiveEntry | undefined;
}

export function nextArchiveEntry(db: DB, placeGeoid: string, date: string): ArchiveEntry | undefined {
  return stmt(db, "SELECT date, subject FROM editions WHERE place_geoid = +? AND date > +? ORDER BY date LIMIT 1").get(placeGeoid, date) as ArchiveEntry | undefined;
}

/** The town's editions just before and just after `date`. */
export function editionNeighbours(db: DB, placeGeoid: string, date: string): { previous?: ArchiveEntry; next?: ArchiveEntry } {
  return { previous: previousArchiveEntry(db, placeGeoid, date), next: nextArchiveEntry(db, placeGeoid, date) };
}

/**
 * With these editions, their neighbours in their towns: the one just before each gains a "next" link
 * when a new edition is published, and the one just after (only when an earlier date is stored late)
 * a new "previous" one, so their twins are written again.
 */
export function withNeighbourEditionIds(db: DB, ids: readonly number[]): number[] {
  if (ids.length === 0) return [];
  return [...new Set([...ids, ...editionsAfter(db, ids), ...stmt(db, `SELECT (SELECT p.id FROM editions p WHERE p.place_geoid = e.place_geoid AND p.date < e.date ORDER BY p.date DESC LIMIT 1)
    FROM editions e WHERE e.id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(ids)) as Array<number | null>])]
    .filter((id): id is number => id !== null).sort((a, b) => a - b);
}

/**
 * The editions just after these in their towns, themselves not among them: none on a morning, whose
 * editions are each town's newest; one when an earlier date is stored after a later one.
 */
export function editionsAfter(db: DB, ids: readonly number[]): number[] {
  if (ids.length === 0) return [];
  const after = stmt(db, `SELECT (SELECT n.id FROM editions n WHERE n.place_geoid = e.place_geoid AND n.date > e.date ORDER BY n.date LIMIT 1)
    FROM editions e WHERE e.id IN (SELECT value FROM json_each(?))`).pluck().all(JSON.stringify(ids)) as Array<number | null>;
  const fresh = new Set(ids);
  return [...new Set(after.filter((id): id is number => id !== null && !fresh.has(id)))];
}

/** The edition before a new one in its town, which gains a "next" link: what its page's nav shows. */
export interface EditionGainingNext {
  id: number;
  slug: string;
  /** The town's name. */
  name: string;
  date: string;
  previous?: ArchiveEntry;
  next: ArchiveEntry;
}

/** For these new editions, the town's edition just before each one (not itself new), with its neighbours. */
export function editionsGainingNext(db: DB, ids: readonly number[]): EditionGainingNext[] {
  if (ids.length === 0) return [];
  const rows = stmt(db, `SELECT b.id, p.slug, p.name, b.date, b.place_geoid FROM editions e
    JOIN editions b ON b.id = (SELECT x.id FROM editions x WHERE x.place_geoid = e.place_geoid AND x.date < e.date ORDER BY x.date DESC LIMIT 1)
    JOIN places p ON p.geoid = b.place_geoid
    WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY b.id`).all(JSON.stringify(ids)) as Array<Omit<EditionGainingNext, "previous" | "next"> & { place_geoid: string }>;
  const fresh = new Set(ids);
  return rows.filter((r, i) => !fresh.has(r.id) && rows[i - 1]?.id !== r.id).map(({ place_geoid, ...r }) => ({
    ...r, previous: previousArchiveEntry(db, place_geoid, r.date), next: nextArchiveEntry(db, place_geoid, r.date)!,
  }));
}

export function editionCount(db: DB, placeGeoid: string): number {
  return stmt(db, "SELECT COUNT(*) FROM editions WHERE place_geoid = ?").pluck().get(placeGeoid) as number;
}

export function latestEditionDate(db: DB, placeGeoid: string): string | undefined {
  return stmt(db, "SELECT MAX(date) FROM editions WHERE place_geoid = ?").pluck().get(placeGeoid) as string | undefined ?? undefined;
}

export function editionKeysByIds(db: DB, ids: readonly number[]): EditionKey[] {
  if (ids.length === 0) return [];
  // json_each keeps this one statement whatever the number of ids.
  return stmt(db, `${KEY} WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.id`).all(JSON.stringify(ids)) as EditionKey[];
}

/** The next `limit` edition keys after `afterId`, in id order: the full rebuild reads the archive in pages. */
export function editionKeysAfter(db: DB, afterId: number, limit: number): EditionKey[] {
  return stmt(db, `${KEY} WHERE e.id > ? ORDER BY e.id LIMIT ?`).all(afterId, limit) as EditionKey[];
}

export function placedEditionsByIds(db: DB, ids: readonly number[]): PlacedEdition[] {
  if (ids.length === 0) return [];
  return stmt(db, `${PLACED} WHERE e.id IN (SELECT value FROM json_each(?)) ORDER BY e.id`).all(JSON.stringify(ids)) as PlacedEdition[];
}

/** Editions with bodies in id order after `afterId` (keyset pages for the full rebuild). */
export function placedEditionsAfter(db: DB, afterId: number, limit: number): PlacedEdition[] {
  return stmt(db, `${PLACED} WHERE e.id > ? ORDER BY e.id LIMIT ?`).all(afterId, limit) as PlacedEdition[];
}

export function siteEdition(db: DB, placeGeoid: string, date: string): SiteEdition | undefined {
  return stmt(db, `${SITE} WHERE e.place_geoid = ? AND e.date = ?`).get(placeGeoid, date) as SiteEdition | undefined;
}

/** A city's newest `limit` editions with bodies, newest first (its latest edition, its feed). */
export function latestSiteEditions(db: DB, placeGeoid: string, limit: number): SiteEdition[] {
  return stmt(db, `${SITE} WHERE e.place_geoid = +? ORDER BY e.date DESC LIMIT ?`).all(placeGeoid, limit) as SiteEdition[];
}

/** What a feed lists of an edition; its HTML is read only for the items a feed does not already carry. */
export interface FeedEdition {
  id: number;
  date: string;
  subject: string;
  published_at: string;
}

/** A city's newest `limit` editions as feed items, newest first (from the index alone: migration 014). */
export function latestFeedEditions(db: DB, placeGeoid: string, limit: number): FeedEdition[] {
  return stmt(db, "SELECT id, date, subject, published_at FROM editions WHERE place_geoid = +? ORDER BY date DESC LIMIT ?").all(placeGeoid, limit) as FeedEdition[];
}

export function editionHtml(db: DB, id: number): string | undefined {
  return stmt(db, "SELECT html FROM editions WHERE id = ?").pluck().get(id) as string | undefined;
}

/** The most recently published editions across all cities (walks the published_at index). */
export function recentPlacedEditions(db: DB, limit: number): PlacedEdition[] {
  return stmt(db, `${PLACED} ORDER BY e.published_at DESC LIMIT ?`).all(limit) as PlacedEdition[];
}

/** Publication days (UTC, the first 10 characters of `published_at`) with their edition count and last instant. */
export interface PublicationDay {
  day: string;
  editions: number;
  last_published_at: string;
}

/**
 * Every publication day. Days are found by hopping along the published_at index (one probe per day,
 * like the city owners of src/store/places/cities.ts); each day's count and last instant read only that day's
 * index range.
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
export function editionsPublishedOn(db: DB, day: string): EditionKey[] {
  return stmt(db, `${KEY} WHERE e.published_at >= @day AND e.published_at < @day || '~' ORDER BY e.published_at, e.id`).all({ day }) as EditionKey[];
}

/** The id of a place's newest edition, if it has one. */
export function latestEditionId(db: DB, placeGeoid: string): number | undefined {
  return stmt(db, "SELECT id FROM editions WHERE place_geoid = +? ORDER BY date DESC LIMIT 1").pluck().get(placeGeoid) as number | undefined;
}

/**
 * The site's first edition (the earliest published), as the developer guide's example: once there is
 * one it stays the same, so a page written by a full build and one left from before agree.
 */
export function firstEditionKey(db: DB): { slug: string; date: string } | undefined {
  return stmt(db, "SELECT p.slug, e.date FROM editions e JOIN places p ON p.geoid = e.place_geoid ORDER BY e.published_at, e.id LIMIT 1").get() as { slug: string; date: string } | undefined;
}
