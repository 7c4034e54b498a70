import { cachedStatement as stmt, type DB } from "../db.ts";

// Aggregate clicks on editions' outbound links (table link_clicks, migration 025).

/** Adds `n` (1, or -1 to take back a scanner's click) to a link's count for one day. */
export function addClicks(db: DB, placeGeoid: string, editionDate: string, url: string, day: string, n: number): void {
  stmt(db, `INSERT INTO link_clicks (place_geoid, edition_date, url, day, clicks) VALUES (@placeGeoid, @editionDate, @url, @day, max(@n, 0))
    ON CONFLICT DO UPDATE SET clicks = max(clicks + @n, 0)`).run({ placeGeoid, editionDate, url, day, n });
}

/** One link's clicks per day, across every edition of the town that carried it. */
export function clicksOfLink(db: DB, placeGeoid: string, url: string): Array<{ day: string; clicks: number }> {
  return stmt(db, `SELECT day, SUM(clicks) AS clicks FROM link_clicks WHERE place_geoid = ? AND url = ? GROUP BY day ORDER BY day`)
    .all(placeGeoid, url) as Array<{ day: string; clicks: number }>;
}

/** A town's clicks per edition, newest edition first. */
export function clicksPerEdition(db: DB, placeGeoid: string, limit: number): Array<{ date: string; clicks: number; links: number }> {
  return stmt(db, `SELECT edition_date AS date, SUM(clicks) AS clicks, COUNT(DISTINCT url) AS links FROM link_clicks
    WHERE place_geoid = ? GROUP BY edition_date ORDER BY edition_date DESC LIMIT ?`).all(placeGeoid, limit) as Array<{ date: string; clicks: number; links: number }>;
}

/** A town's most clicked links since `sinceDate` (edition dates). */
export function topLinks(db: DB, placeGeoid: string, sinceDate: string, limit: number): Array<{ url: string; clicks: number; editions: number }> {
  return stmt(db, `SELECT url, SUM(clicks) AS clicks, COUNT(DISTINCT edition_date) AS editions FROM link_clicks
    WHERE place_geoid = ? AND edition_date >= ? GROUP BY url HAVING SUM(clicks) > 0 ORDER BY clicks DESC, url LIMIT ?`)
    .all(placeGeoid, sinceDate, limit) as Array<{ url: string; clicks: number; editions: number }>;
}

/** Editions of a town between two dates whose text carries a link (a listing's), with their digests sent. */
export function editionsCarrying(db: DB, placeGeoid: string, url: string, fromDate: string, toDate: string): Array<{ date: string; sent: number }> {
  return stmt(db, `SELECT e.date, (SELECT COUNT(*) FROM outbox o WHERE o.edition_id = e.id AND o.kind = 'digest' AND o.status = 'sent') AS sent
    FROM editions e WHERE e.place_geoid = ? AND e.date BETWEEN ? AND ? AND instr(e.markdown, ?) > 0 ORDER BY e.date`)
    .all(placeGeoid, fromDate, toDate, `(${url}`) as Array<{ date: string; sent: number }>;
}
