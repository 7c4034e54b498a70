// The town directory's matching rules (docs/sources.md "The town directory"): which place or county a row
// of an open dataset belongs to, and the candidate source it gives. Pure: rows in, candidates out.
// The files are read by src/services/directory/import.ts.
import { STATES } from "../places/states.ts";

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

export const DATASETS = {
  uscityurl: "city-websites-uscityurl-2022.csv",
  dotgov: "dotgov-domains-2026-08-22.csv",
  threeDL: "news-outlets-3dlnews-2016-2024.json.gz",
  localMemory: "news-outlets-local-memory-2016.json",
  civicplus: "civicplus-sites-2020.csv",
  legistar: "legistar-sites-2021.csv",
} as const;

export interface DirectoryPlace {
  geoid: string;
  name: string;
  placeType: string;
  stateCode: string;
  stateName: string;
  countyGeoid: string | null;
  countyName: string | null;
  latitude: number;
  longitude: number;
  population: number | null;
  landAreaSqMi: number | null;
  /** The places data's count of places sharing this name in the state (1 = unique). */
  nameAmbiguousInState: number;
}

/** Places by the keys the datasets join on. */
export interface PlaceIndex {
  byGeoid: Map<string, DirectoryPlace>;
  /** `ST|normalized name` -> places. */
  byName: Map<string, DirectoryPlace[]>;
  /** county GEOID -> its places. */
  byCounty: Map<string, DirectoryPlace[]>;
  /** `ST|normalized county name` ("st|cook county") -> county GEOID. */
  countyByName: Map<string, string>;
  /** State code -> its places. */
  byState: Map<string, DirectoryPlace[]>;
}

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

const STATE_CODE_BY_NAME = new Map(STATES.map((s) => [s.name.toLowerCase(), s.code]));
const STATE_CODES = new Set(STATES.map((s) => s.code));

/** A state's two-letter code from its code or full name (any case), or null. */
export function stateCode(raw: string | null | undefined): string | null {
  const s = (raw ?? "").trim();
  if (STATE_CODES.has(s.toUpperCase()) && s.length === 2) return s.toUpperCase();
  return STATE_CODE_BY_NAME.get(s.toLowerCase()) ?? null;
}

/**
 * The key names are compared by: no accents, lower case, punctuation as spaces, "Saint"/"St.",
 * "Mount"/"Mt." and "Fort"/"Ft." alike ("Cañon City" = "Canon City", "St. Johns" = "Saint Johns").
 */
export function nameKey(name: string): string {
  return name
    .normalize("NFD").replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['’`]/g, "")
    .replace(/[^a-z0-9]+/g, " ")
    .trim()
    .replace(/\b(saint|ste?)\b/g, "st")
    .replace(/\b(mount|mt)\b/g, "mt")
    .replace(/\b(fort|ft)\b/g, "ft");
}

export function buildPlaceIndex(places: Iterable<DirectoryPlace>): PlaceIndex {
  const index: PlaceIndex = { byGeoid: new Map(), byName: new Map(), byCounty: new Map(), countyByName: new Map(), byState: new Map() };
  const push = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const p of places) {
    index.byGeoid.set(p.geoid, p);
    push(index.byName, `${p.stateCode}|${nameKey(p.name)}`, p);
    push(index.byState, p.stateCode, p);
    if (p.countyGeoid) {
      push(index.byCounty, p.countyGeoid, p);
      if (p.countyName) index.countyByName.set(`${p.stateCode}|${nameKey(p.countyName)}`, p.countyGeoid);
    }
  }
  return index;
}

// ---------------------------------------------------------------------------------------------------
// Addresses

/** A site's home page as an absolute http(s) URL ("www.ely.gov" -> "http://www.ely.gov/"), or null. */
export function homeUrl(raw: string | null | undefined): string | null {
  let s = (raw ?? "").trim();
  if (!s) return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(s)) s = `http://${s.replace(/^\/+/, "")}`;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return null;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || !url.hostname.includes(".")) return null;
  url.hash = "";
  return url.href;
}

/**
 * A feed address is a comment feed: WordPress's `/comments/feed` and `?feed=comments-rss2`, Foundation's
 * `Rss.xml?id=comments`, "most commented" lists. ("commentary" is an opinion section, not comments.)
 */
export function isCommentFeed(url: string): boolean {
  return /\/comments\/(feed|rss|atom)\b|[?&]feed=comments-|[?&](id|type)=comments\b|\/comments\.(rss|xml|atom)\b|most-commented/i.test(url);
}

/** Recorded feed addresses, absolute (relative ones resolved against the site), comment feeds dropped, once each. */
export function feedUrls(raw: unknown, site: string): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === "string" && raw ? [raw] : [];
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== "string" || !item.trim()) continue;
    let url: URL;
    try {
      url = new URL(item.trim(), site);
    } catch {
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") continue;
    url.hash = "";
    if (isCommentFeed(url.href) || out.includes(url.href)) continue;
    out.push(url.href);
  }
  return out;
}

/** Two addresses of the same site compare equal: scheme, `www.` and a trailing slash ignored. */
export function siteKey(url: string): string {
  const u = new URL(url);
  return `${u.hostname.replace(/^www\./, "")}${u.pathname.replace(/\/+$/, "")}${u.search}`;
}

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}

// ---------------------------------------------------------------------------------------------------
// Names of governments

/** Which places a government's title can mean: "City of" a city (or a consolidated city-county), and so on. */
const TITLE_TYPES: Record<string, string[]> = {
  city: ["city", "city and borough", "consolidated government", "consolidated/other", "metropolitan government", "unified government", "urban county", "municipality", "corporation"],
  town: ["town"],
  village: ["village"],
  borough: ["borough", "city and borough"],
  municipality: ["municipality", "city", "town", "village", "borough"],
};
/** What follows a county's name in the name of its general government (not its sheriff, court or airport). */
const COUNTY_GOVERNMENT_SUFFIX = /^(government|commission|commissioners|board of (county )?commissioners|board of supervisors|fiscal court|commissioners court|consolidated government|council)?$/;
const COUNTY_WORDS = /^(.+?) (county|parish|borough|census area|city and borough|municipality)\b ?(.*)$/;
const INCORPORATED = new Set(Object.values(TITLE_TYPES).flat());

export type GovernmentName =
  | { level: "place"; title: keyof typeof TITLE_TYPES; name: string }
  | { level: "county"; name: string };

/**
 * Strips a trailing state from a name: ", Nevada", ", NV", " (NV)" always; a bare trailing state name
 * ("Kiowa County Kansas") only when it is the row's own state and a name is left ("City of Nevada", MO, stays).
 */
function withoutState(name: string, state: string | null): string {
  const marked = /^(.+?)\s*(?:,\s*([A-Za-z .]+)|\(([A-Za-z .]+)\))$/.exec(name);
  if (marked && stateCode(marked[2] ?? marked[3])) return marked[1].trim();
  if (!state) return name;
  const words = name.split(" ");
  for (const n of [1, 2, 3]) {
    const tail = words.slice(-n).join(" "), rest = words.slice(0, -n).join(" ");
    if (words.length - n >= 2 && (tail.length > 2 || /^[A-Z]{2}$/.test(tail)) && stateCode(tail) === state && !/ of$/i.test(rest)) return rest;
  }
  return name;
}

/**
 * What a government's name says it is: "City of Ely", "Town of Sweden", "Village of X", "Borough of X",
 * "Incorporated Village of X", "X City", "X Town" (a place of that type), "X County", "County of X", "X Parish", "X County
 * Government", "X County Board of Commissioners" (a county). Anything else (a court, a sheriff, a
 * district, a township) is null.
 */
export function parseGovernmentName(raw: string, state: string | null = null): GovernmentName | null {
  const s = withoutState(raw.replace(/\s+/g, " ").trim().replace(/^the /i, ""), state);
  const place = /^(?:(?:incorporated|inc\.?) )?(city|town|village|borough|municipality) of (?:the )?(.+)$/i.exec(s);
  if (place) return { level: "place", title: place[1].toLowerCase() as keyof typeof TITLE_TYPES, name: place[2].trim() };
  // Utah's style: "Honeyville City", "Glenwood Town".
  const suffixed = /^(.+) (city|town)$/i.exec(s);
  if (suffixed && !/ county$/i.test(suffixed[1])) return { level: "place", title: suffixed[2].toLowerCase() as "city" | "town", name: suffixed[1].trim() };
  const countyOf = /^county of (.+)$/i.exec(s);
  if (countyOf) return { level: "county", name: `${countyOf[1].trim()} County` };
  const county = COUNTY_WORDS.exec(s.toLowerCase());
  if (county && COUNTY_GOVERNMENT_SUFFIX.test(county[3].trim())) {
    const words = s.split(" ").slice(0, county[1].split(" ").length + county[2].split(" ").length);
    return { level: "county", name: words.join(" ") };
  }
  return null;
}

/**
 * The one place a name means in a state, or why there is none. `types` narrows it to places of those
 * legal types ("City of X" is a city; a municipality's platform site is no CDP's).
 */
export function placeByName(index: PlaceIndex, state: string, name: string, types?: readonly string[]):
  { place: DirectoryPlace } | { outcome: "no_place" | "ambiguous" } {
  const all = index.byName.get(`${state}|${nameKey(name)}`) ?? [];
  const fit = types ? all.filter((p) => types.includes(p.placeType)) : all;
  if (fit.length === 0) return { outcome: "no_place" };
  if (fit.length > 1) return { outcome: "ambiguous" };
  // One place fits. A bare name shared with another place (the places data's ambiguous-name column, or
  // another spelling of the same key) is not guessed; a legal type that leaves exactly one decides.
  if (!types && (all.length > 1 || fit[0].nameAmbiguousInState > 1)) return { outcome: "ambiguous" };
  return { place: fit[0] };
}

/** A county's GEOID from its name ("Cook County", "Cook", "Orleans Parish") in a state, or null. */
export function countyByName(index: PlaceIndex, state: string, name: string): string | null {
  const key = nameKey(name);
  for (const candidate of [key, `${key} county`, `${key} parish`, `${key} borough`, `${key} city and borough`]) {
    const geoid = index.countyByName.get(`${state}|${candidate}`);
    if (geoid) return geoid;
  }
  return null;
}

/** States whose "Town of X" is a civil township (not a Census place), so never another type's X: Town of Hempstead is not the Village of Hempstead. */
const TOWNSHIP_STATES = new Set(["CT", "MA", "ME", "MN", "NH", "NY", "RI", "VT", "WI"]);

/**
 * The place a government names. "City of X": a city named X; failing that, the one incorporated place
 * named X (the Census calls some self-styled cities towns), or Jefferson City for "City of Jefferson".
 * "Town of X" likewise, except where towns are townships. A bare name ("Alabaster"): an incorporated place.
 */
function placeOfGovernment(index: PlaceIndex, state: string, gov: { title: keyof typeof TITLE_TYPES | null; name: string }) {
  const attempts: Array<[string, readonly string[]]> = [];
  if (gov.title) attempts.push([gov.name, TITLE_TYPES[gov.title]]);
  if (gov.title !== "town" || !TOWNSHIP_STATES.has(state)) attempts.push([gov.name, [...INCORPORATED]]);
  if (gov.title === "city" || gov.title === null) attempts.push([`${gov.name} City`, TITLE_TYPES.city]);
  if (gov.title === "village") attempts.push([`${gov.name} Village`, TITLE_TYPES.village]);
  for (const [name, types] of attempts) {
    const found = placeByName(index, state, name, types);
    if ("place" in found || found.outcome === "ambiguous") return found;
  }
  return { outcome: "no_place" as const };
}

/** The display name of a place's own government: "City of Ely" for a city, the bare name otherwise. */
function governmentTitle(place: DirectoryPlace, name: string): string {
  return ["city", "town", "village", "borough"].includes(place.placeType)
    ? `${place.placeType[0].toUpperCase()}${place.placeType.slice(1)} of ${name}`
    : name;
}

function candidate(place: DirectoryPlace, fields: {
  kind: CandidateKind; scope: CandidateScope; name: string; url: string; feedUrls?: string[];
  platform?: CandidatePlatform | null; platformId?: string | null; dataset: string; datasetRow: string;
}): NewCandidate {
  return { placeGeoid: place.geoid, feedUrls: [], platform: null, platformId: null, ...fields };
}

const countyWide = (index: PlaceIndex, county: string) => index.byCounty.get(county) ?? [];

// ---------------------------------------------------------------------------------------------------
// One matcher per dataset (rows as the files have them; see DATASETS)

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

function outletBasics(row: OutletRow): { name: string; url: string } | null {
  const url = homeUrl(row.website);
  const name = (row.name ?? "").replace(/\s+/g, " ").trim();
  return url && name ? { name, url } : null;
}

/** New York City spans five counties; the places data files it under Kings County (36047) only. */
const NEW_YORK_CITY_BOROUGHS = new Set(["36005", "36061", "36081", "36085"]);

/** The place of a state nearest to a point, if within `maxKm`. */
function nearestPlace(index: PlaceIndex, state: string, lat: number, lon: number, maxKm: number): DirectoryPlace | null {
  let best: DirectoryPlace | null = null;
  let bestKm = maxKm;
  for (const p of index.byState.get(state) ?? []) {
    const km = distanceKm(lat, lon, p.latitude, p.longitude);
    if (km <= bestKm && p.countyGeoid) [best, bestKm] = [p, km];
  }
  return best;
}

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

/**
 * A government on a civic platform, by its name and state: a town's, or a county's (then a county
 * source of every place in it) when the row says county or the name does ("Kenai Peninsula Borough").
 */
function matchCivic(index: PlaceIndex, level: "place" | "county", rawName: string, state: string,
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

// ---------------------------------------------------------------------------------------------------
// The directory

/**
 * One candidate per place, kind and site: a town source wins over the same site as a county source,
 * otherwise the first (datasets in DATASETS order) wins; a .gov domain that is the place's government
 * website already is not repeated.
 */
export function mergeCandidates(all: Iterable<NewCandidate>): NewCandidate[] {
  const kept = new Map<string, NewCandidate>();
  const governmentSites = new Set<string>();
  // The same outlet reaches every place of its county: each address is parsed once.
  const keys = new Map<string, { host: string; site: string }>();
  const keyOf = (url: string) => {
    let k = keys.get(url);
    if (!k) keys.set(url, (k = { host: new URL(url).hostname.replace(/^www\./, ""), site: siteKey(url) }));
    return k;
  };
  const list = [...all];
  for (const c of list) if (c.kind === "government") governmentSites.add(`${c.placeGeoid}|${keyOf(c.url).host}`);
  for (const c of list) {
    if (c.kind === "gov_domain" && governmentSites.has(`${c.placeGeoid}|${keyOf(c.url).host}`)) continue;
    const key = `${c.placeGeoid}|${c.kind}|${keyOf(c.url).site}`;
    const had = kept.get(key);
    if (!had || (had.scope === "county" && c.scope === "town")) kept.set(key, c);
  }
  return [...kept.values()];
}

export interface DirectoryCounts {
  places: number;
  placesWithAny: number;
  places5000: number;
  places5000WithAny: number;
  /** Places with a source of their own (scope town), not only county-wide ones. */
  placesWithTown: number;
  places5000WithTown: number;
  /** Places with at least one candidate of each kind and scope ("news/town", "news/county", ...). */
  placesBy: Record<string, number>;
  /** Candidates (rows) of each kind and scope. */
  rowsBy: Record<string, number>;
  /** Places with a news outlet (town or county) that has a recorded feed. */
  placesWithNewsFeed: number;
  rows: number;
}

export function directoryCounts(index: PlaceIndex, candidates: readonly NewCandidate[]): DirectoryCounts {
  const placesBy = new Map<string, Set<string>>();
  const rowsBy: Record<string, number> = {};
  const any = new Set<string>();
  const own = new Set<string>();
  const newsFeed = new Set<string>();
  for (const c of candidates) {
    const k = `${c.kind}/${c.scope}`;
    rowsBy[k] = (rowsBy[k] ?? 0) + 1;
    if (!placesBy.has(k)) placesBy.set(k, new Set());
    placesBy.get(k)!.add(c.placeGeoid);
    any.add(c.placeGeoid);
    if (c.scope === "town") own.add(c.placeGeoid);
    if (c.kind === "news" && c.feedUrls.length > 0) newsFeed.add(c.placeGeoid);
  }
  const big = [...index.byGeoid.values()].filter((p) => (p.population ?? 0) >= 5000);
  return {
    places: index.byGeoid.size,
    placesWithAny: any.size,
    places5000: big.length,
    places5000WithAny: big.filter((p) => any.has(p.geoid)).length,
    placesWithTown: own.size,
    places5000WithTown: big.filter((p) => own.has(p.geoid)).length,
    placesBy: Object.fromEntries([...placesBy].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => [k, s.size])),
    rowsBy: Object.fromEntries(Object.entries(rowsBy).sort(([a], [b]) => a.localeCompare(b))),
    placesWithNewsFeed: newsFeed.size,
    rows: candidates.length,
  };
}
