// A government's site on a civic platform (CivicPlus, Legistar), by the government's name and state:
// what both platform matchers share. Pure.
import { candidate, type CandidatePlatform, type MatchResult } from "./candidate.ts";
import { parseGovernmentName, placeOfGovernment } from "./government-names.ts";
import { countyByName, countyWide, type PlaceIndex } from "./place-lookup.ts";

/**
 * A government on a civic platform, by its name and state: a town's, or a county's (then a county
 * source of every place in it) when the row says county or the name does ("Kenai Peninsula Borough").
 */
export function matchCivic(index: PlaceIndex, level: "place" | "county", rawName: string, state: string,
  fields: { url: string; platform: CandidatePlatform; platformId: string; dataset: string; datasetRow: string }): MatchResult {
  const name = rawName.replace(/\s+/g, " ").trim();
  const base = { kind: "civic" as const, name, ...fields };
  const gov = parseGovernmentName(name, state);
  if (level === "county" || gov?.level === "county") {
    const county = countyByName(index, state, gov?.level === "county" ? gov.name : name);
    if (!county) return { outcome: "no_place", candidates: [] };
    return { outcome: "matched", candidates: countyWide(index, county).map((p) => candidate(p, { ...base, scope: "county" })) };
  }
  const found = placeOfGovernment(index, state, gov?.level === "place" ? gov : { title: null, name });
  if (!("place" in found)) return { outcome: found.outcome, candidates: [] };
  return { outcome: "matched", candidates: [candidate(found.place, { ...base, scope: "town" })] };
}
