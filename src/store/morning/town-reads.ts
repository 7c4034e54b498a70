import type { DayWeather } from "../../core/edition/archive-notes.ts";
import type { FeedRow } from "../../core/sources/feed-parts.ts";
import type { OrderRow } from "../commerce/orders.ts";
import type { NoteRow } from "../commerce/notes.ts";
import type { LeaseTerm } from "../../core/commerce/lease-end.ts";
import { FEED_RUNS } from "../sources/feeds.ts";
import { cachedStatement as stmt, type DB } from "../db.ts";

// What the morning reads of its own rows to compose a batch of towns: one statement per kind of row
// for the whole batch (src/services/morning/gather.ts), grouped by town. The towns go in as JSON and
// are walked first (CROSS JOIN), so each lookup uses the table's own key.

const group = <R extends { g: string }>(rows: R[]): Map<string, R[]> => {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const list = out.get(r.g);
    if (list) list.push(r);
    else out.set(r.g, [r]);
  }
  return out;
};

/** Of these towns and dates, those that have an edition: "geoid date" keys. */
export function editionsOf(db: DB, towns: Array<{ geoid: string; date: string }>): Set<string> {
  if (towns.length === 0) return new Set();
  const rows = stmt(db, `SELECT e.place_geoid AS g, e.date AS d FROM json_each(?) j CROSS JOIN editions e
    ON e.place_geoid = json_extract(j.value, '$.geoid') AND e.date = json_extract(j.value, '$.date')`).all(JSON.stringify(towns)) as Array<{ g: string; d: string }>;
  return new Set(rows.map((r) => `${r.g} ${r.d}`));
}

/**
 * Each town's running feeds with their sources' items, by feed id: a feed an operator added is read
 * only while the lease they added it under runs at `nowIso` (staff's and the directory's always).
 */
export function feedRowsOf(db: DB, geoids: string[], nowIso: string): Map<string, Array<FeedRow & { g: string }>> {
  return group(stmt(db, `SELECT f.place_geoid AS g, f.id, f.source_id, s.kind, f.title, f.scope, f.home_url, s.items_json, s.items_fetched_at
    FROM json_each(?) j CROSS JOIN town_feeds f ON f.place_geoid = j.value JOIN feed_sources s ON s.id = f.source_id
    WHERE ${FEED_RUNS}
    ORDER BY f.place_geoid, f.id`).all(JSON.stringify(geoids), nowIso) as Array<FeedRow & { g: string }>);
}

/** Of each town's keys, those an edition of the town dated before its date recorded in `table`. */
function keysBefore(db: DB, table: "town_headlines_shown" | "town_hazards_told", towns: Array<{ geoid: string; date: string; keys: string[] }>): Map<string, Array<{ g: string; key: string }>> {
  const pairs = towns.flatMap((t) => t.keys.map((k) => [t.geoid, t.date, k]));
  if (pairs.length === 0) return new Map();
  return group(stmt(db, `SELECT h.place_geoid AS g, h.item_key AS key FROM json_each(?) j CROSS JOIN ${table} h
    ON h.place_geoid = json_extract(j.value, '$[0]') AND h.item_key = json_extract(j.value, '$[2]') WHERE h.date < json_extract(j.value, '$[1]')`)
    .all(JSON.stringify(pairs)) as Array<{ g: string; key: string }>);
}

/** Of each town's headline keys, those an edition of the town dated before its date showed. */
export const headlinesShownOf = (db: DB, towns: Array<{ geoid: string; date: string; keys: string[] }>) => keysBefore(db, "town_headlines_shown", towns);

/** Of each town's hazard keys, those an edition of the town before its date told. */
export const hazardsToldOf = (db: DB, towns: Array<{ geoid: string; date: string; keys: string[] }>) => keysBefore(db, "town_hazards_told", towns);

/** Each town's published listings, in publication order. */
export function publishedOrdersOfTowns(db: DB, geoids: string[]): Map<string, Array<OrderRow & { g: string }>> {
  return group(stmt(db, `SELECT o.place_geoid AS g, o.* FROM json_each(?) j CROSS JOIN listing_orders o ON o.place_geoid = j.value
    WHERE o.status = 'published' ORDER BY o.place_geoid, o.published_at, o.id`).all(JSON.stringify(geoids)) as Array<OrderRow & { g: string }>);
}

/** A town's note with the lease it was written under (absent when staff wrote it, or the lease is unknown). */
export interface NoteWithLease extends NoteRow {
  lease: LeaseTerm | undefined;
}

/** Each town's note for its date, with its lease's status and end, for the morning to ask whether it may print. */
export function notesOf(db: DB, towns: Array<{ geoid: string; date: string }>): Map<string, NoteWithLease> {
  const rows = stmt(db, `SELECT n.*, l.status AS lease_status, l.cancel_at AS lease_cancel_at FROM json_each(?) j CROSS JOIN town_notes n
    ON n.place_geoid = json_extract(j.value, '$.geoid') AND n.date = json_extract(j.value, '$.date')
    LEFT JOIN leases l ON l.id = n.lease_id`).all(JSON.stringify(towns)) as Array<NoteRow & { lease_status: LeaseTerm["status"] | null; lease_cancel_at: string | null }>;
  return new Map(rows.map(({ lease_status, lease_cancel_at, ...r }) => [r.place_geoid, { ...r, lease: lease_status === null ? undefined : { status: lease_status, cancel_at: lease_cancel_at } }]));
}

/**
 * Each town's stored weather before its date: every day from `since` on, and the same calendar day
 * (month and day) of every earlier year, for records and "a year ago today"; by date.
 */
export function weatherHistoriesOf(db: DB, towns: Array<{ geoid: string; date: string; since: string }>): Map<string, DayWeather[]> {
  const rows = stmt(db, `SELECT e.place_geoid AS g, e.date, json_extract(e.weather_json, '$.today.high') AS high, json_extract(e.weather_json, '$.today.low') AS low,
      json_extract(e.weather_json, '$.today.code') AS code
    FROM json_each(?) j CROSS JOIN editions e ON e.place_geoid = json_extract(j.value, '$.geoid')
    WHERE e.date < json_extract(j.value, '$.date') AND e.weather_json IS NOT NULL
      AND (e.date >= json_extract(j.value, '$.since') OR substr(e.date, 6) = substr(json_extract(j.value, '$.date'), 6))
    ORDER BY e.place_geoid, e.date`).all(JSON.stringify(towns)) as Array<DayWeather & { g: string }>;
  const out = new Map<string, DayWeather[]>();
  for (const { g, ...r } of rows) {
    if (typeof r.high !== "number" || typeof r.low !== "number") continue;
    const list = out.get(g);
    if (list) list.push(r);
    else out.set(g, [r]);
  }
  return out;
}

/** The fact keys each town's editions told on dates in [from, before), by date. */
export function recentFactKeysOf(db: DB, towns: Array<{ geoid: string; from: string; before: string }>): Map<string, Array<{ g: string; date: string; key: string | null }>> {
  return group(stmt(db, `SELECT e.place_geoid AS g, e.date, e.fact_key AS key FROM json_each(?) j CROSS JOIN editions e
    ON e.place_geoid = json_extract(j.value, '$.geoid') WHERE e.date >= json_extract(j.value, '$.from') AND e.date < json_extract(j.value, '$.before')
    ORDER BY e.place_geoid, e.date`).all(JSON.stringify(towns)) as Array<{ g: string; date: string; key: string | null }>);
}
