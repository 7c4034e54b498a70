import { marked } from "marked";
import type { DB } from "../../src/store/db.ts";
import { insertEdition } from "../../src/store/morning/editions.ts";
import { editionWriter, type EditionCity } from "./synthetic-editions.ts";

export interface SeedResult { editions: number; cities: EditionCity[]; lastDate: string; ms: number }

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function benchCities(db: DB, count = 1000): EditionCity[] {
  return db.prepare(`SELECT geoid, name, state_name AS state, population FROM places
    WHERE population IS NOT NULL ORDER BY population DESC, geoid LIMIT ?`).all(count) as EditionCity[];
}

/**
 * Stores one morning's editions the way the pipeline does: one transaction, insertEdition per city
 * (which writes the search row with it). Returns the milliseconds it took.
 */
export function storeMorning(db: DB, cities: EditionCity[], date: string, write: ReturnType<typeof editionWriter>): number {
  // Composing the text is not what is measured: only storing it with its search rows.
  const editions = cities.map((city) => {
    const { subject, markdown } = write(city, date);
    return { placeGeoid: city.geoid, date, subject, markdown, html: marked.parse(markdown, { async: false }) as string, publishedAt: `${date}T11:00:00.000Z` };
  });
  const started = performance.now();
  db.transaction(() => {
    for (const e of editions) insertEdition(db, e);
  })();
  return performance.now() - started;
}

/**
 * Seeds `total` editions: mornings of `cities.length` editions each, oldest first, ending the day
 * before `endDate`. `ms` is the time spent storing them (editions and search rows), not composing.
 */
export function seedArchive(db: DB, total: number, endDate: string, onProgress?: (done: number) => void): SeedResult {
  const cities = benchCities(db);
  const write = editionWriter(total);
  const days = Math.ceil(total / cities.length);
  let ms = 0;
  let done = 0;
  let date = addDays(endDate, -days);
  for (let day = 0; day < days; day++, date = addDays(date, 1)) {
    const batch = cities.slice(0, Math.min(cities.length, total - done));
    ms += storeMorning(db, batch, date, write);
    done += batch.length;
    onProgress?.(done);
  }
  return { editions: done, cities, lastDate: addDays(date, -1), ms };
}
