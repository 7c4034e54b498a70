import { cachedStatement, type DB } from "../db.ts";

// Operator notes: one per town and date (src/services/commerce/notes.ts validates and renders them).

export interface NoteRow {
  place_geoid: string;
  date: string;
  markdown: string;
  author_name: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
  /** The lease the operator wrote it under (src/core/commerce/lease-end.ts); null: written by staff. */
  lease_id: string | null;
}

export function upsertNote(db: DB, n: { placeGeoid: string; date: string; markdown: string; authorName: string; by: string; leaseId: string | null; now: string }): void {
  cachedStatement(db, `INSERT INTO town_notes (place_geoid, date, markdown, author_name, updated_by, lease_id, created_at, updated_at)
    VALUES (@placeGeoid, @date, @markdown, @authorName, @by, @leaseId, @now, @now)
    ON CONFLICT (place_geoid, date) DO UPDATE SET markdown = excluded.markdown, author_name = excluded.author_name,
      updated_by = excluded.updated_by, lease_id = excluded.lease_id, updated_at = excluded.updated_at`).run(n);
}

export function findNote(db: DB, placeGeoid: string, date: string): NoteRow | undefined {
  return cachedStatement(db, "SELECT * FROM town_notes WHERE place_geoid = ? AND date = ?").get(placeGeoid, date) as NoteRow | undefined;
}

export function deleteNote(db: DB, placeGeoid: string, date: string): boolean {
  return cachedStatement(db, "DELETE FROM town_notes WHERE place_geoid = ? AND date = ?").run(placeGeoid, date).changes > 0;
}

/** A town's notes from `from` on (the desk's list of what is scheduled), by date. */
export function notesFrom(db: DB, placeGeoid: string, from: string, limit = 60): NoteRow[] {
  return cachedStatement(db, "SELECT * FROM town_notes WHERE place_geoid = ? AND date >= ? ORDER BY date LIMIT ?").all(placeGeoid, from, limit) as NoteRow[];
}
