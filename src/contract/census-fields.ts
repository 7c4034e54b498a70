/**
 * The one registry of census fields. Everything that lists census figures derives from it: the
 * contract's `Census` object (src/contract/resources.ts), the places columns the importer writes
 * (src/store/places/census.ts, src/integrations/census/variables.ts), the facts dataset
 * (src/services/places/census-dataset.ts), the state and nation totals, and the census table of the city page and
 * its markdown twin (src/core/places/census-figures.ts). Order is the order people read them in.
 *
 * - `key`: field of the Census object; `column`: column of `places` (and, for `acsDetail` fields,
 *   the CSV header is `key`).
 * - `label`: the city page's table; `measure`, `unitText`, `unitCode` (UN/CEFACT): the schema.org
 *   dataset; `description`: the OpenAPI schema.
 * - `table`: where the figure comes from (ACS table, or the Census Gazetteer).
 * - `source`: `acs` ships with the dataset (vintage `acs_year`), `acsDetail` comes from
 *   `npm run census:import` (vintage `acs_detail_year`), `gazetteer` ships with the dataset.
 * - `compare`: shown against the state and the nation (population-weighted average of the places).
 */

export type CensusFormat = "int" | "usd" | "usdMonth" | "percent" | "minutes" | "years" | "sqmi";
export type CensusSource = "acs" | "acsDetail" | "gazetteer";

export interface CensusField {
  key: string;
  column: string;
  label: string;
  measure: string;
  unitText: string;
  unitCode?: string;
  table: string;
  format: CensusFormat;
  integer: boolean;
  source: CensusSource;
  description: string;
  compare?: { label: string; unit: string; format: "int" | "usd" | "dec1" };
}

export const CENSUS_FIELDS = [
  {
    key: "population", column: "population", label: "Population", measure: "Total population", unitText: "people", unitCode: "IE",
    table: "B01003", format: "int", integer: true, source: "acs", description: "Total population (ACS B01003)",
  },
  {
    key: "housingUnits", column: "housing_units", label: "Housing units", measure: "Housing units", unitText: "housing units",
    table: "B25001", format: "int", integer: true, source: "acs", description: "Total housing units (ACS B25001)",
  },
  {
    key: "landAreaSqMi", column: "land_area_sq_mi", label: "Land area", measure: "Land area", unitText: "square miles", unitCode: "MIK",
    table: "Gazetteer", format: "sqmi", integer: false, source: "gazetteer", description: "Land area, square miles (Census Gazetteer)",
  },
  {
    key: "medianIncome", column: "median_income", label: "Median household income", measure: "Median household income",
    unitText: "US dollars", unitCode: "USD", table: "B19013", format: "usd", integer: true, source: "acsDetail",
    description: "Median household income, US dollars", compare: { label: "Median household income", unit: "USD", format: "usd" },
  },
  {
    key: "medianHomeValue", column: "median_home_value", label: "Median home value", measure: "Median home value",
    unitText: "US dollars", unitCode: "USD", table: "B25077", format: "usd", integer: true, source: "acsDetail",
    description: "Median value of owner-occupied homes, US dollars", compare: { label: "Median home value", unit: "USD", format: "usd" },
  },
  {
    key: "medianRent", column: "median_rent", label: "Median gross rent", measure: "Median gross rent",
    unitText: "US dollars per month", unitCode: "USD", table: "B25064", format: "usdMonth", integer: true, source: "acsDetail",
    description: "Median gross rent, US dollars per month", compare: { label: "Median gross rent", unit: "USD/month", format: "usd" },
  },
  {
    key: "ownerOccupied", column: "owner_occupied", label: "Owner-occupied homes", measure: "Owner-occupied housing units",
    unitText: "housing units", table: "B25003", format: "int", integer: true, source: "acsDetail", description: "Owner-occupied housing units",
  },
  {
    key: "renterOccupied", column: "renter_occupied", label: "Renter-occupied homes", measure: "Renter-occupied housing units",
    unitText: "housing units", table: "B25003", format: "int", integer: true, source: "acsDetail", description: "Renter-occupied housing units",
  },
  {
    key: "collegeDegreePercent", column: "college_degree_percent", label: "Bachelor's degree or higher (age 25+)",
    measure: "Bachelor's degree or higher (age 25+)", unitText: "percent", unitCode: "P1", table: "DP02", format: "percent", integer: false,
    source: "acsDetail", description: "Percent of people 25+ with a bachelor's degree or higher",
    compare: { label: "Bachelor's degree or higher", unit: "%", format: "dec1" },
  },
  {
    key: "avgCommuteMinutes", column: "avg_commute_minutes", label: "Mean travel time to work", measure: "Mean travel time to work",
    unitText: "minutes", unitCode: "MIN", table: "DP03", format: "minutes", integer: false, source: "acsDetail",
    description: "Mean travel time to work, minutes", compare: { label: "Mean commute", unit: "minutes", format: "dec1" },
  },
  {
    key: "workFromHomePercent", column: "work_from_home_percent", label: "Work from home", measure: "Workers who work from home",
    unitText: "percent", unitCode: "P1", table: "DP03", format: "percent", integer: false, source: "acsDetail",
    description: "Percent of workers 16+ who work from home",
  },
  {
    key: "walkBikeTransitPercent", column: "walk_bike_transit_percent", label: "Walk, bike or take transit to work",
    measure: "Workers who walk, bike or take transit", unitText: "percent", unitCode: "P1", table: "B08301", format: "percent", integer: false,
    source: "acsDetail", description: "Percent of workers 16+ who walk, bike or take transit to work",
  },
  {
    key: "medianAge", column: "median_age", label: "Median age", measure: "Median age", unitText: "years", unitCode: "ANN",
    table: "B01002", format: "years", integer: false, source: "acsDetail", description: "Median age, years",
    compare: { label: "Median age", unit: "years", format: "dec1" },
  },
  {
    key: "over65Percent", column: "over65_percent", label: "Aged 65 and over", measure: "People aged 65 and over", unitText: "percent",
    unitCode: "P1", table: "DP05", format: "percent", integer: false, source: "acsDetail", description: "Percent of people aged 65 and over",
  },
  {
    key: "vacancyRate", column: "vacancy_rate", label: "Vacant housing units", measure: "Vacant housing units", unitText: "percent",
    unitCode: "P1", table: "DP04", format: "percent", integer: false, source: "acsDetail", description: "Percent of housing units that are vacant",
  },
] as const satisfies readonly CensusField[];

type Field = (typeof CENSUS_FIELDS)[number];
export type CensusKey = Field["key"];
export type CensusColumn = Field["column"];
/** Fields filled by `npm run census:import`. */
export type CensusDetailKey = Extract<Field, { source: "acsDetail" }>["key"];

/** The census columns of a `places` row (`PlaceRow` extends this). */
export type CensusColumns = { [C in CensusColumn]: number | null };
/** The figures by Census object key; null when not imported (never estimated). */
export type CensusValues = { [K in CensusKey]: number | null };

export const CENSUS_DETAIL_FIELDS = CENSUS_FIELDS.filter((f): f is Extract<Field, { source: "acsDetail" }> => f.source === "acsDetail");

/** The figures of a places row, by Census object key. */
export function censusValues(row: CensusColumns): CensusValues {
  return Object.fromEntries(CENSUS_FIELDS.map((f) => [f.key, row[f.column] ?? null])) as CensusValues;
}

/** The ACS 5-year vintage behind the place's figures: the imported detail's, else the shipped one's. */
export function censusYear(row: { acs_year: string | null; acs_detail_year: string | null }): string | null {
  return row.acs_detail_year ?? row.acs_year;
}

/** The vintage of one field for a place ("2025" for the Gazetteer's land area). */
export function fieldVintage(f: CensusField, row: { acs_year: string | null; acs_detail_year: string | null }): string | null {
  return f.source === "acs" ? row.acs_year : f.source === "gazetteer" ? "2025" : row.acs_detail_year;
}
