import { LRUCache } from "lru-cache";
import type { WeatherSnapshot } from "../../core/weather/snapshot.ts";

// Per-app state the context holds (built in src/app.ts), so it lives on the floor with the context;
// /api/weather (src/services/weather/forecast.ts) reads it through `ctx.weatherCache`.

export interface WeatherCacheOptions {
  /** How long a live forecast is served before the next upstream call. */
  ttlMs: number;
  /** The clock expiry is measured on (the app's clock, so a pinned `NOW` pins the cache too). */
  now: () => Date;
  /** Most cities kept at once; the least recently read go first. */
  max?: number;
}

export interface WeatherCache {
  /** The cached forecast for `key`, or `load()`'s. Concurrent misses share one `load()`; failures are not kept. */
  get(key: string, load: () => Promise<WeatherSnapshot>): Promise<WeatherSnapshot>;
  /**
   * Counts a failed upstream call. Returns how many failed since the last report when one is due
   * (the first failure, then at most one report a minute), so an outage is logged, not every request.
   */
  failureToReport(): number | undefined;
}

/** At most one log line a minute while the forecast service is unreachable. */
const FAILURE_REPORT_MS = 60_000;

/** Live forecasts per city, so a burst of requests makes one upstream call (lru-cache dedupes in-flight fetches). */
export function createWeatherCache(options: WeatherCacheOptions): WeatherCache {
  const cache = new LRUCache<string, WeatherSnapshot, () => Promise<WeatherSnapshot>>({
    max: options.max ?? 5000,
    ttl: options.ttlMs,
    ttlResolution: 0,
    perf: { now: () => options.now().getTime() },
    // The loader bounds its own time; an abort here would only be a cache eviction mid-flight.
    ignoreFetchAbort: true,
    fetchMethod: (_key, _stale, { context }) => context(),
  });
  let failures = 0;
  let lastReport = -Infinity;
  return {
    failureToReport() {
      failures++;
      const now = options.now().getTime();
      if (now - lastReport < FAILURE_REPORT_MS) return undefined;
      lastReport = now;
      const n = failures;
      failures = 0;
      return n;
    },
    async get(key, load) {
      const value = await cache.fetch(key, { context: load });
      // fetchMethod always resolves to a snapshot or rejects; undefined cannot reach here.
      return value!;
    },
  };
}
