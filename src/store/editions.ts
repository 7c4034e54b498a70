import type { DB } from "./db.ts";
import { indexEdition } from "./search.ts";

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

export interface NewEdition {
  placeGeoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  weather?: unknown;
  publishedAt: string;
}

/**
 * Stores an edition unless one exists for that city and date (the UNIQUE key makes concurrent
 * composers harmless). Returns the stored row id, or undefined when it already existed.
 * Other modules hook here (e.g. the search index) by running in the same transaction.
 */
export function insertEdition(db: DB, e: NewEdition): number | undefined {
  // One transaction (a savepoint inside a caller's): the edition and its search row land together.
  return db.transaction(() => {
    const result = db.prepare(`
      INSERT INTO editions (place_geoid, date, subject, markdown, html, weather_json, published_at)
      VALUES (@placeGeoid, @date, @subject, @markdown, @html, @weather, @publishedAt)
      ON CONFLICT (place_geoid, date) DO NOTHING`).run({
      ...e,
      weather: e.weather === undefined ? null : JSON.stringify(e.weather),
    });
    if (result.changes !== 1) return undefined;
    const id = Number(result.lastInsertRowid);
    indexEdition(db, { id, placeGeoid: e.placeGeoid, subject: e.subject, markdown: e.markdown });
    return id;
  })();
}

export function findEdition(db: DB, placeGeoid: string, date: string): EditionRow | undefined {
  return db.prepare("SELECT * FROM editions WHERE place_geoid = ? AND date = ?").get(placeGeoid, date) as EditionRow | undefined;
}

/** The archive index of a city, newest first. */
export function listArchive(db: DB, placeGeoid: string): Array<{ date: string; subject: string }> {
  return db.prepare("SELECT date, subject FROM editions WHERE place_geoid = ? ORDER BY date DESC").all(placeGeoid) as Array<{ date: string; subject: string }>;
}

export function latestEditionDate(db: DB, placeGeoid: string): string | undefined {
  return db.prepare("SELECT MAX(date) FROM editions WHERE place_geoid = ?").pluck().get(placeGeoid) as string | undefined ?? undefined;
}

/** The id of a place's newest edition, if it has one. */
export function latestEditionId(db: DB, placeGeoid: string): number | undefined {
  return db.prepare("SELECT id FROM editions WHERE place_geoid = ? ORDER BY date DESC LIMIT 1").pluck().get(placeGeoid) as number | undefined;
}
