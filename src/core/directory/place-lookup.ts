// The places the town directory's datasets are matched to, indexed by the keys the datasets join on
// (GEOID, name and state, county, coordinates), and the lookups the matchers share. Pure.
import { nameKey } from "./name-keys.ts";

export interface DirectoryPlace {
  geoid: string;
  name: string;
  placeType: string;
  stateCode: string;
  stateName: string;
  countyGeoid: string | null;
  countyName: string | null;
  latitude: number;
  longitude: number;
  population: number | null;
  landAreaSqMi: number | null;
  /** The places data's count of places sharing this name in the state (1 = unique). */
  nameAmbiguousInState: number;
}

/** Places by the keys the datasets join on. */
export interface PlaceIndex {
  byGeoid: Map<string, DirectoryPlace>;
  /** `ST|normalized name` -> places. */
  byName: Map<string, DirectoryPlace[]>;
  /** county GEOID -> its places. */
  byCounty: Map<string, DirectoryPlace[]>;
  /** `ST|normalized county name` ("st|cook county") -> county GEOID. */
  countyByName: Map<string, string>;
  /** State code -> its places. */
  byState: Map<string, DirectoryPlace[]>;
}

export function buildPlaceIndex(places: Iterable<DirectoryPlace>): PlaceIndex {
  const index: PlaceIndex = { byGeoid: new Map(), byName: new Map(), byCounty: new Map(), countyByName: new Map(), byState: new Map() };
  const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const p of places) {
    index.byGeoid.set(p.geoid, p);
    push(index.byName, `${p.stateCode}|${nameKey(p.name)}`, p);
    push(index.byState, p.stateCode, p);
    if (p.countyGeoid) {
      push(index.byCounty, p.countyGeoid, p);
      if (p.countyName) index.countyByName.set(`${p.stateCode}|${nameKey(p.countyName)}`, p.countyGeoid);
    }
  }
  return index;
}

/**
 * The one place a name means in a state, or why there is none. `types` narrows it to places of those
 * legal types ("City of X" is a city; a municipality's platform site is no CDP's).
 */
export function placeByName(index: PlaceIndex, state: string, name: string, types?: readonly string[]):
  { place: DirectoryPlace } | { outcome: "no_place" | "ambiguous" } {
  const all = index.byName.get(`${state}|${nameKey(name)}`) ?? [];
  const fit = types ? all.filter((p) => types.includes(p.placeType)) : all;
  if (fit.length === 0) return { outcome: "no_place" };
  if (fit.length > 1) return { outcome: "ambiguous" };
  // One place fits. A bare name shared with another place (the places data's ambiguous-name column, or
  // another spelling of the same key) is not guessed; a legal type that leaves exactly one decides.
  if (!types && (all.length > 1 || fit[0].nameAmbiguousInState > 1)) return { outcome: "ambiguous" };
  return { place: fit[0] };
}

/** A county's GEOID from its name ("Cook County", "Cook", "Orleans Parish") in a state, or null. */
export function countyByName(index: PlaceIndex, state: string, name: string): string | null {
  const key = nameKey(name);
  for (const candidate of [key, `${key} county`, `${key} parish`, `${key} borough`, `${key} city and borough`]) {
    const geoid = index.countyByName.get(`${state}|${candidate}`);
    if (geoid) return geoid;
  }
  return null;
}

/** Every place of a county: what a county's source is a candidate of. */
export const countyWide = (index: PlaceIndex, county: string) => index.byCounty.get(county) ?? [];

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The place of a state nearest to a point, if within `maxKm`. */
export function nearestPlace(index: PlaceIndex, state: string, lat: number, lon: number, maxKm: number): DirectoryPlace | null {
  let best: DirectoryPlace | null = null;
  let bestKm = maxKm;
  for (const p of index.byState.get(state) ?? []) {
    const km = distanceKm(lat, lon, p.latitude, p.longitude);
    if (km <= bestKm && p.countyGeoid) [best, bestKm] = [p, km];
  }
  return best;
}
