import { parentPort, Worker, workerData } from "node:worker_threads";
import type { TideDay } from "../../core/hazards/town-hazards.ts";
import { addDays } from "../../lib/time.ts";
import { wallTimeToInstant } from "../../lib/time.ts";

// Today's high and low tides for a town, computed here with the maintained `neaps` predictor over the
// harmonic constituents of `@neaps/tide-database` (which it bundles): no request at all. Only NOAA
// stations are used (public domain; the database credits itself with each station's `attribution`).
// Loading neaps decodes its whole station database (some 30 MB, 1-2 s of CPU, ~130 MB of memory), so
// it lives in a worker thread started on first use: the main thread's event loop (requests, the
// morning's fetches and their time limits) never waits for it, and a process that never needs a tide
// never loads it.

/**
 * A town gets tides from the nearest NOAA tide station within this many km of its point. Tide times
 * shift by tens of minutes along a coast within tens of km, and more up a bay or river; NOAA's
 * stations (reference and subordinate) sit every few km along U.S. shores, so a coastal town almost
 * always has one within 15 km, while a town that far from any station is inland or up an estuary
 * where a station's times would mislead. The town's point is its census internal point, often a km
 * or more inland of its waterfront: a tighter limit would drop real harbour towns.
 */
export const TIDE_STATION_MAX_KM = 15;

export interface TidePoint { latitude: number; longitude: number; timezone: string }

export interface TidesProvider {
  /** The town's local day of tides, or null when no NOAA station is near. Never makes a request. Rejects if the predictor fails. */
  day(point: TidePoint, date: string): Promise<TideDay | null>;
  /** Starts the worker now (it takes a second or two to load), so the first `day` does not wait for it. */
  warm(): void;
  /** Stops the worker (if started); a later `day` starts it again. */
  close(): Promise<void>;
  /**
   * Stops the worker once no day is being predicted (at once if none is): the morning's tides are all
   * computed and its memory is better given to composing. A later `day` starts it again.
   */
  release(): void;
}

type Neaps = typeof import("neaps");
interface StationFields { id: string; name: string; attribution?: string }

/**
 * The prediction itself (runs in the worker). `cache` keeps each station's day (towns along one
 * harbour share a station: a morning of all 32,000 U.S. places predicts 1,400 station-days for 4,080
 * coastal towns).
 */
export function predictTideDay(neaps: Neaps, point: TidePoint, date: string, cache?: Map<string, Omit<TideDay, "station"> & { name: string }>): TideDay | null {
  const [station] = neaps.stationsNear({
    latitude: point.latitude, longitude: point.longitude, maxDistance: TIDE_STATION_MAX_KM, maxResults: 1,
    filter: (s) => s.kind === "tide" && s.id.startsWith("noaa/"),
  });
  if (!station) return null;
  const s = station as unknown as StationFields;
  const key = `${s.id}|${date}|${point.timezone}`;
  let day = cache?.get(key);
  if (!day) {
    const start = wallTimeToInstant(`${date}T00:00`, point.timezone);
    const end = wallTimeToInstant(`${addDays(date, 1)}T00:00`, point.timezone);
    const p = station.getExtremesPrediction({ start, end, units: "feet" });
    day = {
      name: s.name,
      datum: p.datum ?? "MLLW",
      units: p.units,
      extremes: p.extremes
        .filter((e) => e.time >= start && e.time < end)
        .map((e) => ({ time: e.time.toISOString(), type: e.high ? "high" as const : "low" as const, height: Math.round(e.level * 100) / 100 })),
      attribution: s.attribution ?? "Neaps tide database (https://github.com/openwatersio/tide-database)",
    };
    if (cache) {
      if (cache.size >= 5000) cache.clear(); // a day's worth; older days are not asked again
      cache.set(key, day);
    }
  }
  const { name, ...rest } = day;
  return { station: { id: s.id, name, distanceKm: Math.round((station.distance ?? 0) * 10) / 10 }, ...rest };
}

interface Ask { id: number; point: TidePoint; date: string }
type Answer = { id: number; result: TideDay | null } | { id: number; error: string };

export function createNeapsTides(): TidesProvider {
  let current: { worker: Worker; pending: Map<number, { resolve: (t: TideDay | null) => void; reject: (e: Error) => void }>; releasing: boolean } | undefined;
  let seq = 0;
  const start = () => {
    // A small young generation: decoding the station database makes much short-lived garbage, which
    // V8 would otherwise let grow the worker's heap to twice its live size (measured: 180 -> 74 MB).
    const w = new Worker(new URL(import.meta.url), { workerData: { tidesWorker: true }, resourceLimits: { maxYoungGenerationSizeMb: 16 } });
    const self = { worker: w, pending: new Map<number, { resolve: (t: TideDay | null) => void; reject: (e: Error) => void }>(), releasing: false };
    // Each worker fails its own asks only: one released may exit after the next has started.
    const failAll = (err: Error) => {
      for (const p of self.pending.values()) p.reject(err);
      self.pending.clear();
    };
    w.on("message", (a: Answer) => {
      const p = self.pending.get(a.id);
      if (!p) return;
      self.pending.delete(a.id);
      if ("error" in a) p.reject(new Error(a.error));
      else p.resolve(a.result);
      if (self.pending.size > 0) return;
      // An idle worker must not keep the process alive (scripts end when their work is done).
      w.unref();
      if (self.releasing) void stop(self);
    });
    w.on("error", (err) => failAll(err));
    w.on("exit", (code) => {
      if (current === self) current = undefined;
      failAll(new Error(`the tide worker exited (code ${code})`));
    });
    return self;
  };
  const stop = (w: NonNullable<typeof current>) => {
    if (current === w) current = undefined;
    return w.worker.terminate();
  };
  return {
    day(point, date) {
      current ??= start();
      const w = current;
      w.releasing = false;
      const id = ++seq;
      return new Promise((resolve, reject) => {
        w.pending.set(id, { resolve, reject });
        w.worker.ref();
        w.worker.postMessage({ id, point: { latitude: point.latitude, longitude: point.longitude, timezone: point.timezone }, date } satisfies Ask);
      });
    },
    warm() {
      current ??= start();
      current.worker.unref();
    },
    async close() {
      if (current) await stop(current);
    },
    release() {
      if (!current) return;
      if (current.pending.size === 0) void stop(current);
      else current.releasing = true;
    },
  };
}

// The worker: loads neaps once, then answers each ask in turn.
if (parentPort && (workerData as { tidesWorker?: boolean } | undefined)?.tidesWorker) {
  const port = parentPort;
  const neaps = await import("neaps");
  const cache = new Map<string, Omit<TideDay, "station"> & { name: string }>();
  port.on("message", (ask: Ask) => {
    try {
      port.postMessage({ id: ask.id, result: predictTideDay(neaps, ask.point, ask.date, cache) } satisfies Answer);
    } catch (err) {
      port.postMessage({ id: ask.id, error: (err as Error).message } satisfies Answer);
    }
  });
}
