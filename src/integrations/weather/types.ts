import type { WeatherSnapshot } from "../../core/weather/snapshot.ts";

// A provider answers with the domain's snapshot (src/core/weather/snapshot.ts).

export interface WeatherLocation {
  latitude: number;
  longitude: number;
  timezone: string;
}

/** The weather provider (Open-Meteo in production, a recorded-response server in tests). */
export interface WeatherProvider {
  /**
   * Rejects on upstream error or timeout; never hangs past its own timeout. `signal` aborts it sooner
   * (the morning run stopping on SIGTERM): it then rejects with the signal's reason.
   */
  forecast(location: WeatherLocation, options?: { signal?: AbortSignal }): Promise<WeatherSnapshot>;
  /**
   * Many locations in one request (the morning's, services/sources/run-sources.ts), all in `timezone`: one
   * snapshot per location in the same order, null for one the answer lacks or got wrong. Rejects
   * with a SourceError (a 429's `reason` and `Retry-After` on it).
   */
  forecastMany(locations: Array<{ latitude: number; longitude: number }>, timezone: string, options?: { signal?: AbortSignal }): Promise<Array<WeatherSnapshot | null>>;
}
