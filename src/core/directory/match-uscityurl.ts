// UScityURL (city-websites-uscityurl-2022.csv): the official website of an incorporated place. Pure.
import { homeUrl } from "./addresses.ts";
import { candidate, DATASETS, type MatchResult } from "./candidate.ts";
import { governmentTitle } from "./government-names.ts";
import { stateCode } from "./name-keys.ts";
import type { PlaceIndex } from "./place-lookup.ts";

export interface UsCityUrlRow { GEOID: string; MUNICIPALITY: string; STATE: string; WEBSITE_AVAILABLE: string; WEBSITE_URL: string }

/** UScityURL: the place of the GEOID (`1600000US` + the place's 7 digits), if the state agrees. */
export function matchUsCityUrl(index: PlaceIndex, row: UsCityUrlRow): MatchResult {
  const url = row.WEBSITE_AVAILABLE.trim() === "1" ? homeUrl(row.WEBSITE_URL) : null;
  if (!url) return { outcome: "no_url", candidates: [] };
  const place = index.byGeoid.get(row.GEOID.trim().replace(/^1600000US/, ""));
  if (!place) return { outcome: "no_place", candidates: [] };
  if (stateCode(row.STATE) !== place.stateCode) return { outcome: "state_mismatch", candidates: [] };
  return {
    outcome: "matched",
    candidates: [candidate(place, {
      kind: "government", scope: "town", name: governmentTitle(place, row.MUNICIPALITY.trim() || place.name), url,
      dataset: DATASETS.uscityurl, datasetRow: row.GEOID.trim(),
    })],
  };
}
