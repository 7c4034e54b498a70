import { listTrackedCities } from "../places/cities.ts";
import { cachedStatement, type DB } from "../db.ts";

/** What /api/status reports: a real read of the database, so a broken one fails the check. */
export function serviceTotals(db: DB): { cities: number; latestEdition: string | null } {
  const latestEdition = (cachedStatement(db, "SELECT MAX(date) FROM editions").pluck().get() as string | null) ?? null;
  return { cities: listTrackedCities(db).length, latestEdition };
}
