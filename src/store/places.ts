import type { DB } from "./db.ts";

export interface PlaceRow {
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
  population: number | null;
  housing_units: number | null;
  acs_year: string | null;
  median_income: number | null;
  median_home_value: number | null;
  median_rent: number | null;
  owner_occupied: number | null;
  renter_occupied: number | null;
  college_degree_percent: number | null;
  avg_commute_minutes: number | null;
  work_from_home_percent: number | null;
  walk_bike_transit_percent: number | null;
  median_age: number | null;
  over65_percent: number | null;
  vacancy_rate: number | null;
  acs_detail_year: string | null;
  land_area_sq_mi: number | null;
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
