import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";

/**
 * One local stand-in for every public source a town's edition draws on, answering in each provider's
 * real format, scriptable per test:
 *
 * - `GET /alerts/active?point={lat},{lon}`: api.weather.gov's active alerts (GeoJSON FeatureCollection,
 *   `application/geo+json`). `setAlerts(features)` chooses them (build with `nwsAlert`). Without
 *   `point` (`?status=actual`): the whole country's, with an ETag and Last-Modified, 304 to a
 *   matching conditional request.
 * - `GET /points/{lat},{lon}`: the point's forecast zone, fire-weather zone and county, as NWS
 *   answers them (`setPointZones(fn)`).
 * - `GET /v1/air-quality?latitude=..&longitude=..&current=us_aqi,...`: air-quality-api.open-meteo.com.
 *   `setAirQuality(aqi)` chooses the readings (build with `airQualityBody`); comma-separated
 *   coordinates answer an array in the same order.
 * - any other path: a feed registered with `setFeed(path, {...})` (iCalendar, RSS, Atom, or anything).
 *
 * Every path can be put in a mode with `setMode(path, mode)` (`/alerts/active` and `/v1/air-quality`
 * included): `ok`, `slow` (nothing for `delayMs`), `stall` (headers and half the body, then nothing),
 * `oversize` (a valid start followed by `oversizeBytes` of padding), `invalid` (200 with a body that is
 * not the format), `error` (503), `not-found` (404), `redirect` (302 to `redirectTo`).
 * Feeds registered with an `etag` and/or `lastModified` answer 304 to a matching conditional request.
 */
export type SourceMode = "ok" | "slow" | "stall" | "oversize" | "invalid" | "error" | "not-found" | "redirect";

export interface FeedSpec {
  /** Text (sent as UTF-8), or bytes as they are (another charset, say). */
  body: string | Buffer;
  contentType?: string;
  etag?: string;
  lastModified?: string;
  /** Sent gzip-compressed with `Content-Encoding: gzip`. */
  gzip?: boolean;
}

export interface RecordedRequest {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface TownSourcesServer {
  /** Origin, e.g. `http://127.0.0.1:40123` (use as NWS_API_URL, AIR_QUALITY_API_URL, and as feed base). */
  url: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Requests received for one path. */
  callsTo(path: string): number;
  /** The most requests this server has had open at once (reset with `resetInFlight`). */
  readonly maxInFlight: number;
  resetInFlight(): void;
  setAlerts(features: NwsFeature[]): void;
  /** What `?point=` answers, when it should differ from the national list (default: every alert set). */
  setPointAlerts(fn: ((latitude: number, longitude: number) => NwsFeature[]) | undefined): void;
  /** The zones `/points/{lat},{lon}` answers for a point (null: 404, as NWS answers outside its area). */
  setPointZones(zones: (latitude: number, longitude: number) => { forecastZone: string; fireZone?: string; county: string } | null): void;
  /** Every answer waits this long (ms) first. */
  setLatency(ms: number): void;
  /** `null`: Open-Meteo's answer for a place without data (all values null). */
  setAirQuality(reading: AirQualityReading | null): void;
  setFeed(path: string, spec: FeedSpec): void;
  setMode(path: string, mode: SourceMode, options?: { delayMs?: number; oversizeBytes?: number; redirectTo?: string }): void;
  close(): Promise<void>;
}

// --- NWS ------------------------------------------------------------------------------------------

export interface NwsAlertInput {
  /** Defaults to a made-up CAP OID. */
  id?: string;
  event: string;
  severity?: "Extreme" | "Severe" | "Moderate" | "Minor" | "Unknown";
  urgency?: string;
  certainty?: string;
  headline?: string | null;
  description?: string;
  instruction?: string | null;
  sent?: string;
  effective?: string;
  onset?: string | null;
  expires: string;
  ends?: string | null;
  senderName?: string;
  areaDesc?: string;
  status?: "Actual" | "Exercise" | "System" | "Test" | "Draft";
  messageType?: "Alert" | "Update" | "Cancel";
  /** Ids of earlier alerts this one updates. */
  references?: string[];
  /** Zones and counties (`NVZ036`, `NVC033`); default White Pine's zone. */
  ugc?: string[];
  /** SAME county codes; default White Pine's `032033`. */
  same?: string[];
  /** A storm-based alert's polygon (`[lon, lat]` ring); default none. */
  polygon?: Array<[number, number]>;
}

export type NwsFeature = ReturnType<typeof nwsAlert>;

let alertSerial = 0;

/** One alert as api.weather.gov sends it inside `features`. */
export function nwsAlert(input: NwsAlertInput) {
  const id = input.id ?? `urn:oid:2.49.0.1.840.0.${(++alertSerial).toString(16).padStart(40, "0")}.001.1`;
  const sent = input.sent ?? new Date(Date.parse(input.expires) - 12 * 3_600_000).toISOString().replace(".000Z", "+00:00");
  return {
    id: `https://api.weather.gov/alerts/${id}`,
    type: "Feature" as const,
    geometry: input.polygon ? { type: "Polygon" as const, coordinates: [input.polygon] } : null,
    properties: {
      "@id": `https://api.weather.gov/alerts/${id}`,
      "@type": "wx:Alert",
      id,
      areaDesc: input.areaDesc ?? "White Pine",
      geocode: { SAME: input.same ?? ["032033"], UGC: input.ugc ?? ["NVZ036"] },
      affectedZones: (input.ugc ?? ["NVZ036"]).map((c) => `https://api.weather.gov/zones/${c[2] === "C" ? "county" : "forecast"}/${c}`),
      references: (input.references ?? []).map((r) => ({ "@id": `https://api.weather.gov/alerts/${r}`, identifier: r, sender: "w-nws.webmaster@noaa.gov", sent })),
      sent,
      effective: input.effective ?? sent,
      onset: input.onset === undefined ? sent : input.onset,
      expires: input.expires,
      ends: input.ends === undefined ? null : input.ends,
      status: input.status ?? "Actual",
      messageType: input.messageType ?? "Alert",
      category: "Met",
      severity: input.severity ?? "Moderate",
      certainty: input.certainty ?? "Likely",
      urgency: input.urgency ?? "Expected",
      event: input.event,
      sender: "w-nws.webmaster@noaa.gov",
      senderName: input.senderName ?? "NWS Elko NV",
      headline: input.headline === undefined ? `${input.event} issued by ${input.senderName ?? "NWS Elko NV"}` : input.headline,
      description: input.description ?? `* WHAT...${input.event}.\n\n* WHERE...White Pine County.`,
      instruction: input.instruction === undefined ? null : input.instruction,
      response: "Prepare",
      parameters: { AWIPSidentifier: ["WSWLKN"], NWSheadline: [input.headline ?? input.event], BLOCKCHANNEL: ["EAS", "NWEM", "CMAS"] },
    },
  };
}

function nwsCollection(features: NwsFeature[], point: string | null) {
  const [lat, lon] = (point ?? "0,0").split(",").map(Number);
  if (point === null) {
    return {
      "@context": ["https://geojson.org/geojson-ld/geojson-context.jsonld", { "@version": "1.1", wx: "https://api.weather.gov/ontology#", "@vocab": "https://api.weather.gov/ontology#" }],
      type: "FeatureCollection",
      features,
      title: "Current watches, warnings, and advisories",
      updated: new Date().toISOString().replace(/\.\d+Z$/, "+00:00"),
    };
  }
  return {
    "@context": ["https://geojson.org/geojson-ld/geojson-context.jsonld", { "@version": "1.1", wx: "https://api.weather.gov/ontology#", "@vocab": "https://api.weather.gov/ontology#" }],
    type: "FeatureCollection",
    features,
    title: `Current watches, warnings, and advisories for ${Math.abs(lat!)} ${lat! >= 0 ? "N" : "S"}, ${Math.abs(lon!)} ${lon! >= 0 ? "E" : "W"}`,
    updated: new Date().toISOString().replace(/\.\d+Z$/, "+00:00"),
  };
}

// --- Open-Meteo air quality -----------------------------------------------------------------------

export interface AirQualityReading {
  usAqi: number;
  pm2_5?: number;
  pm10?: number;
  ozone?: number;
  nitrogen_dioxide?: number;
  sulphur_dioxide?: number;
  carbon_monoxide?: number;
  /** `YYYY-MM-DDTHH:mm` in GMT, as Open-Meteo sends `current.time` without a timezone parameter. */
  time?: string;
}

const AQI_PARTS = ["pm2_5", "pm10", "nitrogen_dioxide", "carbon_monoxide", "ozone", "sulphur_dioxide"] as const;

/** The body of `/v1/air-quality` for `current=us_aqi,us_aqi_pm2_5,...`, as Open-Meteo sends it. */
export function airQualityBody(reading: AirQualityReading | null, query: URLSearchParams) {
  const current: Record<string, number | string | null> = { time: reading?.time ?? "2026-11-24T12:00", interval: 3600 };
  const units: Record<string, string> = { time: "iso8601", interval: "seconds" };
  const asked = (query.get("current") ?? "us_aqi").split(",");
  for (const key of asked) {
    units[key] = "USAQI";
    if (key === "us_aqi") current[key] = reading?.usAqi ?? null;
    else {
      const part = key.replace(/^us_aqi_/, "") as (typeof AQI_PARTS)[number];
      current[key] = reading ? (reading[part] ?? 0) : null;
    }
  }
  return {
    latitude: Math.round(Number(query.get("latitude")) * 10) / 10,
    longitude: Math.round(Number(query.get("longitude")) * 10) / 10,
    generationtime_ms: 0.123,
    utc_offset_seconds: 0,
    timezone: "GMT",
    timezone_abbreviation: "GMT",
    elevation: 1950,
    current_units: units,
    current,
  };
}

// --- iCalendar ------------------------------------------------------------------------------------

/**
 * A library's calendar as such feeds look: a `VTIMEZONE` for America/Los_Angeles, a weekly story
 * time (`RRULE:FREQ=WEEKLY;BYDAY=TU`) with one week cancelled (`EXDATE`), an all-day book sale and a
 * one-off evening talk. `weekStart` is the Tuesday the story time starts (YYYY-MM-DD).
 */
export function libraryCalendar(options: { name?: string; weekStart?: string; uidSuffix?: string } = {}): string {
  const name = options.name ?? "White Pine County Library";
  const start = (options.weekStart ?? "2026-11-17").replaceAll("-", "");
  const plus = (days: number) => {
    const d = new Date(`${options.weekStart ?? "2026-11-17"}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + days);
    return d.toISOString().slice(0, 10).replaceAll("-", "");
  };
  const u = options.uidSuffix ?? "wpcl.example.org";
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Example Library//Events//EN",
    "CALSCALE:GREGORIAN",
    `X-WR-CALNAME:${name}`,
    "X-WR-TIMEZONE:America/Los_Angeles",
    "BEGIN:VTIMEZONE",
    "TZID:America/Los_Angeles",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:-0800",
    "TZOFFSETTO:-0700",
    "TZNAME:PDT",
    "DTSTART:19700308T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:-0700",
    "TZOFFSETTO:-0800",
    "TZNAME:PST",
    "DTSTART:19701101T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
    "BEGIN:VEVENT",
    `UID:storytime@${u}`,
    "DTSTAMP:20261101T120000Z",
    `DTSTART;TZID=America/Los_Angeles:${start}T103000`,
    `DTEND;TZID=America/Los_Angeles:${start}T113000`,
    "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=10",
    `EXDATE;TZID=America/Los_Angeles:${plus(14)}T103000`,
    "SUMMARY:Story Time for Little Ones",
    "DESCRIPTION:Songs\\, rhymes and picture books for ages 2-5.",
    "LOCATION:White Pine County Library\\, 950 Campton St",
    "URL:https://library.example.org/storytime",
    "END:VEVENT",
    "BEGIN:VEVENT",
    `UID:booksale@${u}`,
    "DTSTAMP:20261101T120000Z",
    `DTSTART;VALUE=DATE:${plus(11)}`,
    `DTEND;VALUE=DATE:${plus(12)}`,
    "SUMMARY:Friends of the Library Book Sale",
    "LOCATION:Library Meeting Room",
    "END:VEVENT",
    "BEGIN:VEVENT",
    `UID:talk@${u}`,
    "DTSTAMP:20261101T120000Z",
    `DTSTART:${plus(9)}T023000Z`,
    `DTEND:${plus(9)}T033000Z`,
    "SUMMARY:Author Talk: <b>Great Basin</b> Nights",
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

// --- RSS and Atom ---------------------------------------------------------------------------------

export interface FeedItemInput {
  title: string;
  link: string;
  id?: string;
  /** ISO 8601. */
  published?: string;
  summary?: string;
}

const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** An RSS 2.0 channel as a local paper's CMS writes it. */
export function rssFeed(title: string, items: FeedItemInput[], link = "https://times.example.org/"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
<title>${xml(title)}</title>
<link>${xml(link)}</link>
<description>News from ${xml(title)}</description>
<language>en-us</language>
${items.map((i) => `<item>
<title>${xml(i.title)}</title>
<link>${xml(i.link)}</link>
<guid isPermaLink="${i.id ? "false" : "true"}">${xml(i.id ?? i.link)}</guid>
${i.published ? `<pubDate>${new Date(i.published).toUTCString()}</pubDate>` : ""}
<description><![CDATA[${i.summary ?? "<p>The full story.</p>"}]]></description>
</item>`).join("\n")}
</channel>
</rss>
`;
}

/** An Atom 1.0 feed as a city's news-release page publishes it. */
export function atomFeed(title: string, items: FeedItemInput[], link = "https://city.example.gov/news"): string {
  const updated = items.map((i) => i.published).filter(Boolean).sort().at(-1) ?? "2026-11-20T00:00:00Z";
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
<title type="text">${xml(title)}</title>
<link href="${xml(link)}" rel="alternate"/>
<id>${xml(link)}</id>
<updated>${updated}</updated>
${items.map((i) => `<entry>
<title type="html">${xml(i.title)}</title>
<link href="${xml(i.link)}" rel="alternate"/>
<id>${xml(i.id ?? i.link)}</id>
<updated>${i.published ?? updated}</updated>
${i.published ? `<published>${i.published}</published>` : ""}
<summary type="html">${xml(i.summary ?? "<p>The full release.</p>")}</summary>
</entry>`).join("\n")}
</feed>
`;
}

// --- the server -----------------------------------------------------------------------------------

interface PathMode {
  mode: SourceMode;
  delayMs: number;
  oversizeBytes: number;
  redirectTo?: string;
}

export async function startTownSourcesServer(): Promise<TownSourcesServer> {
  const requests: RecordedRequest[] = [];
  const feeds = new Map<string, FeedSpec>();
  const modes = new Map<string, PathMode>();
  const timers = new Set<NodeJS.Timeout>();
  let alerts: NwsFeature[] = [];
  // The national answer's validators change whenever the alerts do.
  let alertsVersion = 1;
  let alertsModified = new Date().toUTCString();
  let air: AirQualityReading | null = { usAqi: 42, pm2_5: 42, pm10: 12, ozone: 30 };
  let pointZones: Parameters<TownSourcesServer["setPointZones"]>[0] = () => ({ forecastZone: "NVZ036", fireZone: "NVZ467", county: "NVC033" });
  let latencyMs = 0;
  let pointAlerts: ((latitude: number, longitude: number) => NwsFeature[]) | undefined;

  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push({ path: url.pathname, query: url.searchParams, headers: req.headers });
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on("close", () => inFlight--);
    if (latencyMs > 0) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!res.destroyed) answer(req, res, url);
      }, latencyMs);
      timers.add(timer);
      return;
    }
    answer(req, res, url);
  });
  function answer(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
    const pointsPath = /^\/points\/(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(url.pathname);
    const m = modes.get(url.pathname) ?? { mode: "ok", delayMs: 60_000, oversizeBytes: 3 * 1024 * 1024 };

    // Answers that need no body of the path's own: any path can be put in these modes.
    if (m.mode === "redirect") {
      res.writeHead(302, { Location: m.redirectTo ?? "/" });
      return void res.end();
    }
    if (m.mode === "error") {
      res.writeHead(503, { "Content-Type": "text/html", "Retry-After": "60" });
      return void res.end("<h1>Service Unavailable</h1>");
    }
    if (m.mode === "not-found") {
      res.writeHead(404, { "Content-Type": "text/html" });
      return void res.end("<h1>Not Found</h1>");
    }

    const status = 200;
    let type: string;
    let body: string | Buffer;
    const headers: Record<string, string> = {};
    if (url.pathname === "/alerts/active" && !url.searchParams.has("point")) {
      // The whole country: conditional on the validators of the last answer.
      type = "application/geo+json";
      headers.ETag = `"alerts-${alertsVersion}"`;
      headers["Last-Modified"] = alertsModified;
      if (m.mode === "ok" && (req.headers["if-none-match"] === headers.ETag || (!req.headers["if-none-match"] && req.headers["if-modified-since"] === alertsModified))) {
        res.writeHead(304, headers);
        return void res.end();
      }
      const actual = url.searchParams.get("status") === "actual" ? alerts.filter((a) => a.properties.status === "Actual") : alerts;
      body = JSON.stringify(nwsCollection(actual, null));
    } else if (pointsPath) {
      const z = pointZones(Number(pointsPath[1]), Number(pointsPath[2]));
      if (!z) {
        res.writeHead(404, { "Content-Type": "application/problem+json" });
        return void res.end(JSON.stringify({ type: "https://api.weather.gov/problems/InvalidPoint", title: "Data Unavailable For Requested Point", status: 404 }));
      }
      type = "application/geo+json";
      const zone = (kind: string, id: string) => `https://api.weather.gov/zones/${kind}/${id}`;
      body = JSON.stringify({
        id: `https://api.weather.gov/points/${pointsPath[1]},${pointsPath[2]}`,
        type: "Feature",
        geometry: { type: "Point", coordinates: [Number(pointsPath[2]), Number(pointsPath[1])] },
        properties: {
          "@type": "wx:Point", cwa: "LKN", gridId: "LKN", gridX: 100, gridY: 100,
          forecastZone: zone("forecast", z.forecastZone), county: zone("county", z.county), fireWeatherZone: zone("fire", z.fireZone ?? z.forecastZone),
          timeZone: "America/Los_Angeles",
        },
      });
    } else if (url.pathname === "/alerts/active") {
      if (!/^-?\d+(\.\d+)?,-?\d+(\.\d+)?$/.test(url.searchParams.get("point") ?? "")) {
        res.writeHead(400, { "Content-Type": "application/problem+json" });
        return void res.end(JSON.stringify({ type: "https://api.weather.gov/problems/BadRequest", title: "Bad Request", status: 400, detail: "Parameter \"point\" is invalid" }));
      }
      type = "application/geo+json";
      const [lat, lon] = url.searchParams.get("point")!.split(",").map(Number);
      body = JSON.stringify(nwsCollection(pointAlerts ? pointAlerts(lat!, lon!) : alerts, url.searchParams.get("point")));
    } else if (url.pathname === "/v1/air-quality") {
      type = "application/json; charset=utf-8";
      const lats = (url.searchParams.get("latitude") ?? "").split(",");
      const lons = (url.searchParams.get("longitude") ?? "").split(",");
      const bodies = lats.map((lat, i) => {
        const q = new URLSearchParams(url.searchParams);
        q.set("latitude", lat);
        q.set("longitude", lons[i] ?? "");
        return airQualityBody(air, q);
      });
      body = JSON.stringify(bodies.length === 1 ? bodies[0] : bodies);
    } else {
      const feed = feeds.get(url.pathname);
      if (!feed) {
        res.writeHead(404, { "Content-Type": "text/html" });
        return void res.end("<h1>Not Found</h1>");
      }
      type = feed.contentType ?? "application/octet-stream";
      body = feed.body;
      if (feed.gzip) {
        body = zlib.gzipSync(body);
        headers["Content-Encoding"] = "gzip";
      }
      if (feed.etag) headers.ETag = feed.etag;
      if (feed.lastModified) headers["Last-Modified"] = feed.lastModified;
      const inm = req.headers["if-none-match"];
      const ims = req.headers["if-modified-since"];
      if (m.mode === "ok" && ((feed.etag && inm === feed.etag) || (!inm && feed.lastModified && ims === feed.lastModified))) {
        res.writeHead(304, headers);
        return void res.end();
      }
    }

    switch (m.mode) {
      case "slow": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) {
            res.writeHead(status, { "Content-Type": type, ...headers });
            res.end(body);
          }
        }, m.delayMs);
        timers.add(timer);
        res.on("close", () => {
          clearTimeout(timer);
          timers.delete(timer);
        });
        return;
      }
      case "stall":
        res.writeHead(200, { "Content-Type": type, "Content-Length": String(Buffer.byteLength(body)), ...headers });
        res.write(body.slice(0, body.length >> 1));
        return;
      case "oversize": {
        // No Content-Length: the client must count what arrives, as with a chunked answer.
        res.writeHead(200, { "Content-Type": type, ...headers });
        res.write(body.slice(0, 200));
        const chunk = Buffer.alloc(64 * 1024, " ");
        let left = m.oversizeBytes;
        const pump = () => {
          while (left > 0) {
            left -= chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          res.end();
        };
        res.on("error", () => {});
        return pump();
      }
      case "invalid":
        res.writeHead(200, { "Content-Type": type, ...headers });
        return void res.end("<html><body><h1>We moved!</h1><p>This is a web page, not a feed.</p></body></html>");
      default:
        res.writeHead(status, { "Content-Type": type, ...headers });
        return void res.end(body);
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    callsTo: (path) => requests.filter((r) => r.path === path).length,
    get maxInFlight() {
      return maxInFlight;
    },
    resetInFlight() {
      maxInFlight = inFlight;
    },
    setAlerts(features) {
      alerts = features;
      alertsVersion++;
      alertsModified = new Date(Math.max(Date.now(), Date.parse(alertsModified) + 1000)).toUTCString();
    },
    setPointAlerts(fn) {
      pointAlerts = fn;
    },
    setPointZones(fn) {
      pointZones = fn;
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    setAirQuality(reading) {
      air = reading;
    },
    setFeed(path, spec) {
      feeds.set(path, spec);
    },
    setMode(path, mode, options = {}) {
      modes.set(path, { mode, delayMs: options.delayMs ?? 60_000, oversizeBytes: options.oversizeBytes ?? 3 * 1024 * 1024, redirectTo: options.redirectTo });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const CALENDAR_TYPE = "text/calendar; charset=utf-8";
export const RSS_TYPE = "application/rss+xml; charset=utf-8";
export const ATOM_TYPE = "application/atom+xml; charset=utf-8";
