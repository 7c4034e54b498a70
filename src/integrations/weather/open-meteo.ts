import { z } from "zod";
import { describeWeatherCode } from "../../core/weather/wmo.ts";
import { getJson, SourceError } from "../http-json.ts";
import type { DailyForecast, WeatherSnapshot } from "../../core/weather/snapshot.ts";
import type { WeatherLocation, WeatherProvider } from "./types.ts";

export interface OpenMeteoOptions {
  /** Origin of the forecast API, e.g. `https://api.open-meteo.com` (no trailing slash). */
  baseUrl: string;
  /** Whole-request budget (connect, headers and body); default 5 s. */
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  /** The clock that stamps `asOf`. */
  now?: () => Date;
  /** `OPEN_METEO_API_KEY`: sent as `apikey` on every request (a paid plan; its host is `OPEN_METEO_URL`). */
  apiKey?: string;
}

/** Why a forecast could not be had; the service logs `kind` and answers `weather_unavailable`. */
export class WeatherUpstreamError extends Error {
  readonly kind: "timeout" | "network" | "status" | "invalid";
  constructor(kind: WeatherUpstreamError["kind"], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WeatherUpstreamError";
    this.kind = kind;
  }
}

const CURRENT = ["temperature_2m", "weather_code", "wind_speed_10m"] as const;
const DAILY = ["weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_probability_max", "sunrise", "sunset"] as const;
/** Asked too, but optional in the answer: a forecast without it is still a forecast (the edition just says nothing of UV). */
const DAILY_OPTIONAL = ["uv_index_max"] as const;

const num = z.number();
const series = <T extends z.ZodType>(item: T) => z.array(item.nullable());

/**
 * The part of Open-Meteo's `/v1/forecast` response we read. Units are checked too: a forecast in
 * °C or km/h must never be served as °F or mph. Values far ahead may be null.
 */
const ForecastBody = z.object({
  timezone: z.string(),
  current_units: z.object({ temperature_2m: z.literal("°F"), wind_speed_10m: z.literal("mp/h") }),
  current: z.object({ time: z.string(), temperature_2m: num, weather_code: z.int(), wind_speed_10m: num.nullable() }),
  daily_units: z.object({ temperature_2m_max: z.literal("°F"), temperature_2m_min: z.literal("°F"), precipitation_probability_max: z.literal("%") }),
  daily: z.object({
    time: z.array(z.iso.date()).min(1),
    weather_code: series(z.int()),
    temperature_2m_max: series(num),
    temperature_2m_min: series(num),
    precipitation_probability_max: series(num),
    sunrise: series(z.string()),
    sunset: series(z.string()),
    uv_index_max: series(num).optional(),
  }),
}).superRefine((body, check) => {
  const n = body.daily.time.length;
  for (const key of [...DAILY, ...DAILY_OPTIONAL]) {
    const values = body.daily[key];
    if (values && values.length !== n) check.addIssue({ code: "custom", path: ["daily", key], message: `has ${values.length} values for ${n} days` });
  }
  for (const key of ["temperature_2m_max", "temperature_2m_min"] as const) {
    if (body.daily[key][0] == null) check.addIssue({ code: "custom", path: ["daily", key, 0], message: "today's value is missing" });
  }
});
type ForecastBody = z.infer<typeof ForecastBody>;

export function forecastUrl(baseUrl: string, location: WeatherLocation, apiKey?: string): URL {
  const url = new URL(`${baseUrl}/v1/forecast`);
  url.search = new URLSearchParams({
    ...(apiKey ? { apikey: apiKey } : {}),
    latitude: String(location.latitude),
    longitude: String(location.longitude),
    timezone: location.timezone,
    current: CURRENT.join(","),
    daily: [...DAILY, ...DAILY_OPTIONAL].join(","),
    temperature_unit: "fahrenheit",
    wind_speed_unit: "mph",
    forecast_days: "7",
  }).toString();
  return url;
}

/**
 * The answer's element for each location asked: by position when the list is as long as the
 * request, otherwise (a location missing from the answer) the element whose echoed coordinates are
 * nearest, within 0.2° (the API echoes its grid point, a few km off), or none.
 */
export function matchLocations(list: unknown[], locations: Array<{ latitude: number; longitude: number }>): unknown[] {
  if (list.length === locations.length) return list;
  // Each element goes to the location nearest its echoed point (one each), so a missing location is
  // left without rather than given its neighbour cell's answer.
  const out: unknown[] = Array.from({ length: locations.length });
  for (const item of list) {
    const { latitude, longitude } = (item ?? {}) as { latitude?: unknown; longitude?: unknown };
    if (typeof latitude !== "number" || typeof longitude !== "number") continue;
    let best = -1;
    let bestD = 0.2 ** 2;
    locations.forEach((l, i) => {
      const d = (latitude - l.latitude) ** 2 + (longitude - l.longitude) ** 2;
      if (d < bestD) [best, bestD] = [i, d];
    });
    if (best >= 0 && out[best] === undefined) out[best] = item;
  }
  return out;
}

/**
 * Several locations in one request: comma-separated `latitude` and `longitude` lists (commas left
 * as they are, so 200 locations fit in about 3 KB of URL), one timezone for all of them.
 */
export function forecastManyUrl(baseUrl: string, locations: Array<{ latitude: number; longitude: number }>, timezone: string, apiKey?: string): string {
  const q = [
    `latitude=${locations.map((l) => l.latitude).join(",")}`,
    `longitude=${locations.map((l) => l.longitude).join(",")}`,
    `timezone=${encodeURIComponent(timezone)}`,
    `current=${CURRENT.join(",")}`,
    `daily=${[...DAILY, ...DAILY_OPTIONAL].join(",")}`,
    "temperature_unit=fahrenheit",
    "wind_speed_unit=mph",
    "forecast_days=7",
    ...(apiKey ? [`apikey=${encodeURIComponent(apiKey)}`] : []),
  ];
  return `${baseUrl}/v1/forecast?${q.join("&")}`;
}

function toSnapshot(body: ForecastBody, location: WeatherLocation, asOf: Date): WeatherSnapshot {
  const d = body.daily;
  const daily: DailyForecast[] = [];
  for (const [i, date] of d.time.entries()) {
    const high = d.temperature_2m_max[i];
    const low = d.temperature_2m_min[i];
    const code = d.weather_code[i];
    // Days the model does not reach yet come back null; the list stops at the first incomplete one.
    if (high == null || low == null || code == null) break;
    const sunrise = d.sunrise[i];
    const sunset = d.sunset[i];
    const uv = d.uv_index_max?.[i];
    daily.push({
      date, high, low, code,
      precipitationChance: d.precipitation_probability_max[i] ?? null,
      ...(sunrise ? { sunrise } : {}),
      ...(sunset ? { sunset } : {}),
      ...(uv != null ? { uvIndexMax: uv } : {}),
    });
  }
  // The condition is the one now (like `current`); each day's own code is in `daily`.
  const code = body.current.weather_code;
  const { condition, emoji } = describeWeatherCode(code);
  return {
    today: {
      high: d.temperature_2m_max[0]!,
      low: d.temperature_2m_min[0]!,
      current: body.current.temperature_2m,
      code, condition, emoji,
      precipitationChance: d.precipitation_probability_max[0] ?? null,
      windSpeed: body.current.wind_speed_10m,
      ...(d.uv_index_max?.[0] != null ? { uvIndexMax: d.uv_index_max[0] } : {}),
      // The city's own coordinates (Open-Meteo echoes its grid cell, a few hundred metres off).
      latitude: location.latitude,
      longitude: location.longitude,
      timezone: location.timezone,
      asOf: asOf.toISOString(),
    },
    daily,
  };
}

/** Open-Meteo's forecast API (no key). Every call is bounded by `timeoutMs`, body included. */
export function createOpenMeteoProvider(options: OpenMeteoOptions): WeatherProvider {
  const { baseUrl, timeoutMs = 5000, fetch = globalThis.fetch, now = () => new Date(), apiKey } = options;
  return {
    async forecastMany(locations, timezone, opts) {
      const url = forecastManyUrl(baseUrl, locations, timezone, apiKey);
      const body = await getJson(url, { name: "Open-Meteo", timeoutMs, signal: opts?.signal, fetch, headers: { Accept: "application/json" } });
      // One location answers an object, several an array in the order asked.
      const list = Array.isArray(body) ? body : locations.length === 1 ? [body] : null;
      if (!list) throw new SourceError("invalid", "Open-Meteo's answer to a multi-location request was not a list");
      const asOf = now();
      const answers = matchLocations(list, locations);
      return locations.map((location, i) => {
        const parsed = ForecastBody.safeParse(answers[i]);
        return parsed.success ? toSnapshot(parsed.data, { ...location, timezone }, asOf) : null;
      });
    },
    async forecast(location, opts) {
      const url = forecastUrl(baseUrl, location, apiKey);
      opts?.signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = opts?.signal ? AbortSignal.any([timeout, opts.signal]) : timeout;
      let res: Response;
      let text: string;
      try {
        res = await fetch(url, { signal, headers: { Accept: "application/json" } });
        text = await res.text(); // under the same signal: a body that trickles in is cut off too
      } catch (err) {
        if (opts?.signal?.aborted) throw opts.signal.reason;
        if (signal.aborted) throw new WeatherUpstreamError("timeout", `Open-Meteo did not answer within ${timeoutMs} ms`, { cause: err });
        // fetch's own message is only "fetch failed"; the reason (ENOTFOUND, ECONNREFUSED...) is its cause.
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (err as Error).message;
        throw new WeatherUpstreamError("network", `Open-Meteo could not be reached (${why})`, { cause: err });
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        payload = undefined;
      }
      if (!res.ok) {
        // Open-Meteo explains its 4xx/5xx as {"error": true, "reason": "..."}.
        const reason = (payload as { reason?: unknown } | undefined)?.reason;
        throw new WeatherUpstreamError("status", `Open-Meteo answered ${res.status}${typeof reason === "string" ? `: ${reason.slice(0, 200)}` : ""}`);
      }
      const parsed = ForecastBody.safeParse(payload);
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const why = payload === undefined ? "not JSON" : `${first?.path.join(".") || "body"}: ${first?.message}`;
        throw new WeatherUpstreamError("invalid", `Open-Meteo's response was not a usable forecast (${why})`);
      }
      return toSnapshot(parsed.data, location, now());
    },
  };
}
