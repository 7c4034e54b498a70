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
}

export interface OpenMeteoServer {
  /** Origin to use as `OPEN_METEO_URL`. */
  url: string;
  /** `/v1/forecast` requests received so far. */
  readonly calls: number;
  /** The query of each `/v1/forecast` request, in order. */
  readonly requests: URLSearchParams[];
  setMode(mode: OpenMeteoMode): void;
  /** Change any option; unspecified ones keep their value (pass `undefined` to clear one). */
  configure(options: OpenMeteoServerOptions): void;
  close(): Promise<void>;
}

export function loadFixture(name: string): RecordedForecast {
  return JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, `${name}.json`), "utf8")) as RecordedForecast;
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
  return o.transform ? o.transform(body) : body;
}

export async function startOpenMeteoServer(initial: OpenMeteoServerOptions = {}): Promise<OpenMeteoServer> {
  const options: OpenMeteoServerOptions = { mode: "ok", delayMs: 60_000, ...initial };
  const requests: URLSearchParams[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== "/v1/forecast") return json(404, { error: true, reason: "Not Found" });
    requests.push(url.searchParams);
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
        return res.end(text.slice(0, 40));
      }
      default:
        return json(200, forecastBody(url.searchParams, options));
    }
  });
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
    setMode(mode) {
      options.mode = mode;
    },
    configure(next) {
      Object.assign(options, next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
