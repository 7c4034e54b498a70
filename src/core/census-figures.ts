/** The census columns of a `places` row (`PlaceRow` extends this). */
export interface CensusColumns {
  population: number | null;
  housing_units: number | null;
  land_area_sq_mi: number | null;
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
}

/** One figure as people read it; `value` is null when it has not been imported (never estimated). */
export interface CensusFigure {
  label: string;
  value: string | null;
}

const int = new Intl.NumberFormat("en-US");
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });
const dec1 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const pct = (v: number) => `${dec1.format(v)}%`;

/** The census table of a place, in one order and wording for the HTML page and its markdown twin. */
export function censusFigures(p: CensusColumns): CensusFigure[] {
  const f = (v: number | null | undefined, fmt: (x: number) => string) => (v === null || v === undefined || !Number.isFinite(v) ? null : fmt(v));
  return [
    { label: "Population", value: f(p.population, int.format) },
    { label: "Housing units", value: f(p.housing_units, int.format) },
    { label: "Land area", value: f(p.land_area_sq_mi, (v) => `${dec1.format(v)} sq mi`) },
    { label: "People per square mile", value: p.population !== null && p.land_area_sq_mi ? int.format(Math.round(p.population / p.land_area_sq_mi)) : null },
    { label: "Median household income", value: f(p.median_income, usd.format) },
    { label: "Median home value", value: f(p.median_home_value, usd.format) },
    { label: "Median gross rent", value: f(p.median_rent, (v) => `${usd.format(v)} a month`) },
    { label: "Owner-occupied homes", value: f(p.owner_occupied, int.format) },
    { label: "Renter-occupied homes", value: f(p.renter_occupied, int.format) },
    { label: "Bachelor's degree or higher (age 25+)", value: f(p.college_degree_percent, pct) },
    { label: "Mean travel time to work", value: f(p.avg_commute_minutes, (v) => `${dec1.format(v)} minutes`) },
    { label: "Work from home", value: f(p.work_from_home_percent, pct) },
    { label: "Walk, bike or take transit to work", value: f(p.walk_bike_transit_percent, pct) },
    { label: "Median age", value: f(p.median_age, (v) => `${dec1.format(v)} years`) },
    { label: "Aged 65 and over", value: f(p.over65_percent, pct) },
    { label: "Vacant housing units", value: f(p.vacancy_rate, pct) },
  ];
}
