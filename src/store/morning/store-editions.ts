import { indexableText, plainTextOf } from "../../core/search/text.ts";
import { cachedStatement as stmt, type DB } from "../db.ts";
import { placeToken } from "../search/queries.ts";

// The morning's store step: a batch of composed towns in one transaction, each kind of row in one
// statement for the whole batch: the edition (with its search row, as insertEdition in editions.ts
// writes it for one), its publishing-ledger row, the headlines it showed and the hazards it told
// (each first date kept).

export interface EditionToStore {
  placeGeoid: string;
  date: string;
  subject: string;
  markdown: string;
  html: string;
  /** null: stored without a forecast. */
  weather: unknown;
  publishedAt: string;
  factKey: string | null;
  headlines: ReadonlyArray<{ key: string; publishedAt: string | null }>;
  hazards: readonly string[];
  /** The words of the markdown as the search index keeps them (src/core/search/text.ts plainTextOf); made here when absent. */
  searchBody?: string;
}

/**
 * Stores the editions that do not exist yet (the UNIQUE key makes concurrent runs harmless), their
 * search rows, publishing-ledger rows, headlines shown and hazards told: all or nothing. Returns the
 * new ids by "geoid date"; an edition another run stored first is absent.
 */
export function storeEditions(db: DB, editions: readonly EditionToStore[]): Map<string, number> {
  // The rows' own strings are bound as parameters (a VALUES row each), not copied into one JSON text:
  // a batch's markdown and HTML are megabytes, and a copy of them per batch was most of the morning's garbage.
  const values = editions.flatMap((e) => [e.placeGeoid, e.date, e.subject, e.markdown, e.html, e.weather === null ? null : JSON.stringify(e.weather), e.publishedAt, e.factKey]);
  // The search rows' text is made before the write lock is taken.
  const search = new Map(editions.map((e) => [`${e.placeGeoid} ${e.date}`, [indexableText(e.subject), e.searchBody ?? plainTextOf(e.markdown), placeToken(e.placeGeoid)]]));
  return db.transaction(() => {
    const stored = stmt(db, `INSERT INTO editions (place_geoid, date, subject, markdown, html, weather_json, published_at, fact_key)
      VALUES ${rowsOf(editions.length, 8)} ON CONFLICT (place_geoid, date) DO NOTHING RETURNING id, place_geoid AS g, date AS d`).all(values) as Array<{ id: number; g: string; d: string }>;
    const ids = new Map(stored.map((r) => [`${r.g} ${r.d}`, r.id]));
    const mine = editions.filter((e) => ids.has(`${e.placeGeoid} ${e.date}`));
    if (mine.length === 0) return ids;
    const idOf = (e: EditionToStore) => ids.get(`${e.placeGeoid} ${e.date}`)!;
    stmt(db, `INSERT INTO edition_search (rowid, subject, body, place) VALUES ${rowsOf(mine.length, 4)}`)
      .run(mine.flatMap((e) => [idOf(e), ...search.get(`${e.placeGeoid} ${e.date}`)!]));
    stmt(db, "INSERT OR IGNORE INTO edition_publish (edition_id) SELECT value FROM json_each(?)").run(JSON.stringify(mine.map(idOf)));
    const headlines = mine.flatMap((e) => e.headlines.map((h) => [e.placeGeoid, h.key, e.date, h.publishedAt]));
    if (headlines.length > 0) {
      stmt(db, `INSERT INTO town_headlines_shown (place_geoid, item_key, date, published_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]') FROM json_each(?) WHERE true
        ON CONFLICT DO NOTHING`).run(JSON.stringify(headlines));
    }
    const hazards = mine.flatMap((e) => e.hazards.map((k) => [e.placeGeoid, k, e.date]));
    if (hazards.length > 0) {
      stmt(db, `INSERT INTO town_hazards_told (place_geoid, item_key, date)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') FROM json_each(?) WHERE true
        ON CONFLICT DO NOTHING`).run(JSON.stringify(hazards));
    }
    return ids;
  }).immediate();
}

/** "(?, ?), (?, ?)": `rows` VALUES rows of `columns` parameters (a statement per batch size, prepared once). */
function rowsOf(rows: number, columns: number): string {
  const row = `(${Array.from({ length: columns }, () => "?").join(", ")})`;
  return Array.from({ length: rows }, () => row).join(", ");
}
