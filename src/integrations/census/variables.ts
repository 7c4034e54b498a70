/**
 * The ACS 5-year variables behind the Census object's detail fields, the label and concept the
 * Census Bureau publishes for each, and how each field is derived from them.
 *
 * Data-profile (DP02-DP05) variable numbers shift between vintages (DP05's "65 years and over" was
 * DP05_0021 before 2017 and DP05_0024 since), so a number alone proves nothing: the importer checks
 * every variable's published label, concept and group before it uses a single value.
 * `{year}` in a label or concept stands for the vintage (income tables name their dollar year).
 */

import { CENSUS_DETAIL_FIELDS, type CensusDetailKey } from "../../contract/census-fields.ts";

export type AcsDataset = "acs/acs5" | "acs/acs5/profile";

export interface AcsVariable {
  id: string;
  dataset: AcsDataset;
  /** The table the variable belongs to (`group` in the variable's metadata). */
  group: string;
  label: string;
  concept: string;
}

const v = (id: string, dataset: AcsDataset, label: string, concept: string): AcsVariable => ({
  id,
  dataset,
  group: id.slice(0, id.indexOf("_")),
  label,
  concept,
});

const DP02 = "Selected Social Characteristics in the United States";
const DP03 = "Selected Economic Characteristics";
const DP04 = "Selected Housing Characteristics";
const DP05 = "ACS Demographic and Housing Estimates";
const B08301 = "Means of Transportation to Work";

export const ACS_VARIABLES = [
  v("B19013_001E", "acs/acs5", "Estimate!!Median household income in the past 12 months (in {year} inflation-adjusted dollars)",
    "Median Household Income in the Past 12 Months (in {year} Inflation-Adjusted Dollars)"),
  v("B25077_001E", "acs/acs5", "Estimate!!Median value (dollars)", "Median Value (Dollars)"),
  v("B25064_001E", "acs/acs5", "Estimate!!Median gross rent", "Median Gross Rent (Dollars)"),
  v("B25003_002E", "acs/acs5", "Estimate!!Total:!!Owner occupied", "Tenure"),
  v("B25003_003E", "acs/acs5", "Estimate!!Total:!!Renter occupied", "Tenure"),
  v("B01002_001E", "acs/acs5", "Estimate!!Median age --!!Total:", "Median Age by Sex"),
  v("B08301_001E", "acs/acs5", "Estimate!!Total:", B08301),
  v("B08301_010E", "acs/acs5", "Estimate!!Total:!!Public transportation (excluding taxicab):", B08301),
  v("B08301_018E", "acs/acs5", "Estimate!!Total:!!Bicycle", B08301),
  v("B08301_019E", "acs/acs5", "Estimate!!Total:!!Walked", B08301),
  v("DP02_0068PE", "acs/acs5/profile", "Percent!!EDUCATIONAL ATTAINMENT!!Population 25 years and over!!Bachelor's degree or higher", DP02),
  v("DP03_0024PE", "acs/acs5/profile", "Percent!!COMMUTING TO WORK!!Workers 16 years and over!!Worked from home", DP03),
  v("DP03_0025E", "acs/acs5/profile", "Estimate!!COMMUTING TO WORK!!Workers 16 years and over!!Mean travel time to work (minutes)", DP03),
  v("DP04_0003PE", "acs/acs5/profile", "Percent!!HOUSING OCCUPANCY!!Total housing units!!Vacant housing units", DP04),
  v("DP05_0024PE", "acs/acs5/profile", "Percent!!SEX AND AGE!!Total population!!65 years and over", DP05),
] as const satisfies readonly AcsVariable[];

export type AcsVariableId = (typeof ACS_VARIABLES)[number]["id"];

/** The label or concept expected for a vintage. */
export function expectedText(text: string, year: number): string {
  return text.replaceAll("{year}", String(year));
}

/**
 * Labels are compared without case, repeated spaces or the trailing colons the Bureau added to
 * "Total:"-style segments in 2020 (and concepts went from upper to title case in 2023); a
 * different word, number or segment is a mismatch.
 */
export function normalizeLabel(text: string): string {
  return text
    .split("!!")
    .map((part) => part.trim().replace(/:+$/, "").replace(/\s+/g, " ").toLowerCase())
    .join("!!");
}

/**
 * Census annotation values published in place of an estimate (too few sample cases, not
 * applicable, top/bottom-coded interval, ...). None of our fields can be negative, so any
 * negative value is treated the same way.
 */
export const CENSUS_SENTINELS = new Set([-111111111, -222222222, -333333333, -555555555, -666666666, -888888888, -999999999]);

export type Values = (id: AcsVariableId) => number | null;

export interface FieldRule {
  /** Field of the Census object (and column of the CSV), one of the registry's `acsDetail` fields. */
  field: CensusDetailKey;
  /** Rounded to a whole number when stored (from the registry). */
  integer: boolean;
  variables: readonly AcsVariableId[];
  derive: (value: Values) => number | null;
}

type Rule = Pick<FieldRule, "variables" | "derive">;
const direct = (id: AcsVariableId): Rule => ({ variables: [id], derive: (value) => value(id) });

/** Percent of workers who commute by transit, bicycle or on foot (B08301 has bicycle; DP03 does not). */
function walkBikeTransitPercent(value: Values): number | null {
  const total = value("B08301_001E");
  const parts = [value("B08301_010E"), value("B08301_018E"), value("B08301_019E")];
  if (total === null || total <= 0 || parts.some((p) => p === null)) return null;
  const sum = (parts as number[]).reduce((a, b) => a + b, 0);
  return Math.round((sum / total) * 1000) / 10;
}

/**
 * Census object field -> variables and derivation, for every `acsDetail` field of the registry (the
 * mapped type makes a missing or extra field a compile error). Medians top-coded by the Bureau
 * (e.g. 250,001) are kept as published.
 */
const RULES: { [K in CensusDetailKey]: Rule } = {
  medianIncome: direct("B19013_001E"),
  medianHomeValue: direct("B25077_001E"),
  medianRent: direct("B25064_001E"),
  ownerOccupied: direct("B25003_002E"),
  renterOccupied: direct("B25003_003E"),
  collegeDegreePercent: direct("DP02_0068PE"),
  avgCommuteMinutes: direct("DP03_0025E"),
  workFromHomePercent: direct("DP03_0024PE"),
  walkBikeTransitPercent: {
    variables: ["B08301_001E", "B08301_010E", "B08301_018E", "B08301_019E"],
    derive: walkBikeTransitPercent,
  },
  medianAge: direct("B01002_001E"),
  over65Percent: direct("DP05_0024PE"),
  vacancyRate: direct("DP04_0003PE"),
};

/** The rules in the registry's order. */
export const FIELD_RULES: readonly FieldRule[] = CENSUS_DETAIL_FIELDS.map((f) => ({ field: f.key, integer: f.integer, ...RULES[f.key] }));

/** A published value as a number, or null for blanks, non-numbers and annotation sentinels. */
export function parseCensusValue(raw: unknown): number | null {
  if (raw === null || raw === undefined || raw === "") return null;
  const n = typeof raw === "number" ? raw : Number(raw);
  if (!Number.isFinite(n) || n < 0 || CENSUS_SENTINELS.has(n)) return null;
  return n;
}
