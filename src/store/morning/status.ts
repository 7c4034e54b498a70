import { listNewsletterTowns } from "../places/cities.ts";
import { cachedStatement, type DB } from "../db.ts";

/**
 * What /api/status reports: a real read of the database, so a broken one fails the check. Beside the
 * editions it reads, above the places whose tracked towns it counts (store/platform stays below places).
 */
export function serviceTotals(db: DB): { cities: number; latestEdition: string | null } {
  const latestEdition = (cachedStatement(db, "SELECT MAX(date) FROM editions").pluck().get() as string | null) ?? null;
  return { cities: listNewsletterTowns(db).length, latestEdition };
}
