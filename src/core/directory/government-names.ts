// What a government's name says it is ("City of Ely", "Kiowa County Kansas"), and the place it means:
// shared by the .gov, CivicPlus and Legistar matchers. Pure.
import { stateCode } from "./name-keys.ts";
import { placeByName, type DirectoryPlace, type PlaceIndex } from "./place-lookup.ts";

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

/** States whose "Town of X" is a civil township (not a Census place), so never another type's X: Town of Hempstead is not the Village of Hempstead. */
const TOWNSHIP_STATES = new Set(["CT", "MA", "ME", "MN", "NH", "NY", "RI", "VT", "WI"]);

/**
 * The place a government names. "City of X": a city named X; failing that, the one incorporated place
 * named X (the Census calls some self-styled cities towns), or Jefferson City for "City of Jefferson".
 * "Town of X" likewise, except where towns are townships. A bare name ("Alabaster"): an incorporated place.
 */
export function placeOfGovernment(index: PlaceIndex, state: string, gov: { title: keyof typeof TITLE_TYPES | null; name: string }) {
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
export function governmentTitle(place: DirectoryPlace, name: string): string {
  return ["city", "town", "village", "borough"].includes(place.placeType)
    ? `${place.placeType[0].toUpperCase()}${place.placeType.slice(1)} of ${name}`
    : name;
}
