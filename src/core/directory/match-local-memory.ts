// Local Memory (news-outlets-local-memory-2016.json): a town's news outlets, town sources. Pure.
import { feedUrls } from "./addresses.ts";
import { candidate, DATASETS, type MatchResult } from "./candidate.ts";
import { stateCode } from "./name-keys.ts";
import { outletBasics, townReachKm, type OutletRow } from "./news-outlets.ts";
import { distanceKm, placeByName, type PlaceIndex } from "./place-lookup.ts";

/**
 * Local Memory: an outlet of a town, named with the state. It is the town's source only when the name
 * means one place of the state and the outlet's coordinates lie within townReachKm of it.
 */
export function matchTownOutlet(index: PlaceIndex, row: OutletRow, state: string, datasetRow: string): MatchResult {
  const basics = outletBasics(row);
  if (!basics) return { outcome: "no_url", candidates: [] };
  const code = stateCode(state);
  const city = (row["city-county-name"] ?? "").trim();
  if (!code || !city) return { outcome: "no_place", candidates: [] };
  const found = placeByName(index, code, city);
  if (!("place" in found)) return { outcome: found.outcome, candidates: [] };
  const lat = Number(row["city-county-lat"]), lon = Number(row["city-county-long"]);
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || (lat === 0 && lon === 0) ||
    distanceKm(lat, lon, found.place.latitude, found.place.longitude) > townReachKm(found.place)) return { outcome: "far", candidates: [] };
  return {
    outcome: "matched",
    candidates: [candidate(found.place, {
      kind: "news", scope: "town", ...basics, feedUrls: feedUrls(row.rss, basics.url), dataset: DATASETS.localMemory, datasetRow,
    })],
  };
}
