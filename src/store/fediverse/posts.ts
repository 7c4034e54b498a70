import { cachedStatement as stmt, type DB } from "../db.ts";

/** An edition waiting to be posted to its town's followers, with what the post is made of. */
export interface DuePost {
  editionId: number;
  placeGeoid: string;
  slug: string;
  name: string;
  state: string;
  date: string;
  subject: string;
  html: string;
  weatherJson: string | null;
  publishedAt: string;
}

/**
 * Marks editions to be posted, those of towns with at least one follower, in one statement: all the
 * morning does for the fediverse. An edition already marked is left as it is.
 */
export function markEditionsToPost(db: DB, editionIds: readonly number[], at: string): number {
  if (editionIds.length === 0) return 0;
  return stmt(db, `
    INSERT INTO fediverse_posts (edition_id, queued_at)
    SELECT e.id, ? FROM editions e
    WHERE e.id IN (SELECT value FROM json_each(?))
      AND EXISTS (SELECT 1 FROM fediverse_followers f WHERE f.place_geoid = e.place_geoid)
    ON CONFLICT (edition_id) DO NOTHING`).run(at, JSON.stringify(editionIds)).changes;
}

export function duePosts(db: DB, limit: number): DuePost[] {
  return stmt(db, `
    SELECT e.id AS editionId, e.place_geoid AS placeGeoid, p.slug, p.name, p.state_name AS state, e.date, e.subject, e.html,
           e.weather_json AS weatherJson, e.published_at AS publishedAt
    FROM fediverse_posts q JOIN editions e ON e.id = q.edition_id JOIN places p ON p.geoid = e.place_geoid
    WHERE q.sent_at IS NULL ORDER BY q.edition_id LIMIT ?`).all(limit) as DuePost[];
}

export function markPostSent(db: DB, editionId: number, at: string): void {
  stmt(db, "UPDATE fediverse_posts SET sent_at = ? WHERE edition_id = ?").run(at, editionId);
}

/** A town's latest editions, for its outbox (newest first). */
export function recentTownEditions(db: DB, placeGeoid: string, limit: number): Array<Omit<DuePost, "slug" | "name" | "state">> {
  return stmt(db, `
    SELECT id AS editionId, place_geoid AS placeGeoid, date, subject, html, weather_json AS weatherJson, published_at AS publishedAt
    FROM editions WHERE place_geoid = +? ORDER BY date DESC LIMIT ?`).all(placeGeoid, limit) as Array<Omit<DuePost, "slug" | "name" | "state">>;
}

export function townEdition(db: DB, placeGeoid: string, date: string): Omit<DuePost, "slug" | "name" | "state"> | undefined {
  return stmt(db, `
    SELECT id AS editionId, place_geoid AS placeGeoid, date, subject, html, weather_json AS weatherJson, published_at AS publishedAt
    FROM editions WHERE place_geoid = ? AND date = ?`).get(placeGeoid, date) as Omit<DuePost, "slug" | "name" | "state"> | undefined;
}
