// Which towns a National Weather Service alert reaches, decided in memory from the one national
// answer of `/alerts/active` (services/sources/run-sources.ts). Pure: no I/O.
//
// An alert names where it applies three ways, and the most precise one it gives decides:
//   1. a polygon (`geometry`): storm-based warnings (tornado, severe thunderstorm, flash flood) reach
//      the towns whose point lies inside it, not the whole county;
//   2. forecast or fire-weather zones (UGC `NVZ036`): the towns in those zones (a town's zone comes
//      from NWS `/points`, looked up once and stored); a town whose zone is not known yet falls back
//      to the alert's counties (SAME codes), which can only over-reach, never miss;
//   3. counties (UGC `NVC033`, SAME `032033`): the towns in those counties.

/** `[longitude, latitude]`, as GeoJSON writes positions. */
export type Position = [number, number];
/** A polygon: its outer ring, then any holes. */
export type PolygonRings = Position[][];

export interface AlertArea {
  /** UGC codes as sent (`NVZ036`, `NVC033`, marine `PZZ750`...). */
  ugc: string[];
  /** SAME codes (`032033`: 0 + state FIPS + county FIPS). */
  same: string[];
  /** Polygons of a storm-based alert (GeoJSON Polygon or MultiPolygon flattened), or empty. */
  polygons: PolygonRings[];
}

export interface TownArea {
  latitude: number;
  longitude: number;
  /** Forecast and fire-weather zones (`NVZ036`, `NVZ467`); empty while not looked up. */
  zones: string[];
  /** County UGC (`NVC033`), when the place has a county. */
  county: string | null;
  /** County SAME code (`032033`), when the place has a county. */
  same: string | null;
}

/** `NV` + county GEOID `32033` → `NVC033`. */
export function countyUgc(stateCode: string, countyGeoid: string | null | undefined): string | null {
  return countyGeoid && /^\d{5}$/.test(countyGeoid) ? `${stateCode.toUpperCase()}C${countyGeoid.slice(2)}` : null;
}

/** County GEOID `32033` → SAME `032033`. */
export function sameCode(countyGeoid: string | null | undefined): string | null {
  return countyGeoid && /^\d{5}$/.test(countyGeoid) ? `0${countyGeoid}` : null;
}

/** The id at the end of an NWS zone or county URL (`.../zones/forecast/NVZ036` → `NVZ036`). */
export function zoneIdOf(url: string | null | undefined): string | null {
  const m = url ? /\/([A-Z]{2}[CZ]\d{3})\/?$/.exec(url) : null;
  return m ? m[1]! : null;
}

const isZone = (code: string) => /^[A-Z]{2}Z\d{3}$/.test(code);
const isCounty = (code: string) => /^[A-Z]{2}C\d{3}$/.test(code);

/** Even-odd ray casting over every ring: inside the outer ring and not inside a hole. */
export function pointInPolygon(longitude: number, latitude: number, rings: PolygonRings): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if ((yi > latitude) !== (yj > latitude) && longitude < ((xj - xi) * (latitude - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/** Does the alert reach the town? (See the rules at the top of this file.) */
export function alertReaches(area: AlertArea, town: TownArea): boolean {
  if (area.polygons.length > 0) return area.polygons.some((p) => pointInPolygon(town.longitude, town.latitude, p));
  const zones = area.ugc.filter(isZone);
  const counties = area.ugc.filter(isCounty);
  if (counties.length > 0 && town.county && counties.includes(town.county)) return true;
  if (zones.length > 0) {
    if (town.zones.length > 0) return town.zones.some((z) => zones.includes(z));
    return town.same !== null && area.same.includes(town.same);
  }
  // Counties named by SAME only (no UGC given).
  return counties.length === 0 && town.same !== null && area.same.includes(town.same);
}

interface Indexed<T> {
  item: T;
  area: AlertArea;
  bbox: [number, number, number, number] | null;
}

/**
 * The alerts of one national answer, indexed by zone, county and SAME code (and polygons by
 * bounding box), so 32,000 towns are matched in milliseconds: each town looks up only the alerts
 * that name its zones, county or SAME code, or whose box holds its point, and `alertReaches` decides.
 */
export class AlertIndex<T> {
  readonly #byCode = new Map<string, Array<Indexed<T>>>();
  readonly #polygons: Array<Indexed<T>> = [];

  constructor(alerts: Array<{ item: T; area: AlertArea }>) {
    for (const { item, area } of alerts) {
      if (area.polygons.length > 0) {
        let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
        for (const p of area.polygons) for (const [x, y] of p[0] ?? []) [w, s, e, n] = [Math.min(w, x), Math.min(s, y), Math.max(e, x), Math.max(n, y)];
        this.#polygons.push({ item, area, bbox: [w, s, e, n] });
        continue;
      }
      const entry = { item, area, bbox: null };
      for (const code of new Set([...area.ugc, ...area.same])) {
        const list = this.#byCode.get(code);
        if (list) list.push(entry);
        else this.#byCode.set(code, [entry]);
      }
    }
  }

  /** The alerts that reach the town, in the order they were given. */
  forTown(town: TownArea): T[] {
    const seen = new Set<Indexed<T>>();
    for (const code of [...town.zones, town.county, town.same]) {
      if (code) for (const e of this.#byCode.get(code) ?? []) seen.add(e);
    }
    for (const e of this.#polygons) {
      const [w, s, east, n] = e.bbox!;
      if (town.longitude >= w && town.longitude <= east && town.latitude >= s && town.latitude <= n) seen.add(e);
    }
    const out: T[] = [];
    for (const e of seen) if (alertReaches(e.area, town)) out.push(e.item);
    return out;
  }
}
