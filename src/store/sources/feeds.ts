import { cachedStatement as stmt, type DB } from "../db.ts";

// The towns' feeds (tables feed_sources, town_feeds) and the headlines editions showed
// (town_headlines_shown). A source is one address, fetched once however many towns use it.

export type FeedKind = "ical" | "rss" | "atom" | "rdf" | "json";

export interface FeedSourceRow {
  id: number;
  url: string;
  kind: FeedKind;
  title: string | null;
  checked_at: string | null;
  status: "ok" | "failing";
  last_error: string | null;
  consecutive_failures: number;
  etag: string | null;
  last_modified: string | null;
  items_json: string;
  items_fetched_at: string | null;
  body: string | null;
  created_at: string;
}

/** A town's feed with its source's fetch state, as the admin endpoints and the operator desk show it. */
export interface TownFeedView {
  id: number;
  place_geoid: string;
  slug: string;
  town_name: string;
  state_name: string;
  source_id: number;
  url: string;
  kind: FeedKind;
  title: string;
  added_by: string;
  created_at: string;
  checked_at: string | null;
  status: "ok" | "failing";
  last_error: string | null;
  consecutive_failures: number;
  items_fetched_at: string | null;
  item_count: number;
  /** Directory feeds (added_by 'directory', migration 020): their candidate, reach, outlet's site and last verification. */
  candidate_id: number | null;
  scope: "town" | "county";
  home_url: string | null;
  verified_at: string | null;
  /** The lease an operator added it under (null: staff or the directory). */
  lease_id: string | null;
  /** 1 when that lease is no longer active: the feed is paused (not fetched, not shown), kept for staff. */
  paused: 0 | 1;
}

/**
 * A feed an operator added runs only while the lease they added it under runs (one bound parameter:
 * the instant, for a cancellation the sweep has not applied yet); staff's and the directory's always.
 * The SQL form of `leaseRunning` (src/core/commerce/lease-end.ts), on `town_feeds f`, for every
 * statement that reads the running feeds (here and src/store/morning/town-reads.ts).
 */
export const FEED_RUNS = `(f.lease_id IS NULL OR EXISTS (SELECT 1 FROM leases l WHERE l.id = f.lease_id AND l.status = 'active' AND (l.cancel_at IS NULL OR l.cancel_at > ?)))`;

/** What a town's edition reads of one feed: its items and how fresh they are. */
export interface TownFeedItems {
  id: number;
  source_id: number;
  kind: FeedKind;
  title: string;
  /** 'county': a county-wide outlet, whose items the town's edition shows only when they name the town. */
  scope: "town" | "county";
  /** The outlet's site, credited in the edition (directory feeds). */
  home_url: string | null;
  items_json: string;
  items_fetched_at: string | null;
}

const VIEW = `SELECT f.id, f.place_geoid, p.slug, p.name AS town_name, p.state_name, f.source_id, s.url, s.kind, f.title, f.added_by,
  f.created_at, s.checked_at, s.status, s.last_error, s.consecutive_failures, s.items_fetched_at, json_array_length(s.items_json) AS item_count,
  f.candidate_id, f.scope, f.home_url, f.verified_at, f.lease_id,
  CASE WHEN f.lease_id IS NULL OR EXISTS (SELECT 1 FROM leases l WHERE l.id = f.lease_id AND l.status = 'active') THEN 0 ELSE 1 END AS paused
  FROM town_feeds f JOIN feed_sources s ON s.id = f.source_id JOIN places p ON p.geoid = f.place_geoid`;

export function findTownFeed(db: DB, id: number): TownFeedView | undefined {
  return stmt(db, `${VIEW} WHERE f.id = ?`).get(id) as TownFeedView | undefined;
}

export function townFeedByUrl(db: DB, placeGeoid: string, url: string): TownFeedView | undefined {
  return stmt(db, `${VIEW} WHERE f.place_geoid = ? AND s.url = ?`).get(placeGeoid, url) as TownFeedView | undefined;
}

/** One town's feeds, or every town's (by town, then oldest first). */
export function listTownFeeds(db: DB, placeGeoid?: string): TownFeedView[] {
  return placeGeoid === undefined
    ? (stmt(db, `${VIEW} ORDER BY p.slug, f.id`).all() as TownFeedView[])
    : (stmt(db, `${VIEW} WHERE f.place_geoid = +? ORDER BY f.id`).all(placeGeoid) as TownFeedView[]);
}

export interface NewTownFeed {
  placeGeoid: string;
  url: string;
  kind: FeedKind;
  /** The feed's own title (stored on the source). */
  sourceTitle: string | null;
  /** The name readers see for this town's feed. */
  title: string;
  addedBy: string;
  /** The lease of the operator who added it; null or absent for staff. */
  leaseId?: string | null;
  itemsJson: string;
  /** Calendars: the text, kept to expand recurrences over later windows. */
  body: string | null;
  etag: string | null;
  lastModified: string | null;
}

/**
 * Stores a town's feed and the items of the fetch that vetted it, in one transaction. A source
 * already used by another town takes the fresh fetch. Undefined when the town already has it.
 */
export function insertTownFeed(db: DB, f: NewTownFeed, nowIso: string): TownFeedView | undefined {
  return db.transaction(() => {
    stmt(db, `INSERT INTO feed_sources (url, kind, title, checked_at, items_json, items_fetched_at, body, etag, last_modified, created_at)
      VALUES (@url, @kind, @sourceTitle, @now, @itemsJson, @now, @body, @etag, @lastModified, @now)
      ON CONFLICT (url) DO UPDATE SET kind = excluded.kind, title = excluded.title, checked_at = excluded.checked_at, status = 'ok',
        last_error = NULL, consecutive_failures = 0, items_json = excluded.items_json, items_fetched_at = excluded.items_fetched_at,
        body = excluded.body, etag = excluded.etag, last_modified = excluded.last_modified`).run({ ...f, now: nowIso });
    const source = stmt(db, "SELECT id FROM feed_sources WHERE url = ?").get(f.url) as { id: number };
    const r = stmt(db, `INSERT INTO town_feeds (place_geoid, source_id, title, added_by, lease_id, created_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`).run(f.placeGeoid, source.id, f.title, f.addedBy, f.leaseId ?? null, nowIso);
    return r.changes === 1 ? findTownFeed(db, Number(r.lastInsertRowid)) : undefined;
  }).immediate();
}

/** Removes a town's feed; its source goes too when no other town uses it. */
export function deleteTownFeed(db: DB, id: number): TownFeedView | undefined {
  return db.transaction(() => {
    const feed = findTownFeed(db, id);
    if (!feed) return undefined;
    stmt(db, "DELETE FROM town_feeds WHERE id = ?").run(id);
    stmt(db, "DELETE FROM feed_sources WHERE id = ? AND NOT EXISTS (SELECT 1 FROM town_feeds WHERE source_id = ?)").run(feed.source_id, feed.source_id);
    return feed;
  }).immediate();
}

/** The distinct sources of these towns' running feeds (a paused feed is not fetched). */
export function sourcesOfPlaces(db: DB, geoids: string[], nowIso: string): FeedSourceRow[] {
  if (geoids.length === 0) return [];
  return stmt(db, `SELECT * FROM feed_sources WHERE id IN
    (SELECT f.source_id FROM town_feeds f WHERE f.place_geoid IN (SELECT value FROM json_each(?)) AND ${FEED_RUNS}) ORDER BY id`).all(JSON.stringify(geoids), nowIso) as FeedSourceRow[];
}

/** A good fetch: new items and validators; failures forgiven. */
export function recordFetchOk(db: DB, id: number, r: { kind: FeedKind; title: string | null; itemsJson: string; body: string | null; etag: string | null; lastModified: string | null }, nowIso: string): void {
  stmt(db, `UPDATE feed_sources SET kind = @kind, title = COALESCE(@title, title), items_json = @itemsJson, body = @body, etag = @etag, last_modified = @lastModified,
    checked_at = @now, items_fetched_at = @now, status = 'ok', last_error = NULL, consecutive_failures = 0 WHERE id = @id`).run({ ...r, id, now: nowIso });
}

/** A 304: the stored items are still the feed's (a calendar's expanded again over today's window: `itemsJson`). */
export function recordNotModified(db: DB, id: number, nowIso: string, itemsJson?: string): void {
  stmt(db, `UPDATE feed_sources SET checked_at = @now, items_fetched_at = @now, status = 'ok', last_error = NULL, consecutive_failures = 0,
    items_json = COALESCE(@itemsJson, items_json) WHERE id = @id`).run({ id, now: nowIso, itemsJson: itemsJson ?? null });
}

/** A failed fetch: the items stay; `failingAfter` consecutive failures mark the source failing. */
export function recordFetchFailure(db: DB, id: number, error: string, nowIso: string, failingAfter: number): void {
  stmt(db, `UPDATE feed_sources SET checked_at = @now, last_error = @error, consecutive_failures = consecutive_failures + 1,
    status = CASE WHEN consecutive_failures + 1 >= @failingAfter THEN 'failing' ELSE status END WHERE id = @id`).run({ id, error: error.slice(0, 500), now: nowIso, failingAfter });
}

/** The running feeds of one town with their sources' items. */
export function feedItemsOfPlace(db: DB, placeGeoid: string, nowIso: string): TownFeedItems[] {
  return stmt(db, `SELECT f.id, f.source_id, s.kind, f.title, f.scope, f.home_url, s.items_json, s.items_fetched_at
    FROM town_feeds f JOIN feed_sources s ON s.id = f.source_id WHERE f.place_geoid = +? AND ${FEED_RUNS} ORDER BY f.id`).all(placeGeoid, nowIso) as TownFeedItems[];
}

/** Of these headline keys, those an edition of the town dated before `date` showed. */
export function headlinesShownBefore(db: DB, placeGeoid: string, keys: string[], date: string): Set<string> {
  if (keys.length === 0) return new Set();
  const rows = stmt(db, `SELECT item_key FROM town_headlines_shown WHERE place_geoid = ? AND date < ? AND item_key IN (SELECT value FROM json_each(?))`)
    .all(placeGeoid, date, JSON.stringify(keys)) as Array<{ item_key: string }>;
  return new Set(rows.map((r) => r.item_key));
}


/**
 * Forgets the headlines editions showed before `beforeDate` (YYYY-MM-DD) that can never be offered
 * again: a dated item published before `beforeInstant` (far older than the week a headline may be),
 * and an undated one that none of the town's feeds carries any more (one a slow feed still lists, for
 * months maybe, stays remembered, so it is never shown twice). Without this the table grows by every
 * headline of every town every morning. Only a town's undated rows read its feeds. Returns the rows removed.
 */
export function forgetHeadlinesShown(db: DB, beforeDate: string, beforeInstant: string): number {
  return stmt(db, `DELETE FROM town_headlines_shown AS h WHERE h.date < ? AND (h.published_at < ? OR (h.published_at IS NULL AND NOT EXISTS (
      SELECT 1 FROM town_feeds tf JOIN feed_sources s ON s.id = tf.source_id, json_each(CASE WHEN json_valid(s.items_json) THEN s.items_json ELSE '[]' END) j
      WHERE tf.place_geoid = h.place_geoid AND s.kind != 'ical' AND json_extract(j.value, '$.key') = h.item_key)))`).run(beforeDate, beforeInstant).changes;
}

/** Which sources each of these towns' running feeds use (for a town to wait only for its own feeds' fetches). */
export function sourceIdsByPlace(db: DB, geoids: string[], nowIso: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  if (geoids.length === 0) return out;
  const rows = stmt(db, `SELECT f.place_geoid, f.source_id FROM town_feeds f WHERE f.place_geoid IN (SELECT value FROM json_each(?)) AND ${FEED_RUNS}`)
    .all(JSON.stringify(geoids), nowIso) as Array<{ place_geoid: string; source_id: number }>;
  for (const r of rows) out.set(r.place_geoid, [...(out.get(r.place_geoid) ?? []), r.source_id]);
  return out;
}
