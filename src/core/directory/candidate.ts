// What the town directory's matchers give (docs/sources.md "The town directory"): the candidate source
// a row of an open dataset names, which file it came from, and why a row gave what it gave. Pure.
import type { DirectoryPlace } from "./place-lookup.ts";

// The candidate as src/store/directory/candidates.ts stores it (table town_source_candidates, migration 016).
export type CandidateKind = "government" | "gov_domain" | "news" | "civic";
export type CandidateScope = "town" | "county";
/** The platform a civic site runs on (WordPress is found by discovery, not in the datasets). */
export type CandidatePlatform = "civicplus" | "legistar" | "wordpress";
export interface NewCandidate {
  placeGeoid: string;
  kind: CandidateKind;
  scope: CandidateScope;
  name: string;
  url: string;
  feedUrls: string[];
  platform: CandidatePlatform | null;
  platformId: string | null;
  dataset: string;
  datasetRow: string;
}

/** Bump when a rule changes: the server re-imports on its next start even if the files did not change. */
export const DIRECTORY_RULES_VERSION = 2;

export const DATASETS = {
  uscityurl: "city-websites-uscityurl-2022.csv",
  dotgov: "dotgov-domains-2026-08-22.csv",
  threeDL: "news-outlets-3dlnews-2016-2024.json.gz",
  localMemory: "news-outlets-local-memory-2016.json",
  civicplus: "civicplus-sites-2020.csv",
  legistar: "legistar-sites-2021.csv",
} as const;

/** Why a row gave what it gave: counted per dataset by the importer, asserted row by row by the tests. */
export type MatchOutcome =
  | "matched"
  | "no_url" // no usable http(s) address
  | "not_government" // a .gov or platform row that is not a town's or county's general government
  | "not_us"
  | "no_place" // names no place (or county) of the data
  | "ambiguous" // the name fits more than one place in the state: not guessed
  | "far" // the outlet's coordinates are too far from the named town
  | "county_by_coordinates" // a county the places data does not use (Connecticut's old counties): the nearest place's
  | "state_mismatch";

export interface MatchResult {
  outcome: MatchOutcome;
  candidates: NewCandidate[];
}

/** A place's candidate, with no feeds and no platform unless given. */
export function candidate(place: DirectoryPlace, fields: {
  kind: CandidateKind; scope: CandidateScope; name: string; url: string; feedUrls?: string[];
  platform?: CandidatePlatform | null; platformId?: string | null; dataset: string; datasetRow: string;
}): NewCandidate {
  return { placeGeoid: place.geoid, feedUrls: [], platform: null, platformId: null, ...fields };
}
