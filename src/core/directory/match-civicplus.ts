// CivicPlus (civicplus-sites-2020.csv): a town's or county's site on CivicPlus. Pure.
import { homeUrl } from "./addresses.ts";
import { DATASETS, type MatchResult } from "./candidate.ts";
import { matchCivic } from "./civic-platform.ts";
import { stateCode } from "./name-keys.ts";
import type { PlaceIndex } from "./place-lookup.ts";

export interface CivicPlusRow { end_point: string; name: string; state: string; country: string; govt_level: string }

/** CivicPlus: platform 'civicplus', platform_id the site's host, the home page its root. */
export function matchCivicPlus(index: PlaceIndex, row: CivicPlusRow): MatchResult {
  if (row.country.trim().toUpperCase() !== "USA") return { outcome: "not_us", candidates: [] };
  const level = ({ Municipality: "place", County: "county", "Municipality & County": "place" } as const)[row.govt_level.trim() as "County"];
  if (!level) return { outcome: "not_government", candidates: [] };
  const endpoint = homeUrl(row.end_point);
  const state = stateCode(row.state);
  if (!endpoint) return { outcome: "no_url", candidates: [] };
  if (!state) return { outcome: "no_place", candidates: [] };
  const host = new URL(endpoint).host;
  return matchCivic(index, level, row.name, state, {
    url: new URL("/", endpoint).href, platform: "civicplus", platformId: host, dataset: DATASETS.civicplus, datasetRow: row.end_point.trim(),
  });
}
