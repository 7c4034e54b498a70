// The .gov domains (dotgov-domains-*.csv): a city's (town scope) or a county's (county scope). Pure.
import { homeUrl } from "./addresses.ts";
import { candidate, DATASETS, type MatchResult } from "./candidate.ts";
import { parseGovernmentName, placeOfGovernment } from "./government-names.ts";
import { stateCode } from "./name-keys.ts";
import { countyByName, countyWide, type PlaceIndex } from "./place-lookup.ts";

export interface DotGovRow { "Domain name": string; "Domain type": string; "Organization name": string; State: string }

/**
 * A .gov domain of a city or county government: the organisation's name and state say which ("City of
 * Ely", NV); the registrant's City column is a mailing address and is not used. A county's domain is a
 * county source of every place in it.
 */
export function matchDotGov(index: PlaceIndex, row: DotGovRow): MatchResult {
  const type = row["Domain type"].trim();
  if (type !== "City" && type !== "County") return { outcome: "not_government", candidates: [] };
  const domain = row["Domain name"].trim().toLowerCase();
  const url = homeUrl(`https://${domain}/`);
  if (!url || !domain.endsWith(".gov")) return { outcome: "no_url", candidates: [] };
  const state = stateCode(row.State);
  const gov = parseGovernmentName(row["Organization name"], state);
  if (!state || !gov) return { outcome: state ? "not_government" : "no_place", candidates: [] };
  const name = row["Organization name"].replace(/\s+/g, " ").trim();
  const base = { kind: "gov_domain" as const, name, url, dataset: DATASETS.dotgov, datasetRow: domain };
  if (gov.level === "place") {
    const found = placeOfGovernment(index, state, gov);
    if (!("place" in found)) return { outcome: found.outcome, candidates: [] };
    return { outcome: "matched", candidates: [candidate(found.place, { ...base, scope: "town" })] };
  }
  const county = countyByName(index, state, gov.name);
  if (!county) return { outcome: "no_place", candidates: [] };
  return { outcome: "matched", candidates: countyWide(index, county).map((p) => candidate(p, { ...base, scope: "county" })) };
}
