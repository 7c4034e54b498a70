import { z } from "zod";
import type { Quake } from "../../core/hazards/town-hazards.ts";
import { getJsonConditional, SourceError, type ConditionalItems, type Validators } from "../http-json.ts";

// USGS's real-time earthquake summary feed (earthquake.usgs.gov, public domain, no key): one GeoJSON
// document for the whole world, asked once per morning run and matched to every town locally. The
// feed is `2.5_day`: every quake of magnitude 2.5 and up of the past day. That is the "last 24 h"
// an edition tells, and 2.5 is about where quakes start to be felt (below it a quake is rarely
// noticed even at its epicentre), so nothing a reader could have felt is left out and the document
// stays small (tens of KB). USGS regenerates it every minute and answers conditional requests.

export interface EarthquakeProvider {
  /** The feed's quakes, or "not-modified" when it has not changed since `validators`. Rejects with SourceError. */
  recent(validators: Validators | null, signal?: AbortSignal): Promise<ConditionalItems<Quake>>;
}

export interface UsgsOptions {
  /** `USGS_EARTHQUAKES_URL`, e.g. `https://earthquake.usgs.gov` (no trailing slash). */
  baseUrl: string;
  userAgent: string;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export const USGS_FEED_PATH = "/earthquakes/feed/v1.0/summary/2.5_day.geojson";

const Properties = z.object({
  mag: z.number().nullable(),
  place: z.string().nullish(),
  time: z.number(),
  url: z.string().nullish(),
  felt: z.number().nullish(),
  alert: z.string().nullish(),
  tsunami: z.number().nullish(),
  type: z.string().nullish(),
}).loose();
const Feature = z.object({
  id: z.string(),
  properties: z.unknown(),
  geometry: z.object({ coordinates: z.array(z.number().nullable()).min(2) }).loose().nullable(),
}).loose();
const Body = z.object({ type: z.literal("FeatureCollection"), features: z.array(z.unknown()) }).loose();

const ALERTS = ["green", "yellow", "orange", "red"] as const;

/** The feed's earthquakes (quarry blasts and other event types left out); an unreadable feature is skipped. */
export function parseUsgsFeed(body: unknown): Quake[] {
  const parsed = Body.safeParse(body);
  if (!parsed.success) throw new SourceError("invalid", "USGS's answer was not a GeoJSON FeatureCollection");
  return parsed.data.features.flatMap((raw) => {
    const f = Feature.safeParse(raw);
    if (!f.success || !f.data.geometry) return [];
    const p = Properties.safeParse(f.data.properties);
    if (!p.success || p.data.mag == null || (p.data.type ?? "earthquake") !== "earthquake") return [];
    const [lon, lat, depth] = f.data.geometry.coordinates;
    if (lon == null || lat == null) return [];
    const alert = (ALERTS as readonly string[]).includes(p.data.alert ?? "") ? (p.data.alert as Quake["alert"]) : null;
    return [{
      id: f.data.id,
      mag: p.data.mag,
      place: p.data.place ?? "",
      time: p.data.time,
      latitude: lat,
      longitude: lon,
      depthKm: depth ?? 0,
      url: p.data.url ?? `https://earthquake.usgs.gov/earthquakes/eventpage/${encodeURIComponent(f.data.id)}`,
      felt: p.data.felt ?? null,
      alert,
      tsunami: p.data.tsunami === 1,
    }];
  });
}

export function createUsgsEarthquakeProvider(options: UsgsOptions): EarthquakeProvider {
  const { baseUrl, userAgent, timeoutMs = 8000, fetch } = options;
  return {
    async recent(validators, signal) {
      const answer = await getJsonConditional(new URL(`${baseUrl}${USGS_FEED_PATH}`), {
        name: "USGS earthquakes", timeoutMs, signal, fetch, headers: { "User-Agent": userAgent, Accept: "application/geo+json, application/json" },
      }, validators ?? undefined);
      return answer.status === "ok" ? { status: "ok", items: parseUsgsFeed(answer.body), validators: { etag: answer.etag, lastModified: answer.lastModified } } : answer;
    },
  };
}
