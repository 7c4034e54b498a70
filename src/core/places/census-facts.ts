import type { Census } from "../../contract/resources.ts";

export interface CensusFact {
  key: string;
  /** One plain sentence (no markdown); the composer escapes it like any other text. */
  text: string;
}

type Figures = NonNullable<Census>;

const n0 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const n1 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 0 });

const has = (v: number | null | undefined): v is number => typeof v === "number" && Number.isFinite(v);

/** Every fact the figures support, in a fixed order; a figure that is null yields no fact. */
export function availableFacts(town: string, c: Figures): CensusFact[] {
  const acs = c.year ? ` (American Community Survey, ${Number(c.year) - 4}-${c.year})` : "";
  const facts: CensusFact[] = [];
  const add = (key: string, ok: boolean, text: () => string) => { if (ok) facts.push({ key, text: text() }); };
  add("population", has(c.population) && c.population > 0, () => `${town} is home to about ${n0.format(c.population!)} people${acs}.`);
  add("housingUnits", has(c.housingUnits) && c.housingUnits > 0, () => `${town} has ${n0.format(c.housingUnits!)} housing units${acs}.`);
  add("peoplePerHome", has(c.population) && has(c.housingUnits) && c.housingUnits > 0 && c.population > 0,
    () => `There are about ${n1.format(c.population! / c.housingUnits!)} residents for every housing unit in ${town}.`);
  add("density", has(c.population) && has(c.landAreaSqMi) && c.landAreaSqMi > 0 && c.population > 0,
    () => `${town} packs about ${n0.format(c.population! / c.landAreaSqMi!)} people into each square mile of land.`);
  add("landArea", has(c.landAreaSqMi) && c.landAreaSqMi > 0, () => `${town} covers ${n1.format(c.landAreaSqMi!)} square miles of land (Census Gazetteer).`);
  add("medianIncome", has(c.medianIncome), () => `The median household in ${town} earns ${usd.format(c.medianIncome!)} a year${acs}.`);
  add("medianHomeValue", has(c.medianHomeValue), () => `The median owner-occupied home in ${town} is worth ${usd.format(c.medianHomeValue!)}${acs}.`);
  add("medianRent", has(c.medianRent), () => `Median gross rent in ${town} is ${usd.format(c.medianRent!)} a month${acs}.`);
  add("ownerShare", has(c.ownerOccupied) && has(c.renterOccupied) && c.ownerOccupied + c.renterOccupied > 0,
    () => `${n0.format((100 * c.ownerOccupied!) / (c.ownerOccupied! + c.renterOccupied!))}% of occupied homes in ${town} are lived in by their owners${acs}.`);
  add("collegeDegreePercent", has(c.collegeDegreePercent), () => `${n1.format(c.collegeDegreePercent!)}% of adults 25 and over in ${town} hold a bachelor's degree or higher${acs}.`);
  add("avgCommuteMinutes", has(c.avgCommuteMinutes), () => `The average commute in ${town} takes ${n1.format(c.avgCommuteMinutes!)} minutes${acs}.`);
  add("workFromHomePercent", has(c.workFromHomePercent), () => `${n1.format(c.workFromHomePercent!)}% of workers in ${town} work from home${acs}.`);
  add("walkBikeTransitPercent", has(c.walkBikeTransitPercent), () => `${n1.format(c.walkBikeTransitPercent!)}% of workers in ${town} walk, bike or take transit to work${acs}.`);
  add("medianAge", has(c.medianAge), () => `The median age in ${town} is ${n1.format(c.medianAge!)}${acs}.`);
  add("over65Percent", has(c.over65Percent), () => `${n1.format(c.over65Percent!)}% of ${town} residents are 65 or older${acs}.`);
  add("vacancyRate", has(c.vacancyRate), () => `${n1.format(c.vacancyRate!)}% of housing units in ${town} stand vacant${acs}.`);
  return facts;
}

/** Days since 1970-01-01 for a YYYY-MM-DD date. */
export function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
}

/** A small stable hash (FNV-1a) so each town starts its rotation at a different fact. */
export function stableHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * The census fact of the day: the town's available facts taken in turn, one per day, starting at a
 * town-specific offset. Consecutive days differ whenever the town has two or more facts.
 */
export function censusFactOfDay(town: string, townKey: string, figures: Figures | null, date: string): CensusFact | null {
  if (!figures) return null;
  const facts = availableFacts(town, figures);
  if (facts.length === 0) return null;
  return facts[(dayNumber(date) + stableHash(townKey)) % facts.length]!;
}
