import { cachedStatement as stmt, type DB } from "../db.ts";

// The weekly email's rows (migration 035): which towns have weekly readers on which weekday, the
// week's editions of a set of towns (one statement for all), the weekly stored once per town and
// day, and its queueing for the town's weekly readers of that day.

/** A town with weekly readers, and the weekdays they chose (0 = Sunday). */
export interface WeeklyTown {
  geoid: string;
  slug: string;
  name: string;
  stateName: string;
  stateCode: string;
  timezone: string;
  weekdays: number[];
}

/** Every town with an active weekly reader, with their weekdays (the partial index of weekly readers alone). */
export function weeklyReaderTowns(db: DB): WeeklyTown[] {
  const rows = stmt(db, `SELECT w.place_geoid AS geoid, w.weekly_day AS day, p.slug, p.name, p.state_name AS stateName, p.state_code AS stateCode, p.timezone
    FROM (SELECT DISTINCT place_geoid, weekly_day FROM subscribers WHERE frequency = 'weekly' AND status = 'active') w
    JOIN places p ON p.geoid = w.place_geoid ORDER BY w.place_geoid, w.weekly_day`).all() as Array<Omit<WeeklyTown, "weekdays"> & { day: number }>;
  const towns = new Map<string, WeeklyTown>();
  for (const { day, ...t } of rows) {
    const town = towns.get(t.geoid);
    if (town) town.weekdays.push(day);
    else towns.set(t.geoid, { ...t, weekdays: [day] });
  }
  return [...towns.values()];
}

/** Of these towns and dates, those whose weekly is stored: "geoid date" keys. */
export function weekliesOf(db: DB, towns: Array<{ geoid: string; date: string }>): Set<string> {
  if (towns.length === 0) return new Set();
  const rows = stmt(db, `SELECT w.place_geoid AS g, w.date AS d FROM json_each(?) j CROSS JOIN weekly_editions w
    ON w.place_geoid = json_extract(j.value, '$.geoid') AND w.date = json_extract(j.value, '$.date')`).all(JSON.stringify(towns)) as Array<{ g: string; d: string }>;
  return new Set(rows.map((r) => `${r.g} ${r.d}`));
}

/** A stored edition as the weekly reads it. */
export interface WeekEditionRow {
  id: number;
  date: string;
  subject: string;
  markdown: string;
  weather_json: string | null;
}

/** Each town's editions dated from `from` to `to` (both included), newest first: one statement for all the towns. */
export function weekEditionsOf(db: DB, towns: Array<{ geoid: string; from: string; to: string }>): Map<string, WeekEditionRow[]> {
  const out = new Map<string, WeekEditionRow[]>();
  if (towns.length === 0) return out;
  const rows = stmt(db, `SELECT e.place_geoid AS g, e.id, e.date, e.subject, e.markdown, e.weather_json
    FROM json_each(?) j CROSS JOIN editions e ON e.place_geoid = json_extract(j.value, '$.geoid')
    WHERE e.date BETWEEN json_extract(j.value, '$.from') AND json_extract(j.value, '$.to')
    ORDER BY e.place_geoid, e.date DESC`).all(JSON.stringify(towns)) as Array<WeekEditionRow & { g: string }>;
  for (const { g, ...r } of rows) {
    const list = out.get(g);
    if (list) list.push(r);
    else out.set(g, [r]);
  }
  return out;
}

export interface NewWeekly {
  placeGeoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  /** The dates of the daily editions it draws on. */
  editions: string[];
}

/** Stores a town's weekly for a day; undefined when that day's is already stored (UNIQUE per town and day). */
export function insertWeekly(db: DB, w: NewWeekly, nowIso: string): number | undefined {
  const row = stmt(db, `INSERT INTO weekly_editions (place_geoid, date, subject, markdown, html, editions, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`).get(w.placeGeoid, w.date, w.subject, w.markdown, w.html, JSON.stringify(w.editions), nowIso) as { id: number } | undefined;
  return row?.id;
}

/**
 * Queues a weekly for each active, unsuppressed weekly reader of its town whose day is `weekday`,
 * at their delivery minute: `fiveAmMs` is 5:00 AM local on the weekly's date, so minute 300 is it
 * exactly whatever the day's offset (clocks change at 2 AM). Never before `nowMs`. Returns how many.
 */
export function enqueueWeekly(db: DB, weekly: { id: number; placeGeoid: string; weekday: number }, fiveAmMs: number, nowMs: number, nowIso: string): number {
  return stmt(db, `INSERT INTO outbox (kind, subscriber_id, weekly_id, dedupe_key, next_attempt_at, created_at)
    SELECT 'digest', s.id, @id, 'weekly:' || @id || ':' || s.id, MAX(@nowMs, @fiveAmMs + (s.delivery_minute - 300) * 60000), @nowIso FROM subscribers s
    WHERE s.place_geoid = @geoid AND s.frequency = 'weekly' AND s.weekly_day = @weekday AND s.status = 'active'
      AND NOT EXISTS (SELECT 1 FROM suppressions x WHERE x.email = s.email)
    ON CONFLICT DO NOTHING`).run({ id: weekly.id, geoid: weekly.placeGeoid, weekday: weekly.weekday, fiveAmMs, nowMs, nowIso }).changes;
}

export interface WeeklyForMail {
  id: number;
  date: string;
  subject: string;
  html: string;
  markdown: string;
}

export function weeklyForMail(db: DB, id: number): WeeklyForMail | undefined {
  return stmt(db, "SELECT id, date, subject, html, markdown FROM weekly_editions WHERE id = ?").get(id) as WeeklyForMail | undefined;
}
