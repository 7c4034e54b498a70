import type { CensusColumns } from "../../contract/census-fields.ts";
import { WEIGHTED_COLUMNS, type CensusTotals } from "../../core/places/census-figures.ts";
import { cachedStatement, type DB } from "../db.ts";

/** A row of `places`: identity and location, plus the census columns (`CensusColumns`). */
export interface PlaceRow extends CensusColumns {
  geoid: string;
  slug: string;
  name: string;
  census_name: string;
  place_type: string;
  state_name: string;
  state_code: string;
  county_name: string | null;
  /** County GEOID (state FIPS + county FIPS, `32033`); null for a place without one. */
  county_geoid?: string | null;
  latitude: number;
  longitude: number;
  timezone: string;
  acs_year: string | null;
  acs_detail_year: string | null;
}

/** The place of a slug (the one query by slug: the API, the site and the publisher all read it). */
export function findPlaceBySlug(db: DB, slug: string): PlaceRow | undefined {
  return cachedStatement(db, "SELECT * FROM places WHERE slug = ?").get(slug) as PlaceRow | undefined;
}

export function findPlaceByGeoid(db: DB, geoid: string): PlaceRow | undefined {
  return cachedStatement(db, "SELECT * FROM places WHERE geoid = ?").get(geoid) as PlaceRow | undefined;
}

export interface CensusPlaceRow {
  slug: string;
  name: string;
  state_name: string;
  population: number;
  has_subscribers: 0 | 1;
}

/** Places with at least `minPopulation` people, by state then population (largest first). */
export function placesByPopulation(db: DB, minPopulation: number, stateName?: string): CensusPlaceRow[] {
  return cachedStatement(db, `
    SELECT p.slug, p.name, p.state_name, p.population,
      EXISTS (SELECT 1 FROM subscribers s WHERE s.place_geoid = p.geoid AND s.status = 'active') AS has_subscribers
    FROM places p
    WHERE p.population >= @min AND (@state IS NULL OR p.state_name = @state)
    ORDER BY p.state_name, p.population DESC, p.name, p.slug`).all({ min: minPopulation, state: stateName ?? null }) as CensusPlaceRow[];
}

/** The place a name and full state name mean: the most populous of that name in the state (the one with the plain slug). */
export function findPlaceByName(db: DB, name: string, stateName: string): PlaceRow | undefined {
  // Two indexed lookups (migration 017) rather than one OR, which SQLite would answer by scanning the state.
  return cachedStatement(db, `SELECT * FROM places WHERE rowid IN (
      SELECT rowid FROM places WHERE state_name = @state AND name = @name COLLATE NOCASE
      UNION SELECT rowid FROM places WHERE state_name = @state AND census_name = @name COLLATE NOCASE)
    ORDER BY name_ambiguous_in_state, population DESC LIMIT 1`).get({ state: stateName, name: name.trim() }) as PlaceRow | undefined;
}

/** Every half-degree cell that holds a U.S. place: drawn faintly, they give the map its shape. */
export function placeGrid(db: DB): Array<{ lat: number; lon: number }> {
  return cachedStatement(db, "SELECT DISTINCT round(latitude * 2) / 2 AS lat, round(longitude * 2) / 2 AS lon FROM places").all() as Array<{ lat: number; lon: number }>;
}

export interface PlaceTotals extends CensusTotals {
  state_name: string;
  population: number;
  housing_units: number;
  land_area_sq_mi: number;
  places: number;
}

/**
 * Totals of every state and of the nation (state_name "United States"), from the places table:
 * sums of the counts, population-weighted averages of the compared census figures (null when no
 * place has the figure yet).
 */
export function placeTotals(db: DB): PlaceTotals[] {
  const weighted = (col: string) => `SUM(CASE WHEN ${col} IS NOT NULL THEN ${col} * population END) / NULLIF(SUM(CASE WHEN ${col} IS NOT NULL THEN population END), 0) AS ${col}`;
  const cols = `SUM(population) AS population, SUM(housing_units) AS housing_units, SUM(land_area_sq_mi) AS land_area_sq_mi, COUNT(*) AS places,
    ${WEIGHTED_COLUMNS.map(weighted).join(",\n    ")}`;
  return cachedStatement(db, `
    SELECT state_name, ${cols} FROM places WHERE population > 0 GROUP BY state_name
    UNION ALL
    SELECT 'United States', ${cols} FROM places WHERE population > 0`).all() as PlaceTotals[];
}

/** The place finder's rows: every place, largest first, with how many places of the state share its name. */
export interface PlaceFinderRow { slug: string; name: string; state: string; county: string | null; ambiguous: number; population: number | null }

export function placeFinderRows(db: DB): PlaceFinderRow[] {
  return cachedStatement(db, `
    SELECT slug, name, state_name AS state, county_name AS county, name_ambiguous_in_state AS ambiguous, population
    FROM places ORDER BY population DESC, slug`).all() as PlaceFinderRow[];
}

/** A place's rank by population (1 = largest) among the places of its state, or of its county within the state. */
export function populationRank(db: DB, p: Pick<PlaceRow, "state_name" | "county_name" | "population">, within: "state" | "county"): { rank: number; of: number } | null {
  if (!p.population || (within === "county" && !p.county_name)) return null;
  const where = within === "state" ? "state_name = @state" : "state_name = @state AND county_name = @county";
  return cachedStatement(db, `SELECT
      (SELECT COUNT(*) FROM places WHERE ${where} AND population > @population) + 1 AS rank,
      (SELECT COUNT(*) FROM places WHERE ${where} AND population > 0) AS of`)
    .get({ state: p.state_name, county: p.county_name, population: p.population }) as { rank: number; of: number };
}

export interface PlacePoint { name: string; state_name: string; population: number; latitude: number; longitude: number }

/** Places larger than `population` within a box of `degrees` around a point (the nearest larger town is among them). */
export function largerPlacesNear(db: DB, lat: number, lon: number, population: number, degrees: number): PlacePoint[] {
  return cachedStatement(db, `SELECT name, state_name, population, latitude, longitude FROM places
    WHERE population > @population AND latitude BETWEEN @lat - @d AND @lat + @d AND longitude BETWEEN @lon - @dl AND @lon + @dl`)
    .all({ population, lat, lon, d: degrees, dl: degrees / Math.max(0.2, Math.cos((lat * Math.PI) / 180)) }) as PlacePoint[];
}

/** Population and land area of all the state's places (its density over Census places). */
export function stateDensity(db: DB, stateName: string): number | null {
  const row = cachedStatement(db, "SELECT SUM(population) AS p, SUM(land_area_sq_mi) AS a FROM places WHERE state_name = ? AND population > 0 AND land_area_sq_mi > 0")
    .get(stateName) as { p: number | null; a: number | null };
  return row.p && row.a ? row.p / row.a : null;
}
