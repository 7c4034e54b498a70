import { z } from "zod";
import { zoneIdOf, type AlertArea, type PolygonRings } from "../../core/hazards/alert-areas.ts";
import type { WeatherAlert } from "../../core/hazards/weather-alert.ts";
import { getJson, getJsonConditional, SourceError, type Validators } from "../http-json.ts";

// The National Weather Service's active alerts for a point (api.weather.gov, no key). NWS asks every
// client for a User-Agent that says who it is and how to reach them; requests without one may be
// refused.

export interface AlertsProvider {
  /** Active alerts for the point, most severe first, expired and superseded ones removed. Rejects with SourceError. */
  active(point: { latitude: number; longitude: number }, signal?: AbortSignal): Promise<WeatherAlert[]>;
  /**
   * Every active real alert in the country, in one request (`/alerts/active?status=actual`),
   * conditional on the last answer's validators: `not-modified` when nothing changed. Each alert
   * comes with the area it names (zones, counties, polygon) for matching towns in memory
   * (core/hazards/alert-areas.ts). Expired alerts are kept: the caller filters at its own `now`.
   */
  national(validators: Validators | undefined, signal?: AbortSignal): Promise<NationalAlerts>;
  /** The forecast zone, fire-weather zone and county of a point (`/points/{lat},{lon}`): they never change. */
  zonesOf(point: { latitude: number; longitude: number }, signal?: AbortSignal): Promise<PointZones>;
}

/** An alert without its reader link (that is per town), with the area it names. */
export interface AreaAlert {
  alert: Omit<WeatherAlert, "url">;
  area: AlertArea;
}

export type NationalAlerts =
  | { status: "not-modified" }
  | { status: "ok"; alerts: AreaAlert[]; etag: string | null; lastModified: string | null };

export interface PointZones {
  forecastZone: string | null;
  fireZone: string | null;
  county: string | null;
}

export interface NwsOptions {
  /** `NWS_API_URL`, e.g. `https://api.weather.gov` (no trailing slash). */
  baseUrl: string;
  /** `citydaily (https://citydaily.example, news@citydaily.example)`. */
  userAgent: string;
  timeoutMs?: number;
  now?: () => Date;
  fetch?: typeof globalThis.fetch;
}

const SEVERITIES = ["Extreme", "Severe", "Moderate", "Minor", "Unknown"] as const;
const URGENCIES = ["Immediate", "Expected", "Future", "Past", "Unknown"];

const text = z.string().nullish().transform((v) => v ?? null);
const AlertProperties = z.object({
  id: z.string(),
  event: z.string().min(1),
  severity: z.string().nullish(),
  urgency: text,
  headline: text,
  description: text,
  instruction: text,
  onset: text,
  ends: text,
  expires: z.string(),
  senderName: text,
  status: text,
  messageType: text,
  references: z.array(z.object({ identifier: z.string() }).loose()).nullish(),
}).loose();
const AlertsBody = z.object({
  type: z.literal("FeatureCollection"),
  features: z.array(z.object({ properties: z.unknown(), geometry: z.unknown().optional() }).loose()),
}).loose();

const Ring = z.array(z.tuple([z.number(), z.number()]).rest(z.number())).min(4);
const Geometry = z.union([
  z.object({ type: z.literal("Polygon"), coordinates: z.array(Ring).min(1) }),
  z.object({ type: z.literal("MultiPolygon"), coordinates: z.array(z.array(Ring).min(1)) }),
]);
const Geocode = z.object({ UGC: z.array(z.string()).nullish(), SAME: z.array(z.string()).nullish() }).loose();

const PointBody = z.object({
  properties: z.object({ forecastZone: z.string().nullish(), fireWeatherZone: z.string().nullish(), county: z.string().nullish() }).loose(),
}).loose();

/** 4 decimals is what api.weather.gov accepts (more answers 301 to the rounded point). */
export const nwsPoint = (lat: number, lon: number) => `${Number(lat.toFixed(4))},${Number(lon.toFixed(4))}`;

/** The reader's page for a point: forecast.weather.gov lists that point's hazards with their full text. */
export const nwsPointPage = (lat: number, lon: number) => `https://forecast.weather.gov/MapClick.php?lat=${Number(lat.toFixed(4))}&lon=${Number(lon.toFixed(4))}`;

/** One alert's properties as the edition reads them (without the page a reader opens, which depends on the town). */
function alertOf(p: z.infer<typeof AlertProperties>): Omit<WeatherAlert, "url"> {
  return {
    id: p.id,
    event: p.event,
    severity: (SEVERITIES as readonly string[]).includes(p.severity ?? "") ? (p.severity as WeatherAlert["severity"]) : "Unknown",
    urgency: p.urgency,
    headline: p.headline,
    description: p.description ?? "",
    instruction: p.instruction,
    onset: p.onset,
    ends: p.ends ?? p.expires,
    expires: p.expires,
    senderName: p.senderName ?? "National Weather Service",
  };
}

/**
 * The alerts worth showing at `now`, most severe first: real (`status: Actual`) alerts that are not
 * cancellations, not superseded by another alert in the answer, and not expired (neither `expires`
 * nor `ends` past). A feature that does not read as an alert is skipped, not fatal.
 */
export function parseNwsAlerts(body: unknown, now: Date, point: { latitude: number; longitude: number }): WeatherAlert[] {
  const parsed = AlertsBody.safeParse(body);
  if (!parsed.success) throw new SourceError("invalid", "NWS's answer was not a GeoJSON FeatureCollection of alerts");
  const props = parsed.data.features.flatMap((f) => {
    const p = AlertProperties.safeParse(f.properties);
    return p.success ? [p.data] : [];
  });
  const superseded = new Set(props.flatMap((p) => (p.references ?? []).map((r) => r.identifier)));
  const t = now.getTime();
  const alive = (iso: string | null) => iso === null || !(Date.parse(iso) <= t);
  const alerts: WeatherAlert[] = props
    .filter((p) => (p.status ?? "Actual") === "Actual" && p.messageType !== "Cancel" && !superseded.has(p.id))
    .filter((p) => Number.isFinite(Date.parse(p.expires)) && alive(p.expires) && alive(p.ends))
    .map((p) => ({ ...alertOf(p), url: nwsPointPage(point.latitude, point.longitude) }));
  const rank = (a: WeatherAlert) => SEVERITIES.indexOf(a.severity) * 10 + (URGENCIES.indexOf(a.urgency ?? "Unknown") + 10) % 10;
  return alerts.sort((a, b) => rank(a) - rank(b) || (a.onset ?? "").localeCompare(b.onset ?? "") || a.id.localeCompare(b.id));
}

/**
 * The national answer read into alerts with their areas: real alerts that are not cancellations nor
 * superseded by another in the answer. Expiry is left to the caller (the answer may be reused).
 */
export function parseNationalAlerts(body: unknown): AreaAlert[] {
  const parsed = AlertsBody.safeParse(body);
  if (!parsed.success) throw new SourceError("invalid", "NWS's answer was not a GeoJSON FeatureCollection of alerts");
  const read = parsed.data.features.flatMap((f) => {
    const p = AlertProperties.safeParse(f.properties);
    if (!p.success) return [];
    const geocode = Geocode.safeParse((f.properties as { geocode?: unknown }).geocode);
    const geometry = Geometry.safeParse(f.geometry);
    const polygons: PolygonRings[] = !geometry.success ? []
      : geometry.data.type === "Polygon" ? [geometry.data.coordinates.map((r) => r.map(([x, y]) => [x, y] as [number, number]))]
      : geometry.data.coordinates.map((poly) => poly.map((r) => r.map(([x, y]) => [x, y] as [number, number])));
    const area: AlertArea = { ugc: geocode.success ? (geocode.data.UGC ?? []) : [], same: geocode.success ? (geocode.data.SAME ?? []) : [], polygons };
    return [{ p: p.data, area }];
  });
  const superseded = new Set(read.flatMap(({ p }) => (p.references ?? []).map((r) => r.identifier)));
  return read
    .filter(({ p }) => (p.status ?? "Actual") === "Actual" && p.messageType !== "Cancel" && !superseded.has(p.id) && Number.isFinite(Date.parse(p.expires)))
    .map(({ p, area }) => ({ alert: alertOf(p), area }));
}

export function createNwsProvider(options: NwsOptions): AlertsProvider {
  const { baseUrl, userAgent, timeoutMs = 5000, now = () => new Date(), fetch } = options;
  const headers = { "User-Agent": userAgent, Accept: "application/geo+json" };
  return {
    async national(validators, signal) {
      const url = new URL(`${baseUrl}/alerts/active`);
      url.searchParams.set("status", "actual");
      const r = await getJsonConditional(url, { name: "NWS", timeoutMs, signal, fetch, headers }, validators);
      if (r.status === "not-modified") return r;
      return { status: "ok", alerts: parseNationalAlerts(r.body), etag: r.etag, lastModified: r.lastModified };
    },
    async zonesOf(point, signal) {
      let body: unknown;
      try {
        body = await getJson(new URL(`${baseUrl}/points/${nwsPoint(point.latitude, point.longitude)}`), { name: "NWS", timeoutMs, signal, fetch, headers });
      } catch (err) {
        // 404: a point NWS does not forecast for (some territories' places): no zones, an answer all the same.
        if (err instanceof SourceError && err.status === 404) return { forecastZone: null, fireZone: null, county: null };
        throw err;
      }
      const parsed = PointBody.safeParse(body);
      if (!parsed.success) throw new SourceError("invalid", "NWS's /points answer had no properties");
      const p = parsed.data.properties;
      return { forecastZone: zoneIdOf(p.forecastZone), fireZone: zoneIdOf(p.fireWeatherZone), county: zoneIdOf(p.county) };
    },
    async active(point, signal) {
      const url = new URL(`${baseUrl}/alerts/active`);
      url.searchParams.set("point", nwsPoint(point.latitude, point.longitude));
      const body = await getJson(url, { name: "NWS", timeoutMs, signal, fetch, headers: { "User-Agent": userAgent, Accept: "application/geo+json" } });
      return parseNwsAlerts(body, now(), point);
    },
  };
}
