// 3DLNews (news-outlets-3dlnews-*.json.gz): a county's news outlets, county sources of its places. Pure.
import { feedUrls } from "./addresses.ts";
import { candidate, DATASETS, type MatchOutcome, type MatchResult } from "./candidate.ts";
import { stateCode } from "./name-keys.ts";
import { outletBasics, TOWN_OUTLET_MAX_KM, type OutletRow } from "./news-outlets.ts";
import { countyWide, nearestPlace, type PlaceIndex } from "./place-lookup.ts";

/** New York City spans five counties; the places data files it under Kings County (36047) only. */
const NEW_YORK_CITY_BOROUGHS = new Set(["36005", "36061", "36081", "36085"]);

/**
 * 3DLNews: an outlet of a county (`fips`), a county source of every place in that county, never a town
 * source. New York City's other four boroughs are Kings County's (the city's). A county the places data
 * does not use (Connecticut's eight old counties, replaced by planning regions in 2022) or no FIPS at all
 * is taken from the outlet's coordinates: the county of the state's nearest place within 25 km.
 */
export function matchCountyOutlet(index: PlaceIndex, row: OutletRow, state: string, datasetRow: string): MatchResult {
  const basics = outletBasics(row);
  if (!basics) return { outcome: "no_url", candidates: [] };
  const fips = String(row.fips ?? "").trim().padStart(5, "0");
  let places = countyWide(index, NEW_YORK_CITY_BOROUGHS.has(fips) ? "36047" : fips);
  let outcome: MatchOutcome = "matched";
  if (places.length === 0) {
    const lat = Number(row["city-county-lat"]), lon = Number(row["city-county-long"]);
    const code = stateCode(state);
    const near = code && Number.isFinite(lat) && Number.isFinite(lon) ? nearestPlace(index, code, lat, lon, TOWN_OUTLET_MAX_KM) : null;
    if (!near) return { outcome: "no_place", candidates: [] };
    places = countyWide(index, near.countyGeoid!);
    outcome = "county_by_coordinates";
  }
  const feeds = feedUrls(row.rss, basics.url);
  return {
    outcome,
    candidates: places.map((p) => candidate(p, {
      kind: "news", scope: "county", ...basics, feedUrls: feeds, dataset: DATASETS.threeDL, datasetRow,
    })),
  };
}
