import { CENSUS_FIELDS, type CensusColumns, type CensusFormat } from "../../contract/census-fields.ts";

export type { CensusColumns };

/** One figure as people read it; `value` is null when it has not been imported (never estimated). */
export interface CensusFigure {
  label: string;
  value: string | null;
}

/** A figure of the city against its state and the nation (the chart on the city page). */
export interface ComparisonMetric { label: string; unit: string; city: number; state: number; nation: number; format: "int" | "usd" | "dec1" }

/** Totals of a state or of the nation: summed counts, population-weighted averages of the compared figures. */
export type CensusTotals = Pick<CensusColumns, "population" | "housing_units" | "land_area_sq_mi"> & Partial<CensusColumns>;

const int = new Intl.NumberFormat("en-US");
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

const FORMATS: Record<CensusFormat, (v: number) => string> = {
  int: (v) => int.format(v),
  usd: (v) => usd.format(v),
  usdMonth: (v) => `${usd.format(v)} a month`,
  percent: (v) => `${dec1.format(v)}%`,
  minutes: (v) => `${dec1.format(v)} minutes`,
  years: (v) => `${dec1.format(v)} years`,
  sqmi: (v) => `${dec1.format(v)} sq mi`,
};

const finite = (v: number | null | undefined): v is number => v !== null && v !== undefined && Number.isFinite(v);

/** People per square mile of land, when both figures are known. */
const density = (p: Partial<CensusColumns>) => (finite(p.population) && p.land_area_sq_mi ? p.population / p.land_area_sq_mi : null);
const perHome = (p: Partial<CensusColumns>) => (finite(p.population) && p.housing_units ? p.population / p.housing_units : null);

/**
 * The census table of a place, in one order and wording for the HTML page and its markdown twin:
 * every field of the registry, with the density (derived) right after the land area.
 */
export function censusFigures(p: CensusColumns): CensusFigure[] {
  const out: CensusFigure[] = [];
  for (const f of CENSUS_FIELDS) {
    const v = p[f.column];
    out.push({ label: f.label, value: finite(v) ? FORMATS[f.format](v) : null });
    if (f.key === "landAreaSqMi") {
      const d = density(p);
      out.push({ label: "People per square mile", value: d === null ? null : int.format(Math.round(d)) });
    }
  }
  return out;
}

/** The city against its state and the nation, for the figures all three have. */
export function censusComparison(p: CensusColumns, state: CensusTotals | undefined, nation: CensusTotals | undefined): ComparisonMetric[] {
  if (!state || !nation) return [];
  const out: ComparisonMetric[] = [];
  const add = (label: string, unit: string, format: ComparisonMetric["format"], of: (x: Partial<CensusColumns>) => number | null | undefined) => {
    const [city, s, us] = [of(p), of(state), of(nation)];
    if (finite(city) && finite(s) && finite(us)) out.push({ label, unit, format, city, state: s, nation: us });
  };
  add("People per square mile", "people/sq mi", "int", density);
  add("People per housing unit", "people", "dec1", perHome);
  for (const f of CENSUS_FIELDS) if ("compare" in f) add(f.compare.label, f.compare.unit, f.compare.format, (x) => x[f.column]);
  return out;
}

/** The columns whose state and national totals are population-weighted averages (the compared ones). */
export const WEIGHTED_COLUMNS = CENSUS_FIELDS.filter((f) => "compare" in f).map((f) => f.column);
