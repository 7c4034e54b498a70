import { z } from "zod";
import type { AirQuality } from "../../core/weather/air-quality.ts";
import { getJson, SourceError } from "../http-json.ts";
import { matchLocations } from "./open-meteo.ts";

// Open-Meteo's air-quality API (no key; CC BY 4.0, credited like the forecast): the U.S. AQI now and
// each pollutant's sub-index, from which the dominant pollutant is the highest.

export interface AirQualityProvider {
  /** The current U.S. AQI, or null when the model has no value for the point. Rejects with SourceError. */
  current(point: { latitude: number; longitude: number }, signal?: AbortSignal): Promise<AirQuality | null>;
  /**
   * Many points in one request (comma-separated coordinates; the answer is a list in the same
   * order): one reading per point, null where the model has none or the answer lacks the point.
   * Rejects with SourceError (a 429's `reason` and `Retry-After` on it).
   */
  currentMany(points: Array<{ latitude: number; longitude: number }>, signal?: AbortSignal): Promise<Array<AirQuality | null>>;
}

export interface AirQualityOptions {
  /** `AIR_QUALITY_API_URL`, e.g. `https://air-quality-api.open-meteo.com`. */
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** `OPEN_METEO_API_KEY`: sent as `apikey` (a paid plan; its host is `AIR_QUALITY_API_URL`). */
  apiKey?: string;
}

const POLLUTANTS = ["pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide"] as const;
const CURRENT = ["us_aqi", ...POLLUTANTS.map((p) => `us_aqi_${p}`)];

const value = z.number().nullish();
const AirBody = z.object({
  current: z.object({ time: z.string(), us_aqi: value, ...Object.fromEntries(POLLUTANTS.map((p) => [`us_aqi_${p}`, value])) }).loose(),
}).loose();

export function airQualityUrl(baseUrl: string, point: { latitude: number; longitude: number }, apiKey?: string): URL {
  const url = new URL(`${baseUrl}/v1/air-quality`);
  url.search = new URLSearchParams({ latitude: String(point.latitude), longitude: String(point.longitude), current: CURRENT.join(","), timezone: "GMT", ...(apiKey ? { apikey: apiKey } : {}) }).toString();
  return url;
}

/** Several points in one request, commas left as they are (see forecastManyUrl). */
export function airQualityManyUrl(baseUrl: string, points: Array<{ latitude: number; longitude: number }>, apiKey?: string): string {
  const q = [
    `latitude=${points.map((p) => p.latitude).join(",")}`,
    `longitude=${points.map((p) => p.longitude).join(",")}`,
    `current=${CURRENT.join(",")}`,
    "timezone=GMT",
    ...(apiKey ? [`apikey=${encodeURIComponent(apiKey)}`] : []),
  ];
  return `${baseUrl}/v1/air-quality?${q.join("&")}`;
}

export function parseAirQuality(body: unknown): AirQuality | null {
  const parsed = AirBody.safeParse(body);
  if (!parsed.success) throw new SourceError("invalid", "Open-Meteo's air-quality answer was not readable");
  const c = parsed.data.current as Record<string, unknown> & { time: string; us_aqi?: number | null };
  if (c.us_aqi == null) return null;
  let dominant: AirQuality["dominant"] = null;
  let best = -1;
  for (const p of POLLUTANTS) {
    const v = c[`us_aqi_${p}`];
    if (typeof v === "number" && v > best) [dominant, best] = [p, v];
  }
  // `current.time` is GMT wall time without an offset (we ask for timezone=GMT).
  const asOf = /^\d{4}-\d\d-\d\dT\d\d:\d\d$/.test(c.time) ? `${c.time}:00Z` : c.time;
  return { usAqi: Math.round(c.us_aqi), dominant, asOf };
}

export function createAirQualityProvider(options: AirQualityOptions): AirQualityProvider {
  const { baseUrl, timeoutMs = 5000, fetch, apiKey } = options;
  return {
    async currentMany(points, signal) {
      const body = await getJson(airQualityManyUrl(baseUrl, points, apiKey), { name: "Open-Meteo air quality", timeoutMs, signal, fetch, headers: { Accept: "application/json" } });
      const list = Array.isArray(body) ? body : points.length === 1 ? [body] : null;
      if (!list) throw new SourceError("invalid", "Open-Meteo's air-quality answer to a multi-location request was not a list");
      const answers = matchLocations(list, points);
      return points.map((_, i) => {
        try {
          return answers[i] === undefined ? null : parseAirQuality(answers[i]);
        } catch {
          return null;
        }
      });
    },
    async current(point, signal) {
      const body = await getJson(airQualityUrl(baseUrl, point, apiKey), { name: "Open-Meteo air quality", timeoutMs, signal, fetch, headers: { Accept: "application/json" } });
      return parseAirQuality(body);
    },
  };
}
