import { cachedStatement as stmt, type DB } from "../db.ts";

/** Towns with a newsletter (each an actor) and editions published in all: NodeInfo's usage. */
export function siteTotals(db: DB): { towns: number; editions: number } {
  return stmt(db, "SELECT (SELECT count(*) FROM (SELECT DISTINCT place_geoid FROM editions)) AS towns, (SELECT count(*) FROM editions) AS editions").get() as { towns: number; editions: number };
}
