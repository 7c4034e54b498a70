import { AlertIndex, countyUgc, sameCode, type TownArea } from "../../core/hazards/alert-areas.ts";
import { activeAlerts } from "../../core/hazards/alert-section.ts";
import { gridCell, gridKey } from "../../core/weather/grid-cells.ts";
import type { WeatherAlert } from "../../core/hazards/weather-alert.ts";
import type { AirQuality } from "../../core/weather/air-quality.ts";
import type { WeatherSnapshot } from "../../core/weather/snapshot.ts";
import { nwsPointPage, type AreaAlert } from "../../integrations/hazards/nws.ts";
import { getMeta, setMeta } from "../../store/platform/meta.ts";
import type { PlaceRow } from "../../store/places/places.ts";
import { allPlaceZones, saveSourceAnswers, sourceAnswer, sourceAnswers, touchSourceAnswer } from "../../store/sources/run-sources.ts";
import type { AppContext } from "../platform/context.ts";
import { SourceGuard, type GuardResult, type ProviderStats } from "./source-guard.ts";

// The morning's run snapshot: before composing, each outside source is asked once per
// thing towns share, at its own grain, and every town is then composed from memory:
//   - forecast (Open-Meteo): one location per 0.1° grid cell and timezone, up to FORECAST_BATCH cells
//     per request (comma-separated coordinates; the answer is a list in the same order);
//   - air quality (Open-Meteo): one location per grid cell, batched the same way;
//   - NWS alerts: the whole country in one conditional request, matched to towns in memory by zone,
//     county and polygon (core/hazards/alert-areas.ts).
// Sources run alongside each other and a town waits only for its own part (its cell's batch, the
// national alerts). Answers are stored (source_answers) as they come: a run after a crash reuses them
// instead of asking again. Each source goes through a SourceGuard (concurrency, budget, circuit
// breaker, 429 windows). Nothing here rejects into the morning: a source that is down gives nothing.
//
// Adding a source (hazards, say): a RunSource whose `forTown` answers the town's part, started in
// `gatherRun`, and its field on TownInputs.

/** What the outside sources give one town's edition. */
export interface TownInputs {
  weather: WeatherSnapshot | null;
  alerts: WeatherAlert[];
  airQuality: AirQuality | null;
}

export interface DueTown {
  place: PlaceRow;
  date: string;
}

/** One run-level source: gathers at its own grain once per run, answers per town. */
export interface RunSource<T> {
  /** The town's part, once gathered; never rejects (nothing: the source's empty value). */
  forTown(town: DueTown): Promise<T>;
  /** Resolves when every request of the run is over. */
  readonly done: Promise<void>;
  stats(): ProviderStats[];
}

export interface RunSnapshot {
  forTown(town: DueTown): Promise<TownInputs>;
  /** Every source's figures, once all are done. */
  done: Promise<ProviderStats[]>;
}

/** Forecast cells per request: 200 locations make a URL of about 3 KB (limit ~8 KB) and ~300 KB of JSON. */
export const FORECAST_BATCH = 200;
/** Air-quality cells per request. */
export const AIR_QUALITY_BATCH = 200;
/** A stored forecast serves a run again within this time (app clock): a rerun after a crash. */
export const FORECAST_REUSE_MS = 3 * 3_600_000;
export const AIR_QUALITY_REUSE_MS = 3_600_000;
/** The national alerts' last good answer serves a run whose request failed, this long. */
export const ALERTS_REUSE_MS = 30 * 60_000;

export interface GatherOptions {
  now: Date;
  signal?: AbortSignal;
  /** Overrides of the configured per-run settings (tests). */
  budgetMs?: number;
  clock?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/**
 * Open-Meteo without a key is the free tier: one request at a time (200 locations each still make
 * 1,300 a second, far past its 600 a minute), so no request is ever in flight when a 429 comes back.
 */
function openMeteoConcurrency(ctx: AppContext): number {
  return ctx.config.sources.openMeteoApiKey ? ctx.config.sources.runConcurrency : 1;
}

function guardFor(ctx: AppContext, provider: string, metaKey: string, options: GatherOptions, concurrency = ctx.config.sources.runConcurrency): SourceGuard {
  return new SourceGuard({
    provider,
    concurrency,
    budgetMs: options.budgetMs ?? ctx.config.sources.runBudgetMs,
    signal: options.signal,
    log: ctx.log,
    clock: options.clock,
    sleep: options.sleep,
    blockStore: { get: () => getMeta(ctx.db, `sources.blocked.${metaKey}`), set: (v) => setMeta(ctx.db, `sources.blocked.${metaKey}`, v) },
  });
}

/** A deferred value: the promise towns await, settled when their batch answers. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface CellSpec<T> {
  source: string;
  concurrency: number;
  /** Batches wait for this first (air quality after the forecast on the free tier, whose calls they share). */
  after?: Promise<void>;
  provider: string;
  batch: number;
  reuseMs: number;
  keyOf(place: PlaceRow): { key: string; group: string };
  fetch(cells: Array<{ latitude: number; longitude: number }>, group: string, signal: AbortSignal): Promise<Array<T | null>>;
}

/** One grid cell of a run: its point, its batch's group, the answer its towns await, how many have yet to take it. */
interface Cell<T> {
  latitude: number;
  longitude: number;
  group: string;
  answer: ReturnType<typeof deferred<T | null>>;
  towns: number;
}

/**
 * A source asked per grid cell, in batches of cells that share a group (the timezone): each cell
 * once, stored as it comes, reused by a rerun within `reuseMs`.
 */
function cellSource<T>(ctx: AppContext, towns: DueTown[], spec: CellSpec<T>, options: GatherOptions): RunSource<T | null> & { guard: SourceGuard } {
  const guard = guardFor(ctx, spec.provider, spec.source, options, spec.concurrency);
  const cellOf = new Map<string, string>();
  // `towns`: how many due towns have yet to take the cell's answer; the last one lets it go, so a
  // national run does not hold every cell's forecast until its end.
  const cells = new Map<string, Cell<T>>();
  for (const { place } of towns) {
    const { key, group } = spec.keyOf(place);
    cellOf.set(place.geoid, key);
    const cell = cells.get(key);
    if (cell) cell.towns++;
    else cells.set(key, { ...gridCell(place.latitude, place.longitude), group, answer: deferred<T | null>(), towns: 1 });
  }
  const nowIso = options.now.toISOString();
  const stored = sourceAnswers(ctx.db, spec.source, [...cells.keys()], new Date(options.now.getTime() - spec.reuseMs).toISOString());
  // Batches in the order towns come (so the first towns' answers come first), one open batch per group.
  const batches: Array<{ group: string; keys: string[]; cells: Array<Cell<T>> }> = [];
  const open = new Map<string, { group: string; keys: string[]; cells: Array<Cell<T>> }>();
  for (const [key, cell] of cells) {
    const kept = stored.get(key);
    // A stored answer from later on the app clock than now (a pinned clock moved back) is not reused.
    if (kept && kept.fetched_at <= nowIso) {
      guard.stats.reused++;
      cell.answer.resolve(JSON.parse(kept.body) as T | null);
      continue;
    }
    let b = open.get(cell.group);
    if (!b) open.set(cell.group, (b = { group: cell.group, keys: [], cells: [] }));
    b.keys.push(key);
    b.cells.push(cell);
    if (b.keys.length >= spec.batch) {
      batches.push(b);
      open.delete(cell.group);
    }
  }
  batches.push(...open.values());
  const done = Promise.all(batches.map(async (b) => {
    await spec.after;
    const locations = b.cells;
    const r: GuardResult<Array<T | null>> = await guard.call(locations.length, (signal) => spec.fetch(locations.map(({ latitude, longitude }) => ({ latitude, longitude })), b.group, signal));
    if (r.ok) {
      try {
        saveSourceAnswers(ctx.db, spec.source, b.keys.flatMap((k, i) => (r.value[i] ? [{ key: k, body: JSON.stringify(r.value[i]) }] : [])), nowIso);
      } catch (err) {
        ctx.log.error({ err, source: spec.source }, "storing the run's answers failed; composing goes on from memory");
      }
    }
    b.keys.forEach((k, i) => locations[i]!.answer.resolve(r.ok ? (r.value[i] ?? null) : null));
  })).then(() => undefined);
  return {
    guard,
    done,
    async forTown({ place }) {
      const key = cellOf.get(place.geoid)!;
      const cell = cells.get(key)!;
      if (--cell.towns === 0) cells.delete(key);
      const value = await cell.answer.promise;
      if (value) guard.stats.townsServed++;
      else guard.stats.townsWithout++;
      return value;
    },
    stats: () => [guard.finish()],
  };
}

/** The forecast from the edition's date onward (a provider answering late in the day may still lead with it). */
export function alignForecast(w: WeatherSnapshot, date: string): WeatherSnapshot {
  const daily = w.daily.filter((d) => d.date >= date);
  if (daily.length === 0) return w;
  // A forecast that starts on an earlier day gives today's high and low from the edition's own row,
  // so the headline line and the table's first row say the same.
  const row = daily[0]!;
  const today = row.date === w.daily[0]?.date ? w.today
    : { ...w.today, high: row.high, low: row.low, ...(row.precipitationChance != null ? { precipitationChance: row.precipitationChance } : {}), ...(w.today.uvIndexMax !== undefined || row.uvIndexMax != null ? { uvIndexMax: row.uvIndexMax ?? null } : {}) };
  return { ...w, today, daily };
}

function forecastSource(ctx: AppContext, towns: DueTown[], options: GatherOptions) {
  const source = cellSource<WeatherSnapshot>(ctx, towns, {
    source: "forecast",
    provider: "Open-Meteo forecast",
    concurrency: openMeteoConcurrency(ctx),
    batch: FORECAST_BATCH,
    reuseMs: FORECAST_REUSE_MS,
    keyOf: (p) => ({ key: gridKey(p.latitude, p.longitude, p.timezone), group: p.timezone }),
    fetch: (cells, timezone, signal) => ctx.weather.forecastMany(cells, timezone, { signal }),
  }, options);
  return {
    ...source,
    async forTown(town: DueTown): Promise<WeatherSnapshot | null> {
      const w = await source.forTown(town);
      if (!w) return null;
      const { place } = town;
      // The town's own coordinates, as a single-location answer would have them.
      return alignForecast({ ...w, today: { ...w.today, latitude: place.latitude, longitude: place.longitude, timezone: place.timezone } }, town.date);
    },
  };
}

function airQualitySource(ctx: AppContext, towns: DueTown[], options: GatherOptions, after?: Promise<void>) {
  return cellSource<AirQuality>(ctx, towns, {
    source: "air-quality",
    provider: "Open-Meteo air quality",
    concurrency: openMeteoConcurrency(ctx),
    ...(after ? { after } : {}),
    batch: AIR_QUALITY_BATCH,
    reuseMs: AIR_QUALITY_REUSE_MS,
    keyOf: (p) => ({ key: gridKey(p.latitude, p.longitude, "GMT"), group: "GMT" }),
    fetch: (cells, _group, signal) => ctx.sources.airQuality.currentMany(cells, signal),
  }, options);
}

/** NWS alerts: one conditional request for the country, matched per town in memory. */
function alertsSource(ctx: AppContext, towns: DueTown[], options: GatherOptions): RunSource<WeatherAlert[]> {
  const guard = guardFor(ctx, "NWS alerts", "nws-alerts", options, 1);
  const nowIso = options.now.toISOString();
  const index = (async (): Promise<AlertIndex<AreaAlert["alert"]> | null> => {
    if (towns.length === 0) return null;
    const kept = sourceAnswer(ctx.db, "nws-alerts", "us");
    const r = await guard.call(0, (signal) => ctx.sources.alerts.national(kept ? { etag: kept.etag, lastModified: kept.last_modified } : undefined, signal));
    let alerts: AreaAlert[] | null = null;
    if (r.ok && r.value.status === "ok") {
      alerts = r.value.alerts;
      saveSourceAnswers(ctx.db, "nws-alerts", [{ key: "us", body: JSON.stringify(alerts), etag: r.value.etag, lastModified: r.value.lastModified }], nowIso);
    } else if (kept && ((r.ok && r.value.status === "not-modified") || Date.parse(kept.fetched_at) >= options.now.getTime() - ALERTS_REUSE_MS)) {
      // Unchanged (304), or the request failed and the last answer is recent: the stored list serves.
      if (r.ok) {
        guard.stats.notModified++;
        touchSourceAnswer(ctx.db, "nws-alerts", "us", nowIso);
      } else guard.stats.reused++;
      alerts = JSON.parse(kept.body) as AreaAlert[];
    }
    if (!alerts) return null;
    return new AlertIndex(alerts.map((a) => ({ item: a.alert, area: a.area })));
  })().catch((err) => {
    ctx.log.error({ err }, "reading the national alerts failed; editions go without alerts");
    return null;
  });
  const zones = allPlaceZones(ctx.db);
  return {
    done: index.then(() => undefined),
    async forTown({ place }) {
      const idx = await index;
      if (!idx) {
        guard.stats.townsWithout++;
        return [];
      }
      guard.stats.townsServed++;
      const z = zones.get(place.geoid);
      const area: TownArea = {
        latitude: place.latitude,
        longitude: place.longitude,
        zones: [z?.forecast_zone, z?.fire_zone].filter((x): x is string => !!x),
        county: z?.county_zone ?? countyUgc(place.state_code, place.county_geoid),
        same: sameCode(place.county_geoid),
      };
      const url = nwsPointPage(place.latitude, place.longitude);
      return activeAlerts(idx.forTown(area).map((a) => ({ ...a, url })), nowIso);
    },
    stats: () => [guard.finish()],
  };
}

/**
 * Starts gathering every source for the due towns; `forTown` answers a town's inputs once its own
 * parts are in. Sources that are down, limited or slow give nothing within their budgets.
 */
export function gatherRun(ctx: AppContext, towns: DueTown[], options: GatherOptions): RunSnapshot {
  const forecast = forecastSource(ctx, towns, options);
  // On the free tier the forecast gets Open-Meteo's calls first: air quality asks once it is done.
  const air = airQualitySource(ctx, towns, options, ctx.config.sources.openMeteoApiKey ? undefined : forecast.done);
  const alerts = alertsSource(ctx, towns, options);
  const sources = [forecast, air, alerts];
  return {
    async forTown(town) {
      const [weather, airQuality, list] = await Promise.all([forecast.forTown(town), air.forTown(town), alerts.forTown(town)]);
      return { weather, airQuality, alerts: list };
    },
    done: Promise.all(sources.map((s) => s.done)).then(() => sources.flatMap((s) => s.stats())),
  };
}
