import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

/**
 * A stand-in for api.open-meteo.com on 127.0.0.1 that answers `/v1/forecast` with recorded
 * responses from test/fixtures/open-meteo. Point the app at it with `OPEN_METEO_URL: server.url`.
 *
 * Modes:
 * - `ok`: 200 with the recorded forecast nearest the requested coordinates (or `fixture`), with the
 *   requested coordinates and timezone echoed back like the real API does.
 * - `slow`: answers nothing for `delayMs` (default 60 s), longer than any client timeout.
 * - `stall`: sends 200 headers and half the body, then nothing more.
 * - `error`: 500 with Open-Meteo's error body. `bad-request`: 400 with it.
 * - `truncated`: 200 with a body cut short (not JSON).
 *
 * Like the real API, comma-separated `latitude`/`longitude` lists answer a JSON array of per-location
 * objects in the same order (one location: an object). `freeTier` enforces Open-Meteo's free limits,
 * counted per location in fixed minute/hour/day windows, answering 429 with its real reasons;
 * `latencyMs` delays every answer; `omit` leaves chosen locations out of a multi-location answer.
 */
export type OpenMeteoMode = "ok" | "slow" | "stall" | "error" | "bad-request" | "truncated";

export const FIXTURE_DIR = path.resolve(import.meta.dirname, "../fixtures/open-meteo");

/** A recorded `/v1/forecast` response (only the fields tests commonly touch are typed). */
export interface RecordedForecast {
  latitude: number;
  longitude: number;
  timezone: string;
  current: { time: string; temperature_2m: number; weather_code: number; wind_speed_10m: number | null; [k: string]: unknown };
  daily: { time: string[]; weather_code: Array<number | null>; sunrise: Array<string | null>; sunset: Array<string | null>; [k: string]: unknown[] };
  [k: string]: unknown;
}

export interface OpenMeteoServerOptions {
  mode?: OpenMeteoMode;
  /** Always answer with this fixture (file name without `.json`) instead of the nearest one. */
  fixture?: string;
  /** Replace today's and the current weather code (to walk through every WMO code). */
  weatherCode?: number;
  /** Shift every date so the forecast starts on this local date (YYYY-MM-DD). */
  today?: string;
  /** How long `slow` keeps the caller waiting, in ms. */
  delayMs?: number;
  /** Last-minute edit of the body sent in `ok` mode (e.g. to change units). */
  transform?: (body: RecordedForecast) => unknown;
  /** Every answer waits this long (ms) first, like a provider across the country. */
  latencyMs?: number;
  /** Locations per window before a 429 (the free tier: 600 a minute, 5,000 an hour, 10,000 a day). */
  freeTier?: { perMinute?: number; perHour?: number; perDay?: number };
  /** Leave this location out of a multi-location answer (the array is shorter). */
  omit?: (latitude: number, longitude: number) => boolean;
  /** Answers `/v1/air-quality` too (same limits and latency), from this reading. */
  airQuality?: { usAqi: number; pm2_5?: number; ozone?: number } | null;
}

/** Open-Meteo's 429 reasons, as its API words them. */
export const RATE_LIMIT_REASONS = {
  minute: "Minutely API request limit exceeded. Please try again in one minute.",
  hour: "Hourly API request limit exceeded. Please try again in the next hour.",
  day: "Daily API request limit exceeded. Please try again tomorrow.",
} as const;

/** One request as the stand-in saw it. */
export interface MeteoRequestLog {
  path: string;
  at: number;
  status: number;
  locations: number;
  apikey: string | null;
}

export interface OpenMeteoServer {
  /** Origin to use as `OPEN_METEO_URL`. */
  url: string;
  /** `/v1/forecast` requests received so far. */
  readonly calls: number;
  /** The query of each `/v1/forecast` request, in order. */
  readonly requests: URLSearchParams[];
  /** Every request (forecast and air quality), with its time, status and number of locations. */
  readonly log: MeteoRequestLog[];
  setMode(mode: OpenMeteoMode): void;
  /** Change any option; unspecified ones keep their value (pass `undefined` to clear one). */
  configure(options: OpenMeteoServerOptions): void;
  close(): Promise<void>;
}

const fixtureText = new Map<string, string>();

export function loadFixture(name: string): RecordedForecast {
  let text = fixtureText.get(name);
  if (text === undefined) fixtureText.set(name, (text = fs.readFileSync(path.join(FIXTURE_DIR, `${name}.json`), "utf8")));
  return JSON.parse(text) as RecordedForecast;
}

const FORECASTS = fs.readdirSync(FIXTURE_DIR).filter((f) => f.startsWith("forecast-")).map((f) => f.replace(/\.json$/, ""));

function nearestFixture(lat: number, lon: number): string {
  let best = FORECASTS[0]!;
  let bestD = Infinity;
  for (const name of FORECASTS) {
    const f = loadFixture(name);
    const d = (f.latitude - lat) ** 2 + (f.longitude - lon) ** 2;
    if (d < bestD) [best, bestD] = [name, d];
  }
  return best;
}

/** Adds `days` to the date part of `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`. */
function shiftDate(value: string, days: number): string {
  const date = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10) + value.slice(10);
}

function forecastBody(query: URLSearchParams, o: OpenMeteoServerOptions): unknown {
  const lat = Number(query.get("latitude"));
  const lon = Number(query.get("longitude"));
  const body = loadFixture(o.fixture ?? nearestFixture(lat, lon));
  // The real API snaps to its grid; two decimals is close enough for a stand-in.
  if (Number.isFinite(lat)) body.latitude = Math.round(lat * 100) / 100;
  if (Number.isFinite(lon)) body.longitude = Math.round(lon * 100) / 100;
  body.timezone = query.get("timezone") ?? body.timezone;
  if (o.weatherCode !== undefined) {
    body.current.weather_code = o.weatherCode;
    body.daily.weather_code[0] = o.weatherCode;
  }
  if (o.today) {
    const days = Math.round((Date.parse(o.today) - Date.parse(body.daily.time[0]!)) / 86_400_000);
    const shift = (v: string | null) => (v === null ? v : shiftDate(v, days));
    body.current.time = shiftDate(body.current.time, days);
    body.daily.time = body.daily.time.map((v) => shiftDate(v, days));
    body.daily.sunrise = body.daily.sunrise.map(shift);
    body.daily.sunset = body.daily.sunset.map(shift);
  }
  // Recorded before the morning asked for it: a plausible November UV index per day.
  if ((query.get("daily") ?? "").split(",").includes("uv_index_max") && !body.daily.uv_index_max) {
    body.daily.uv_index_max = body.daily.time.map((_, i) => 2 + (i % 3) * 0.5);
    (body.daily_units as Record<string, string> | undefined ?? {}).uv_index_max = "";
  }
  return o.transform ? o.transform(body) : body;
}

/** The per-location queries of a request whose `latitude`/`longitude` may be comma-separated lists. */
function locationQueries(query: URLSearchParams): URLSearchParams[] {
  const lats = (query.get("latitude") ?? "").split(",");
  const lons = (query.get("longitude") ?? "").split(",");
  const zones = (query.get("timezone") ?? "").split(",");
  return lats.map((lat, i) => {
    const q = new URLSearchParams(query);
    q.set("latitude", lat);
    q.set("longitude", lons[i] ?? "");
    if (zones.length > 1) q.set("timezone", zones[i] ?? zones[0]!);
    return q;
  });
}

/** The U.S. AQI answer for one location, as /v1/air-quality sends it. */
function airBody(reading: OpenMeteoServerOptions["airQuality"], query: URLSearchParams) {
  const asked = (query.get("current") ?? "us_aqi").split(",");
  const current: Record<string, number | string | null> = { time: "2026-11-24T12:00", interval: 3600 };
  for (const key of asked) current[key] = key === "us_aqi" ? (reading?.usAqi ?? null) : reading ? ((reading as Record<string, number | undefined>)[key.replace(/^us_aqi_/, "")] ?? 0) : null;
  return {
    latitude: Math.round(Number(query.get("latitude")) * 10) / 10, longitude: Math.round(Number(query.get("longitude")) * 10) / 10,
    generationtime_ms: 0.1, utc_offset_seconds: 0, timezone: "GMT", timezone_abbreviation: "GMT", elevation: 100,
    current_units: Object.fromEntries(asked.map((k) => [k, "USAQI"])), current,
  };
}

export async function startOpenMeteoServer(initial: OpenMeteoServerOptions = {}): Promise<OpenMeteoServer> {
  const options: OpenMeteoServerOptions = { mode: "ok", delayMs: 60_000, ...initial };
  const requests: URLSearchParams[] = [];
  const log: MeteoRequestLog[] = [];
  const timers = new Set<NodeJS.Timeout>();
  // Locations counted per fixed window (the window's number as key).
  const used = { minute: new Map<number, number>(), hour: new Map<number, number>(), day: new Map<number, number>() };
  const WINDOW_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

  /** The longest window this request would exceed, or undefined (then its locations are counted). */
  function overLimit(locations: number, at: number): keyof typeof RATE_LIMIT_REASONS | undefined {
    const t = options.freeTier;
    if (!t) return undefined;
    const limits = { day: t.perDay, hour: t.perHour, minute: t.perMinute };
    for (const w of ["day", "hour", "minute"] as const) {
      const limit = limits[w];
      if (limit !== undefined && (used[w].get(Math.floor(at / WINDOW_MS[w])) ?? 0) + locations > limit) return w;
    }
    for (const w of ["day", "hour", "minute"] as const) {
      const k = Math.floor(at / WINDOW_MS[w]);
      used[w].set(k, (used[w].get(k) ?? 0) + locations);
    }
    return undefined;
  }

  // Counted and logged as each request arrives, like a server counting calls at receipt; answered after the latency.
  const admitted = new WeakMap<http.IncomingMessage, { entry: MeteoRequestLog; limited: keyof typeof RATE_LIMIT_REASONS | undefined }>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/v1/forecast" || (url.pathname === "/v1/air-quality" && options.airQuality !== undefined)) {
      const at = Date.now();
      const locations = locationQueries(url.searchParams).length;
      const entry: MeteoRequestLog = { path: url.pathname, at, status: 200, locations, apikey: url.searchParams.get("apikey") };
      log.push(entry);
      admitted.set(req, { entry, limited: overLimit(locations, at) });
    }
    if (options.latencyMs) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) answer(req, res);
      }, options.latencyMs);
      timers.add(timer);
      return;
    }
    answer(req, res);
  });
  function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== "/v1/forecast" && !(url.pathname === "/v1/air-quality" && options.airQuality !== undefined)) return json(404, { error: true, reason: "Not Found" });
    const queries = locationQueries(url.searchParams);
    const { entry, limited } = admitted.get(req)!;
    if (limited) {
      entry.status = 429;
      return json(429, { error: true, reason: RATE_LIMIT_REASONS[limited] });
    }
    if (url.pathname === "/v1/air-quality") {
      const bodies = queries.map((q) => airBody(options.airQuality, q));
      return json(200, bodies.length === 1 ? bodies[0] : bodies);
    }
    requests.push(url.searchParams);
    if (queries.length > 1 && options.mode === "ok") {
      const kept = queries.filter((q) => !options.omit?.(Number(q.get("latitude")), Number(q.get("longitude"))));
      return json(200, kept.map((q) => forecastBody(q, options)));
    }
    switch (options.mode) {
      case "slow": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) json(200, forecastBody(url.searchParams, options));
        }, options.delayMs);
        timers.add(timer);
        res.on("close", () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case "stall": {
        const text = JSON.stringify(forecastBody(url.searchParams, options));
        res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(text)) });
        res.write(text.slice(0, text.length >> 1));
        return; // the rest never comes
      }
      case "error":
        return json(500, JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, "error-500.json"), "utf8")));
      case "bad-request":
        return json(400, JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, "error-400.json"), "utf8")));
      case "truncated": {
        const text = JSON.stringify(forecastBody(url.searchParams, options));
        res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
        res.end(text.slice(0, 40));
        return;
      }
      default:
        return json(200, forecastBody(url.searchParams, options));
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    get calls() {
      return requests.length;
    },
    requests,
    log,
    setMode(mode) {
      options.mode = mode;
    },
    configure(next) {
      Object.assign(options, next);
      // New limits start with empty windows.
      if ("freeTier" in next) for (const w of Object.values(used)) w.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
