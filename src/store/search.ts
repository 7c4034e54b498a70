import { indexableText, plainTextOf } from "../core/search-text.ts";
import type { DB } from "./db.ts";

/** The token that tags a city's rows in the `place` column. */
export const placeToken = (geoid: string) => `p${geoid.replace(/[^0-9A-Za-z]/g, "")}`;

/** Writes an edition's search row; called by insertEdition inside its transaction. */
export function indexEdition(db: DB, e: { id: number; placeGeoid: string; subject: string; markdown: string }): void {
  db.prepare("INSERT INTO edition_search (rowid, subject, body, place) VALUES (?, ?, ?, ?)")
    .run(e.id, indexableText(e.subject), plainTextOf(e.markdown), placeToken(e.placeGeoid));
}
