// Town facts for "Did you know?": the census figures (src/core/places/census-facts.ts) and many more built
// from the places dataset (ranks, density against the state, the nearest larger town, land area
// against a well-known place, the county, the time zone, the latitude, the state capital), and the
// rule that picks one a morning so that no fact comes back within 30 mornings. Pure: the service
// (src/services/places/fact-of-day.ts) gathers the numbers.
import type { Census } from "../../contract/resources.ts";
import { availableFacts, stableHash, type CensusFact } from "../places/census-facts.ts";
import { addDays } from "../../lib/time.ts";

/** No fact is told twice within this many mornings. */
export const FACT_WINDOW_DAYS = 30;

export interface NearbyPlace { name: string; stateName: string; population: number; miles: number; bearing: number }

export interface TownFactContext {
  name: string;
  stateName: string;
  countyName: string | null;
  /** "Pacific Time". */
  timeZoneName: string;
  latitude: number;
  figures: NonNullable<Census> | null;
  /** Rank by population among the state's Census places (1 = largest). */
  stateRank: { rank: number; of: number } | null;
  countyRank: { rank: number; of: number } | null;
  /** People per square mile of land over all the state's Census places. */
  stateDensity: number | null;
  nearestLarger: NearbyPlace | null;
  capital: NearbyPlace | null;
}

const n0 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });
const n1 = new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 });

export function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${s}`;
}

/** Compass words for a bearing in degrees: "north", "southwest". */
export function compass(bearing: number): string {
  const names = ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"];
  return names[Math.round((((bearing % 360) + 360) % 360) / 45) % 8]!;
}

/** A ratio in words: "about 3 times", "about half", "about a third". */
function ratioWords(r: number): string {
  if (r >= 1.5) return `about ${r >= 10 ? n0.format(r) : n1.format(Math.round(r * 2) / 2)} times`;
  if (r >= 0.9) return "about the same as";
  const fractions: Array<[number, string]> = [[3 / 4, "three quarters"], [2 / 3, "two thirds"], [1 / 2, "half"], [1 / 3, "a third"], [1 / 4, "a quarter"], [1 / 5, "a fifth"], [1 / 10, "a tenth"]];
  const [, words] = fractions.reduce((best, f) => (Math.abs(f[0] - r) < Math.abs(best[0] - r) ? f : best));
  return `about ${words}`;
}

// Land areas readers can picture (square miles of land).
const LANDMARKS: Array<{ name: string; sqMi: number }> = [
  { name: "Central Park in New York", sqMi: 1.32 },
  { name: "Manhattan", sqMi: 22.7 },
  { name: "San Francisco", sqMi: 46.9 },
  { name: "Washington, D.C.", sqMi: 61.1 },
  { name: "Rhode Island", sqMi: 1034 },
];

// Cities the world knows, by latitude: "about as far north as Beijing".
const LATITUDES: Array<{ name: string; lat: number }> = [
  { name: "Cairo", lat: 30.0 }, { name: "Shanghai", lat: 31.2 }, { name: "Tokyo", lat: 35.7 }, { name: "Seoul", lat: 37.6 },
  { name: "Athens", lat: 38.0 }, { name: "Lisbon", lat: 38.7 }, { name: "Beijing", lat: 39.9 }, { name: "Madrid", lat: 40.4 },
  { name: "Istanbul", lat: 41.0 }, { name: "Rome", lat: 41.9 }, { name: "Barcelona", lat: 41.4 }, { name: "Marseille", lat: 43.3 },
  { name: "Bordeaux", lat: 44.8 }, { name: "Venice", lat: 45.4 }, { name: "Geneva", lat: 46.2 }, { name: "Vienna", lat: 48.2 },
  { name: "Paris", lat: 48.9 }, { name: "Prague", lat: 50.1 }, { name: "London", lat: 51.5 }, { name: "Berlin", lat: 52.5 },
  { name: "Moscow", lat: 55.8 }, { name: "Stockholm", lat: 59.3 }, { name: "Helsinki", lat: 60.2 }, { name: "Reykjavik", lat: 64.1 },
  { name: "Hong Kong", lat: 22.3 }, { name: "Havana", lat: 23.1 }, { name: "Mexico City", lat: 19.4 }, { name: "Mumbai", lat: 19.1 },
  { name: "Delhi", lat: 28.6 }, { name: "Kathmandu", lat: 27.7 }, { name: "Jerusalem", lat: 31.8 }, { name: "Baghdad", lat: 33.3 },
];

/** Every fact the town supports, census facts first; each has a stable key. */
export function townFacts(t: TownFactContext): CensusFact[] {
  const town = t.name;
  const facts: CensusFact[] = t.figures ? [...availableFacts(town, t.figures)] : [];
  const add = (key: string, text: string | null) => { if (text) facts.push({ key, text }); };
  const c = t.figures;

  if (t.stateRank && t.stateRank.of > 1) {
    add("rankInState", t.stateRank.rank === 1
      ? `${town} is the largest of ${t.stateName}'s ${n0.format(t.stateRank.of)} Census places by population.`
      : `${town} is the ${ordinal(t.stateRank.rank)}-largest of ${t.stateName}'s ${n0.format(t.stateRank.of)} Census places by population.`);
  }
  if (t.countyRank && t.countyName && t.countyRank.of > 1) {
    add("rankInCounty", t.countyRank.rank === 1
      ? `${town} is the largest of the ${t.countyRank.of} Census places in ${t.countyName}.`
      : `${town} is the ${ordinal(t.countyRank.rank)}-largest of the ${t.countyRank.of} Census places in ${t.countyName}.`);
  }
  if (c && c.population && c.landAreaSqMi && t.stateDensity) {
    const density = c.population / c.landAreaSqMi;
    const r = density / t.stateDensity;
    add("densityAgainstState", r >= 0.9 && r < 1.5
      ? `${town}, with about ${n0.format(density)} people per square mile of land, is about as densely settled as ${t.stateName}'s towns and cities taken together (${n0.format(t.stateDensity)}).`
      : `${town} has about ${n0.format(density)} people per square mile of land, ${ratioWords(r)} the figure for ${t.stateName}'s towns and cities taken together (${n0.format(t.stateDensity)}).`);
  }
  if (t.nearestLarger) {
    const p = t.nearestLarger;
    const where = p.stateName === t.stateName ? p.name : `${p.name}, ${p.stateName}`;
    add("nearestLarger", `The nearest larger town is ${where} (about ${n0.format(p.population)} people), ${n0.format(Math.max(1, Math.round(p.miles)))} miles to the ${compass(p.bearing)}.`);
  }
  if (c && c.landAreaSqMi && c.landAreaSqMi > 0) {
    const area = c.landAreaSqMi;
    // The landmark whose size is closest to the town's (by ratio), so the comparison is easy to picture.
    const best = LANDMARKS.reduce((a, b) => (Math.abs(Math.log(area / b.sqMi)) < Math.abs(Math.log(area / a.sqMi)) ? b : a));
    const r = area / best.sqMi;
    add("landCompared", `${town}'s ${n1.format(area)} square miles of land are ${r >= 0.9 && r < 1.5 ? "about the size of" : `${ratioWords(r)} the size of`} ${best.name} (${n1.format(best.sqMi)}).`);
  }
  if (c && c.population && c.housingUnits && c.housingUnits > 0) {
    add("homesPerResident", `${town} has about ${n0.format((100 * c.housingUnits) / c.population)} homes for every 100 residents.`);
  }
  if (t.countyName) add("county", `${town} lies in ${t.countyName}, ${t.stateName}.`);
  add("timeZone", `${town} keeps ${t.timeZoneName}.`);
  const near = LATITUDES.reduce((a, b) => (Math.abs(b.lat - t.latitude) < Math.abs(a.lat - t.latitude) ? b : a));
  if (Math.abs(near.lat - t.latitude) <= 0.6) {
    add("latitude", `${town} lies at ${n1.format(Math.abs(t.latitude))}° ${t.latitude >= 0 ? "north" : "south"}, about as far ${t.latitude >= 0 ? "north" : "south"} as ${near.name}.`);
  }
  if (t.capital && t.capital.miles >= 1) {
    // The bearing is from the town to the capital; the town lies the opposite way from it.
    add("capital", `${town} is about ${n0.format(Math.round(t.capital.miles))} miles ${compass(t.capital.bearing + 180)} of ${t.capital.name}, ${t.stateName}'s capital.`);
  }
  return facts;
}

/**
 * Today's fact, or null. `recent` is what the town's editions told in the window (their date and
 * fact key). A fact told within `FACT_WINDOW_DAYS` mornings is not told again; with fewer facts than
 * that, facts are spaced out (one every 30/N mornings, rounded down) instead of repeated. Each town takes its
 * facts in its own stable order.
 */
export function factOfDay(facts: CensusFact[], townKey: string, date: string, recent: Array<{ date: string; key: string | null }>): CensusFact | null {
  if (facts.length === 0) return null;
  const since = addDays(date, -(FACT_WINDOW_DAYS - 1));
  const told = recent.filter((r) => r.key && r.date >= since && r.date < date);
  const toldKeys = new Set(told.map((r) => r.key));
  if (facts.length < FACT_WINDOW_DAYS && told.length > 0) {
    // As many mornings apart as lets each fact be told once in the window (a day or more).
    const gap = Math.max(1, Math.floor(FACT_WINDOW_DAYS / facts.length));
    const last = told.map((r) => r.date).sort().at(-1)!;
    if (addDays(last, gap) > date) return null;
  }
  const fresh = facts.filter((f) => !toldKeys.has(f.key));
  if (fresh.length === 0) return null;
  // A stable order per town; the first fresh fact in it.
  return fresh.sort((a, b) => stableHash(`${townKey}:${a.key}`) - stableHash(`${townKey}:${b.key}`) || a.key.localeCompare(b.key))[0]!;
}

/** Each state's capital, by state name, as the places dataset names it (DC has none of its own). */
export const STATE_CAPITALS: Readonly<Record<string, string>> = {
  Alabama: "Montgomery", Alaska: "Juneau", Arizona: "Phoenix", Arkansas: "Little Rock", California: "Sacramento",
  Colorado: "Denver", Connecticut: "Hartford", Delaware: "Dover", Florida: "Tallahassee", Georgia: "Atlanta",
  Hawaii: "Honolulu", Idaho: "Boise", Illinois: "Springfield", Indiana: "Indianapolis", Iowa: "Des Moines",
  Kansas: "Topeka", Kentucky: "Frankfort", Louisiana: "Baton Rouge", Maine: "Augusta", Maryland: "Annapolis",
  Massachusetts: "Boston", Michigan: "Lansing", Minnesota: "St. Paul", Mississippi: "Jackson", Missouri: "Jefferson City",
  Montana: "Helena", Nebraska: "Lincoln", Nevada: "Carson City", "New Hampshire": "Concord", "New Jersey": "Trenton",
  "New Mexico": "Santa Fe", "New York": "Albany", "North Carolina": "Raleigh", "North Dakota": "Bismarck", Ohio: "Columbus",
  Oklahoma: "Oklahoma City", Oregon: "Salem", Pennsylvania: "Harrisburg", "Puerto Rico": "San Juan", "Rhode Island": "Providence",
  "South Carolina": "Columbia", "South Dakota": "Pierre", Tennessee: "Nashville", Texas: "Austin", Utah: "Salt Lake City",
  Vermont: "Montpelier", Virginia: "Richmond", Washington: "Olympia", "West Virginia": "Charleston", Wisconsin: "Madison",
  Wyoming: "Cheyenne",
};

/** Great-circle distance in miles and initial bearing in degrees from a to b. */
export function distanceAndBearing(a: { lat: number; lon: number }, b: { lat: number; lon: number }): { miles: number; bearing: number } {
  const rad = Math.PI / 180;
  const [φ1, φ2, Δλ] = [a.lat * rad, b.lat * rad, (b.lon - a.lon) * rad];
  const miles = milesBetween(a.lat, a.lon, b.lat, b.lon);
  const y = Math.sin(Δλ) * Math.cos(φ2);
  const x = Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ);
  return { miles, bearing: ((Math.atan2(y, x) / rad) + 360) % 360 };
}

/** The great-circle distance of distanceAndBearing alone, allocating nothing (searches compare many). */
export function milesBetween(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const φ1 = lat1 * rad;
  const φ2 = lat2 * rad;
  const Δλ = (lon2 - lon1) * rad;
  const Δφ = φ2 - φ1;
  const h = Math.sin(Δφ / 2) ** 2 + Math.cos(φ1) * Math.cos(φ2) * Math.sin(Δλ / 2) ** 2;
  return 2 * 3958.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}
