// The places dataset as "Did you know?" asks it, held in memory for a whole morning run: ranks by
// population in the state and the county, the state's density, the nearest larger place, the state
// capital. Built once from one read of the places table (src/store/morning/fact-places.ts) instead
// of four to six queries a town; each answer is the one those queries gave (src/store/places/places.ts).
import { distanceAndBearing, milesBetween, STATE_CAPITALS, type NearbyPlace } from "./did-you-know.ts";

export interface FactPlaceRow {
  name: string;
  census_name: string;
  state_name: string;
  county_name: string | null;
  population: number | null;
  latitude: number;
  longitude: number;
  name_ambiguous_in_state: number;
}

/** The place a fact is about. */
export type FactTown = Pick<FactPlaceRow, "name" | "state_name" | "county_name" | "population" | "latitude" | "longitude">;

/** Grid cells of this many degrees hold the places for the nearest-larger search. */
const CELL = 1;

/** How many of the populations (sorted largest first) exceed `p`. */
function countAbove(sorted: number[], p: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! > p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** SQLite's NOCASE: ASCII letters only. */
const nocase = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The order of the covering index the box query read (latitude, longitude, population, name, state): its first row wins a tie. */
function indexOrder(a: FactPlaceRow, b: FactPlaceRow): number {
  return a.latitude - b.latitude || a.longitude - b.longitude || (a.population ?? -Infinity) - (b.population ?? -Infinity)
    || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.state_name < b.state_name ? -1 : a.state_name > b.state_name ? 1 : 0);
}

export class FactPlaces {
  /** Populations (> 0) of each state's places and of each county's (key "state\u0000county"), largest first. */
  readonly #byState = new Map<string, number[]>();
  readonly #byCounty = new Map<string, number[]>();
  readonly #density: Map<string, number | null>;
  readonly #cells = new Map<string, FactPlaceRow[]>();
  readonly #byName = new Map<string, FactPlaceRow[]>();

  /** `density`: each state's people per square mile of land over its places (SUMs as SQLite makes them). */
  constructor(rows: FactPlaceRow[], density: Array<{ state_name: string; p: number | null; a: number | null }>) {
    this.#density = new Map(density.map((d) => [d.state_name, d.p && d.a ? d.p / d.a : null]));
    const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
      const list = m.get(k);
      if (list) list.push(v);
      else m.set(k, [v]);
    };
    for (const r of rows) {
      if (r.population !== null && r.population > 0) {
        push(this.#byState, r.state_name, r.population);
        if (r.county_name !== null) push(this.#byCounty, `${r.state_name}\u0000${r.county_name}`, r.population);
      }
      if (r.population !== null) push(this.#cells, `${Math.floor(r.latitude / CELL)}:${Math.floor(r.longitude / CELL)}`, r);
      push(this.#byName, `${r.state_name}\u0000${nocase(r.name)}`, r);
      if (nocase(r.census_name) !== nocase(r.name)) push(this.#byName, `${r.state_name}\u0000${nocase(r.census_name)}`, r);
    }
    for (const list of [...this.#byState.values(), ...this.#byCounty.values()]) list.sort((a, b) => b - a);
  }

  /** The town's rank by population (1 = largest) among its state's places, or its county's (src/store/places/places.ts populationRank). */
  rank(t: FactTown, within: "state" | "county"): { rank: number; of: number } | null {
    if (!t.population || (within === "county" && !t.county_name)) return null;
    const list = (within === "state" ? this.#byState.get(t.state_name) : this.#byCounty.get(`${t.state_name}\u0000${t.county_name}`)) ?? [];
    return { rank: countAbove(list, t.population) + 1, of: list.length };
  }

  stateDensity(stateName: string): number | null {
    return this.#density.get(stateName) ?? null;
  }

  /**
   * The nearest of the places larger than `population` in the box of `degrees` around a point
   * (src/store/places/places.ts largerPlacesNear) within the box's inscribed radius, or null.
   */
  #nearestLargerIn(lat: number, lon: number, population: number, degrees: number): { row: FactPlaceRow; miles: number } | null {
    const dl = degrees / Math.max(0.2, Math.cos((lat * Math.PI) / 180));
    const [lat0, lat1, lon0, lon1] = [lat - degrees, lat + degrees, lon - dl, lon + dl];
    let best: FactPlaceRow | null = null;
    let bestMiles = Infinity;
    for (let y = Math.floor(lat0 / CELL); y <= Math.floor(lat1 / CELL); y++) {
      for (let x = Math.floor(lon0 / CELL); x <= Math.floor(lon1 / CELL); x++) {
        for (const r of this.#cells.get(`${y}:${x}`) ?? []) {
          if (!(r.population! > population && r.latitude >= lat0 && r.latitude <= lat1 && r.longitude >= lon0 && r.longitude <= lon1)) continue;
          const miles = milesBetween(lat, lon, r.latitude, r.longitude);
          // Only within the box's inscribed radius is "nearest" certain; farther ones wait for a wider box.
          if (miles > degrees * 69) continue;
          if (best && (miles > bestMiles || (miles === bestMiles && indexOrder(r, best) > 0))) continue;
          best = r;
          bestMiles = miles;
        }
      }
    }
    return best ? { row: best, miles: bestMiles } : null;
  }

  /** The nearest place with more people, searching ever wider boxes (most towns find one within 1°). */
  nearestLarger(t: FactTown): NearbyPlace | null {
    if (!t.population) return null;
    for (const degrees of [0.75, 2, 5, 15]) {
      const found = this.#nearestLargerIn(t.latitude, t.longitude, t.population, degrees);
      if (!found) continue;
      const r = found.row;
      return { name: r.name, stateName: r.state_name, population: r.population!, ...distanceAndBearing({ lat: t.latitude, lon: t.longitude }, { lat: r.latitude, lon: r.longitude }) };
    }
    return null;
  }

  /** The place a name means in a state: the most populous of that name (src/store/places/places.ts findPlaceByName). */
  #byNameInState(name: string, stateName: string): FactPlaceRow | undefined {
    const rows = this.#byName.get(`${stateName}\u0000${nocase(name.trim())}`) ?? [];
    return [...rows].sort((a, b) => a.name_ambiguous_in_state - b.name_ambiguous_in_state || (b.population ?? -Infinity) - (a.population ?? -Infinity))[0];
  }

  /** The state capital, how far and which way (none for the capital itself, or a state without one). */
  capital(t: FactTown): NearbyPlace | null {
    const name = STATE_CAPITALS[t.state_name];
    if (!name || name === t.name) return null;
    const cap = this.#byNameInState(name, t.state_name);
    if (!cap) return null;
    return { name: cap.name, stateName: cap.state_name, population: cap.population ?? 0, ...distanceAndBearing({ lat: t.latitude, lon: t.longitude }, { lat: cap.latitude, lon: cap.longitude }) };
  }
}
