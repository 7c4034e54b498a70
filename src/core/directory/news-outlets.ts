// A news outlet as both outlet files (3DLNews, Local Memory) record it, and how far from its town it
// may be recorded. Pure.
import { homeUrl } from "./addresses.ts";
import type { DirectoryPlace } from "./place-lookup.ts";

/**
 * A news outlet is a town's source only if its recorded coordinates lie this close to the town: to its
 * point, plus the radius of a circle of its land area (a large city's outlets are geocoded far from its
 * internal point; the outlet files' coordinates are 3 km from the town's at the median, 12 km at the 90th percentile).
 */
export const TOWN_OUTLET_MAX_KM = 25;

/** How far from a place's point an outlet of the place may be recorded. */
export function townReachKm(place: Pick<DirectoryPlace, "landAreaSqMi">): number {
  const areaKm2 = (place.landAreaSqMi ?? 0) * 2.589988;
  return TOWN_OUTLET_MAX_KM + Math.sqrt(areaKm2 / Math.PI);
}

/** A news outlet as both outlet files record it. */
export interface OutletRow {
  name?: string;
  website?: string;
  rss?: unknown;
  fips?: string;
  "city-county-name"?: string;
  "city-county-lat"?: number | string;
  "city-county-long"?: number | string;
  "media-class"?: string;
}

/** The outlet's name and home page, or null without either. */
export function outletBasics(row: OutletRow): { name: string; url: string } | null {
  const url = homeUrl(row.website);
  const name = (row.name ?? "").replace(/\s+/g, " ").trim();
  return url && name ? { name, url } : null;
}
