import type { TideDay } from "../core/hazards.ts";
import { addDays } from "../core/holidays.ts";
import { wallTimeToInstant } from "../core/time.ts";

// Today's high and low tides for a town, computed here with the maintained `neaps` predictor over the
// harmonic constituents of `@neaps/tide-database` (which it bundles): no request at all. Only NOAA
// stations are used (public domain; the database credits itself with each station's `attribution`).
// neaps is imported on first use: its station database is some 30 MB, which only a morning with a
// coastal town (or /api/weather for one) needs.

/**
 * A town gets tides from the nearest NOAA tide station within this many km of its point. Tide times
 * shift by tens of minutes along a coast within tens of km, and more up a bay or river; NOAA's
 * stations (reference and subordinate) sit every few km along U.S. shores, so a coastal town almost
 * always has one within 15 km, while a town that far from any station is inland or up an estuary
 * where a station's times would mislead. The town's point is its census internal point, often a km
 * or more inland of its waterfront: a tighter limit would drop real harbour towns.
 */
export const TIDE_STATION_MAX_KM = 15;

export interface TidesProvider {
  /** The town's local day of tides, or null when no NOAA station is near. Never makes a request. */
  day(point: { latitude: number; longitude: number; timezone: string }, date: string): Promise<TideDay | null>;
}

type Neaps = typeof import("neaps");
interface StationFields { id: string; name: string; kind?: string; source?: { name?: string }; attribution?: string }

export function createNeapsTides(): TidesProvider {
  let neaps: Promise<Neaps> | undefined;
  return {
    async day(point, date) {
      const { stationsNear } = await (neaps ??= import("neaps"));
      const [station] = stationsNear({
        latitude: point.latitude, longitude: point.longitude, maxDistance: TIDE_STATION_MAX_KM, maxResults: 1,
        filter: (s) => s.kind === "tide" && s.id.startsWith("noaa/"),
      });
      if (!station) return null;
      const start = wallTimeToInstant(`${date}T00:00`, point.timezone);
      const end = wallTimeToInstant(`${addDays(date, 1)}T00:00`, point.timezone);
      const p = station.getExtremesPrediction({ start, end, units: "feet" });
      const s = station as unknown as StationFields;
      return {
        station: { id: s.id, name: s.name, distanceKm: Math.round((station.distance ?? 0) * 10) / 10 },
        datum: p.datum ?? "MLLW",
        units: p.units,
        extremes: p.extremes
          .filter((e) => e.time >= start && e.time < end)
          .map((e) => ({ time: e.time.toISOString(), type: e.high ? "high" as const : "low" as const, height: Math.round(e.level * 100) / 100 })),
        attribution: s.attribution ?? "Neaps tide database (https://github.com/openwatersio/tide-database)",
      };
    },
  };
}
