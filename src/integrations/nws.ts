import { z } from "zod";
import type { WeatherAlert } from "../core/town-sources.ts";
import { getJson, SourceError } from "./http-json.ts";

// The National Weather Service's active alerts for a point (api.weather.gov, no key). NWS asks every
// client for a User-Agent that says who it is and how to reach them; requests without one may be
// refused.

export interface AlertsProvider {
  /** Active alerts for the point, most severe first, expired and superseded ones removed. Rejects with SourceError. */
  active(point: { latitude: number; longitude: number }, signal?: AbortSignal): Promise<WeatherAlert[]>;
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
  features: z.array(z.object({ properties: z.unknown() }).loose()),
}).loose();

/** 4 decimals is what api.weather.gov accepts (more answers 301 to the rounded point). */
export const nwsPoint = (lat: number, lon: number) => `${Number(lat.toFixed(4))},${Number(lon.toFixed(4))}`;

/** The reader's page for a point: forecast.weather.gov lists that point's hazards with their full text. */
export const nwsPointPage = (lat: number, lon: number) => `https://forecast.weather.gov/MapClick.php?lat=${Number(lat.toFixed(4))}&lon=${Number(lon.toFixed(4))}`;

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
    .map((p) => ({
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
      url: nwsPointPage(point.latitude, point.longitude),
    }));
  const rank = (a: WeatherAlert) => SEVERITIES.indexOf(a.severity) * 10 + (URGENCIES.indexOf(a.urgency ?? "Unknown") + 10) % 10;
  return alerts.sort((a, b) => rank(a) - rank(b) || (a.onset ?? "").localeCompare(b.onset ?? "") || a.id.localeCompare(b.id));
}

export function createNwsProvider(options: NwsOptions): AlertsProvider {
  const { baseUrl, userAgent, timeoutMs = 5000, now = () => new Date(), fetch } = options;
  return {
    async active(point, signal) {
      const url = new URL(`${baseUrl}/alerts/active`);
      url.searchParams.set("point", nwsPoint(point.latitude, point.longitude));
      const body = await getJson(url, { name: "NWS", timeoutMs, signal, fetch, headers: { "User-Agent": userAgent, Accept: "application/geo+json" } });
      return parseNwsAlerts(body, now(), point);
    },
  };
}
