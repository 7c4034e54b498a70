import { LRUCache } from "lru-cache";
import type { WeatherAlert } from "../../core/hazards/weather-alert.ts";
import type { Logger } from "../../lib/log.ts";
import type { AlertsProvider } from "../../integrations/hazards/nws.ts";

// Per-app state the context holds (built in src/app.ts), so it lives on the floor with the context;
// /api/weather (src/services/weather/forecast.ts) reads it through `ctx.sources.alertsCache`.

/** Live alerts are reused this long (shorter than a live forecast: a warning is news). */
export const ALERTS_TTL_MS = 5 * 60 * 1000;
/** When NWS cannot be reached, it is not asked again for this long (readers get no `alerts` meanwhile). */
const ALERTS_FAILURE_TTL_MS = 60 * 1000;

export interface AlertsCache {
  /** Active alerts for a town, or null when NWS could not be asked; never rejects. */
  get(key: string, point: { latitude: number; longitude: number }): Promise<WeatherAlert[] | null>;
}

/** Live NWS alerts per town for /api/weather, so a burst of readers makes one upstream call. */
export function createAlertsCache(options: { provider: AlertsProvider; now: () => Date; log: Logger; max?: number }): AlertsCache {
  type Point = { latitude: number; longitude: number };
  // An outage is logged once a minute (wall time: this is about log volume), with the failures since.
  let failures = 0;
  let reportedAt = -Infinity;
  const cache = new LRUCache<string, { alerts: WeatherAlert[] | null }, Point>({
    max: options.max ?? 5000,
    ttl: ALERTS_TTL_MS,
    ttlResolution: 0,
    perf: { now: () => options.now().getTime() },
    ignoreFetchAbort: true,
    fetchMethod: async (key, _stale, { context, options: set }) => {
      try {
        return { alerts: await options.provider.active(context) };
      } catch (err) {
        failures++;
        if (Date.now() - reportedAt >= 60_000) {
          options.log.warn({ reason: (err as Error).message, key, failures }, "weather alerts unavailable (logged at most once a minute)");
          reportedAt = Date.now();
          failures = 0;
        }
        set.ttl = ALERTS_FAILURE_TTL_MS;
        return { alerts: null };
      }
    },
  });
  return {
    async get(key, point) {
      const now = options.now().getTime();
      const hit = await cache.fetch(key, { context: point });
      // An alert that expires while cached is dropped at once.
      return hit?.alerts?.filter((a) => Date.parse(a.expires) > now && (a.ends === null || Date.parse(a.ends) > now)) ?? null;
    },
  };
}
