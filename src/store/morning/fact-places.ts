import type { FactPlaceRow } from "../../core/edition/fact-places.ts";
import { cachedStatement, type DB } from "../db.ts";

// The places as "Did you know?" reads them, once per morning run (src/core/edition/fact-places.ts).

/** Every place's name, state, county, population and point. */
export function factPlaceRows(db: DB): FactPlaceRow[] {
  return cachedStatement(db, `SELECT name, census_name, state_name, county_name, population, latitude, longitude, name_ambiguous_in_state
    FROM places`).all() as FactPlaceRow[];
}

/** Each state's population and land area over its places (as src/store/places/places.ts stateDensity sums them, by the same index). */
export function stateDensities(db: DB): Array<{ state_name: string; p: number | null; a: number | null }> {
  return cachedStatement(db, `SELECT state_name, SUM(population) AS p, SUM(land_area_sq_mi) AS a FROM places
    WHERE population > 0 AND land_area_sq_mi > 0 GROUP BY state_name`).all() as Array<{ state_name: string; p: number | null; a: number | null }>;
}
