import crypto from "node:crypto";
import fs from "node:fs";
import { parse } from "csv-parse/sync";
import { assignSlugs, slugify } from "../core/slug.ts";
import type { DB } from "./db.ts";

/** CSV column -> places column, for the ACS detail fields (empty in the shipped file until `census:import`). */
export const ACS_DETAIL_COLUMNS = {
  medianIncome: "median_income",
  medianHomeValue: "median_home_value",
  medianRent: "median_rent",
  ownerOccupied: "owner_occupied",
  renterOccupied: "renter_occupied",
  collegeDegreePercent: "college_degree_percent",
  avgCommuteMinutes: "avg_commute_minutes",
  workFromHomePercent: "work_from_home_percent",
  walkBikeTransitPercent: "walk_bike_transit_percent",
  medianAge: "median_age",
  over65Percent: "over65_percent",
  vacancyRate: "vacancy_rate",
} as const;

type Row = Record<string, string>;
const num = (v: string | undefined) => (v === undefined || v === "" ? null : Number(v));
const str = (v: string | undefined) => (v === undefined || v === "" ? null : v);

export interface ImportResult {
  imported: boolean;
  rows: number;
}

/**
 * Imports the places dataset once per distinct file (keyed by its SHA-256 in `meta`): a second start
 * with the same file does nothing. A changed file is upserted by GEOID; existing slugs never change
 * (they are URLs), and ACS detail figures already in the database are kept when the file has none.
 */
export function importPlaces(db: DB, csvFile: string): ImportResult {
  const buf = fs.readFileSync(csvFile);
  const sha = crypto.createHash("sha256").update(buf).digest("hex");
  const done = db.prepare("SELECT value FROM meta WHERE key = 'places_sha256'").pluck().get();
  if (done === sha) return { imported: false, rows: 0 };

  const rows: Row[] = parse(buf, { columns: true, skip_empty_lines: true });
  const slugs = assignSlugs(
    rows.map((r) => ({
      geoid: r.geoid, name: r.name, stateName: r.stateName, countyName: str(r.countyName),
      placeType: r.placeType, population: num(r.population),
    })),
  );
  const detail = Object.entries(ACS_DETAIL_COLUMNS);
  const upsert = db.prepare(`
    INSERT INTO places (geoid, slug, name, census_name, place_type, func_stat, state_name, state_code, state_fips,
      county_geoid, county_name, latitude, longitude, timezone, population, housing_units, acs_year,
      ${detail.map(([, c]) => c).join(", ")}, land_area_sq_mi, name_ambiguous_in_state, geography_status, data_note)
    VALUES (@geoid, @slug, @name, @censusName, @placeType, @funcStat, @stateName, @stateCode, @stateFips,
      @countyGeoid, @countyName, @latitude, @longitude, @timezone, @population, @housingUnits, @acsYear,
      ${detail.map(([k]) => `@${k}`).join(", ")}, @landAreaSqMi, @nameAmbiguousInState, @geographyStatus, @dataNote)
    ON CONFLICT (geoid) DO UPDATE SET
      name = excluded.name, census_name = excluded.census_name, place_type = excluded.place_type,
      func_stat = excluded.func_stat, county_geoid = excluded.county_geoid, county_name = excluded.county_name,
      latitude = excluded.latitude, longitude = excluded.longitude, timezone = excluded.timezone,
      population = excluded.population, housing_units = excluded.housing_units, acs_year = excluded.acs_year,
      ${detail.map(([, c]) => `${c} = COALESCE(excluded.${c}, places.${c})`).join(", ")},
      land_area_sq_mi = excluded.land_area_sq_mi, name_ambiguous_in_state = excluded.name_ambiguous_in_state,
      geography_status = excluded.geography_status, data_note = excluded.data_note`);
  const slugTaken = db.prepare("SELECT geoid FROM places WHERE slug = ?").pluck();

  db.transaction(() => {
    for (const r of rows) {
      let slug = slugs.get(r.geoid)!;
      const holder = slugTaken.get(slug);
      if (holder !== undefined && holder !== r.geoid) slug = slugify(r.name, r.geoid, r.stateName);
      upsert.run({
        geoid: r.geoid, slug, name: r.name, censusName: r.censusName, placeType: r.placeType, funcStat: r.funcStat,
        stateName: r.stateName, stateCode: r.stateCode, stateFips: r.stateFips,
        countyGeoid: str(r.countyGeoid), countyName: str(r.countyName),
        latitude: Number(r.latitude), longitude: Number(r.longitude), timezone: r.timezone,
        population: num(r.population), housingUnits: num(r.housingUnits), acsYear: str(r.acsYear),
        ...Object.fromEntries(detail.map(([k]) => [k, num(r[k])])),
        landAreaSqMi: num(r.landAreaSqMi), nameAmbiguousInState: num(r.nameAmbiguousInState) ?? 1,
        geographyStatus: str(r.geographyStatus), dataNote: str(r.dataNote),
      });
    }
    db.prepare("INSERT INTO meta (key, value) VALUES ('places_sha256', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(sha);
    db.prepare("INSERT INTO meta (key, value) VALUES ('places_imported_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(new Date().toISOString());
  }).immediate();
  return { imported: true, rows: rows.length };
}
