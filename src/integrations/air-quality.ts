import { z } from "zod";
import type { AirQuality } from "../core/town-sources.ts";
import { getJson, SourceError } from "./http-json.ts";

// Open-Meteo's air-quality API (no key; CC BY 4.0, credited like the forecast): the U.S. AQI now and
// each pollutant's sub-index, from which the dominant pollutant is the highest.

export interface AirQualityProvider {
  /** The current U.S. AQI, or null when the model has no value for the point. Rejects with SourceError. */
  current(point: { latitude: number; longitude: number }, signal?: AbortSignal): Promise<AirQuality | null>;
}

export interface AirQualityOptions {
  /** `AIR_QUALITY_API_URL`, e.g. `https://air-quality-api.open-meteo.com`. */
  baseUrl: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

const POLLUTANTS = ["pm2_5", "pm10", "ozone", "nitrogen_dioxide", "sulphur_dioxide", "carbon_monoxide"] as const;
const CURRENT = ["us_aqi", ...POLLUTANTS.map((p) => `us_aqi_${p}`)];

const value = z.number().nullish();
const AirBody = z.object({
  current: z.object({ time: z.string(), us_aqi: value, ...Object.fromEntries(POLLUTANTS.map((p) => [`us_aqi_${p}`, value])) }).loose(),
}).loose();

export function airQualityUrl(baseUrl: string, point: { latitude: number; longitude: number }): URL {
  const url = new URL(`${baseUrl}/v1/air-quality`);
  url.search = new URLSearchParams({ latitude: String(point.latitude), longitude: String(point.longitude), current: CURRENT.join(","), timezone: "GMT" }).toString();
  return url;
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
  const { baseUrl, timeoutMs = 5000, fetch } = options;
  return {
    async current(point, signal) {
      const body = await getJson(airQualityUrl(baseUrl, point), { name: "Open-Meteo air quality", timeoutMs, signal, fetch, headers: { Accept: "application/json" } });
      return parseAirQuality(body);
    },
  };
}
