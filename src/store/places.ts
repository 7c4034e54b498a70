import type { CensusColumns } from "../core/census-figures.ts";
import type { DB } from "./db.ts";

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
  latitude: number;
  longitude: number;
  timezone: string;
  acs_year: string | null;
  acs_detail_year: string | null;
}

export function findPlaceBySlug(db: DB, slug: string): PlaceRow | undefined {
  return db.prepare("SELECT * FROM places WHERE slug = ?").get(slug) as PlaceRow | undefined;
}

export function findPlaceByGeoid(db: DB, geoid: string): PlaceRow | undefined {
  return db.prepare("SELECT * FROM places WHERE geoid = ?").get(geoid) as PlaceRow | undefined;
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
  return db.prepare(`
    SELECT p.slug, p.name, p.state_name, p.population,
      EXISTS (SELECT 1 FROM subscribers s WHERE s.place_geoid = p.geoid AND s.status = 'active') AS has_subscribers
    FROM places p
    WHERE p.population >= @min AND (@state IS NULL OR p.state_name = @state)
    ORDER BY p.state_name, p.population DESC, p.name, p.slug`).all({ min: minPopulation, state: stateName ?? null }) as CensusPlaceRow[];
}

/** The place a name and full state name mean: the most populous of that name in the state (the one with the plain slug). */
export function findPlaceByName(db: DB, name: string, stateName: string): PlaceRow | undefined {
  return db.prepare(`SELECT * FROM places WHERE state_name = ? AND (name = ? COLLATE NOCASE OR census_name = ? COLLATE NOCASE)
    ORDER BY name_ambiguous_in_state, population DESC LIMIT 1`).get(stateName, name.trim(), name.trim()) as PlaceRow | undefined;
}
