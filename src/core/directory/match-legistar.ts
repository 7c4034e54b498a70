// Legistar (legistar-sites-2021.csv): a town's or county's meetings on Legistar. Pure.
import { homeUrl } from "./addresses.ts";
import { DATASETS, type MatchResult } from "./candidate.ts";
import { matchCivic } from "./civic-platform.ts";
import { stateCode } from "./name-keys.ts";
import type { PlaceIndex } from "./place-lookup.ts";

export interface LegistarRow { site_type: string; endpoint: string; name: string; state: string; country: string }

/** Legistar: platform 'legistar', platform_id the client (first label of `<client>.legistar.com`), url its calendar. */
export function matchLegistar(index: PlaceIndex, row: LegistarRow): MatchResult {
  const level = ({ municipality: "place", county: "county", borough: "county", parish: "county" } as const)[row.site_type.trim().toLowerCase() as "county"];
  if (!level) return { outcome: "not_government", candidates: [] };
  const endpoint = homeUrl(row.endpoint);
  const host = endpoint ? new URL(endpoint).hostname : "";
  const client = /^([a-z0-9-]+)\.legistar\.com$/.exec(host)?.[1];
  const state = stateCode(row.state);
  if (!client) return { outcome: "no_url", candidates: [] };
  if (!state) return { outcome: "no_place", candidates: [] };
  return matchCivic(index, level, row.name, state, {
    url: `https://${client}.legistar.com/Calendar.aspx`, platform: "legistar", platformId: client, dataset: DATASETS.legistar, datasetRow: row.endpoint.trim(),
  });
}
